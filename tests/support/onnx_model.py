"""A tiny sentence-transformers folder exported to ONNX, built here: a word-level tokenizer of
eight words and a graph whose token vectors are rows of ``TABLE`` (masked), so every pooled
vector can be computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

VOCAB = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "alpha": 4, "beta": 5, "gamma": 6, "delta": 7}
#: Each word's token vector (rows in VOCAB's order).
TABLE = np.array([[0, 0, 0], [1, 1, 1], [1, 0, 0], [0, 0, 1], [2, 1, 0], [0, 3, 1], [4, 0, 2], [1, 2, 5]],
                 dtype=np.float32)


def write_tiny_onnx_model(folder: Path, *, pooling: str = "mean", cap: int = 16, normalise: bool = True,
                          graph: str = "onnx/model.onnx") -> Path:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.WordLevel(VOCAB, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]",
                                                             special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tokenizer.save(str(folder / "tokenizer.json"))
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["vectors"]),
             helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["mask", "last"], ["mask3"]),
             helper.make_node("Mul", ["vectors", "mask3"], ["last_hidden_state"])]
    body = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", 3])],
        [numpy_helper.from_array(TABLE, "table"), numpy_helper.from_array(np.array([-1], dtype=np.int64), "last")])
    model = helper.make_model(body, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    (folder / graph).parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(folder / graph))
    (folder / "1_Pooling").mkdir(exist_ok=True)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({
        "word_embedding_dimension": 3, "pooling_mode_cls_token": pooling == "cls",
        "pooling_mode_mean_tokens": pooling == "mean", "pooling_mode_max_tokens": pooling == "max"}))
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalise:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": cap}))
    return folder
