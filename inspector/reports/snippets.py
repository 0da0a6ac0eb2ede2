"""The code that reproduces a view's splitter elsewhere: in Python with this library, in
LangChain, in LlamaIndex, in Chonkie, and on the command line. Generated from the spec, so a page never
writes code itself; every snippet is run by a test and gives the chunks the page shows.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from ..extras import install_hint
from ..model import ATOM_KINDS
from ..spec import SplitterSpec, parse_spec


def check_floors(summary) -> dict[str, float]:
    """``check``'s floors that hold now: each atom kind's survival in a ``SplitSummary``,
    rounded down to a hundredth (kinds the corpus has none of are left out)."""
    return {kind: math.floor(value * 100) / 100 for kind in ATOM_KINDS if (value := summary.kept(kind)) is not None}


@dataclass(frozen=True, slots=True)
class Snippet:
    """One way to run the splitter: a title, the code, and its language for highlighting."""

    title: str
    code: str
    language: str = "python"


def snippets_for(spec: SplitterSpec | str, corpus: str = "sample_corpus", *, mode: str = "markdown",
                 floors: Mapping[str, float] | None = None, golden: str | None = None,
                 retriever: str = "bm25") -> list[Snippet]:
    """Every snippet for ``spec`` over the folder ``corpus`` (``floors``: the ``check`` floors,
    ``golden`` the golden set a ``recall@B`` floor needs, ``retriever`` what ranks for the gate)."""
    spec = parse_spec(spec)
    text, folder = repr(str(spec)), repr(str(corpus))
    mode_arg = "" if mode == "markdown" else f", mode={mode!r}"
    out = [Snippet("Python, with Chunk Inspector", f"""from inspector import Workspace, load_corpus

corpus = load_corpus({folder}{mode_arg})
work = Workspace(corpus{mode_arg and f", {mode!r}"})
for result in work.split({text}):
    document = next(d for d in corpus.documents if d.id == result.doc_id)
    for chunk in result.chunks:
        print(chunk.id, chunk.start, chunk.end, repr(chunk.embedded_text(document)[:60]))
""")]
    if spec.is_built_in:
        out.append(Snippet(f"LangChain ({install_hint('langchain')})", f"""from inspector import load_corpus
from inspector.integrations import ChunkInspectorSplitter
from langchain_core.documents import Document

splitter = ChunkInspectorSplitter.from_spec({text}{mode_arg})
documents = [Document(page_content=d.text, metadata={{"source": d.id, "title": d.title, **dict(d.meta)}})
             for d in load_corpus({folder}{mode_arg}).documents]
for chunk in splitter.split_documents(documents):
    print(chunk.metadata["chunk_id"], chunk.metadata["start_index"], chunk.metadata["end_index"])
"""))
        out.append(Snippet(f"LlamaIndex ({install_hint('llamaindex')})", f"""from inspector import load_corpus
from inspector.integrations import ChunkInspectorNodeParser
from llama_index.core import Document

parser = ChunkInspectorNodeParser.from_spec({text}{mode_arg})
documents = [Document(text=d.text, metadata={{"source": d.id, "title": d.title, **dict(d.meta)}})
             for d in load_corpus({folder}{mode_arg}).documents]
for node in parser.get_nodes_from_documents(documents):
    print(node.metadata["chunk_id"], node.start_char_idx, node.end_char_idx)
"""))
        out.append(Snippet(f"Chonkie ({install_hint('chonkie')})", f"""from inspector import load_corpus
from inspector.integrations import ChunkInspectorChunker

chunker = ChunkInspectorChunker({text}{mode_arg})
for document in load_corpus({folder}{mode_arg}).documents:
    about = {{"source": document.id, "title": document.title, **dict(document.meta)}}
    for chunk in chunker.chunk(document.text, about):
        print(document.id, chunk.start_index, chunk.end_index, chunk.token_count)
"""))
    atoms = "" if mode == "markdown" else f" --atoms {mode}"
    command = f"chunk-inspector export {shlex.quote(str(corpus))} --spec {shlex.quote(str(spec))}{atoms}"
    gate = f"chunk-inspector check {shlex.quote(str(corpus))} --spec {shlex.quote(str(spec))}{atoms}"
    gate += f" --golden {shlex.quote(golden)}" if golden else ""
    gate += f" --retriever {shlex.quote(retriever)}" if retriever != "bm25" else ""
    gate += "".join(f" --min {shlex.quote(f'{name}={value:g}')}" for name, value in (floors or {}).items())
    out.append(Snippet("Command line: the chunks as JSONL, and a CI gate", f"{command} -o chunks.jsonl\n{gate}\n",
                       "bash"))
    return out
