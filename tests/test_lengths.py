"""``inspector.lengths``: offline tiktoken encodings, HF tokenizers, boundaries, names.

Nothing here may touch the network: an autouse fixture makes any socket connection (and any
tiktoken download) fail the test."""

from __future__ import annotations

import base64
import bisect
import gzip
import hashlib
import pickle
import re
import socket
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
import tiktoken.registry
import tiktoken_ext.openai_public as openai_public
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers

from inspector import lengths
from inspector.errors import LengthError
from inspector.extras import install_hint
from inspector.lengths import (
    LENGTH_NAMES,
    CharLength,
    HFTokenizerLength,
    Length,
    TiktokenLength,
    build_encoding,
    get_length,
)

DATA = Path(lengths.__file__).with_name("data")


ENCODINGS = {"o200k_base": "o200k_base.tiktoken.gz", "cl100k_base": "cl100k_base.tiktoken.gz"}


TEXTS = [
    "",
    " ",
    "Hello, world! The quick brown fox jumps over the lazy dog.",
    "I'll say they've done it, don't you think? IT'S DONE.",
    "def count(text: str) -> int:\n    return len(text)  # 1234567890\n\tpass\r\n",
    "| col A | col B |\n|---|---:|\n| 1.5 | 2,000 |\n| `x` | **y** |\n",
    "# Heading\n\n- item one\n- item two\n\n> quote [link](http://example.com/a/b?c=d)\n",
    "emoji 😀🦜🪿 family 👨‍👩‍👧‍👦 flag 🇫🇷 skin 👍🏽",
    "漢字とひらがなとカタカナ。中文文本，标点符号！한국어 텍스트",
    "café naïve résumé Ångström — façade; cafe\u0301 (combining accent)",
    "Привет мир. مرحبا بالعالم. नमस्ते दुनिया. שלום עולם",
    "   \n\n\n\t\t  x    y \u00a0\u2003z\n   ",
    "<|endoftext|> text after <|endofprompt|> and <|fim_prefix|>",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀 ꙮ \u200b zero-width",
    "word " * 300,
]


ASCII_TEXTS = [t for t in TEXTS if t.isascii()]


INTERESTING = "aZ09 \t\n\r.,'’-_|#*`<>|éüñçåß漢字かな한😀🦜👍🏽\u200d\u0301\u00a0\u2003"


TEXT = st.one_of(st.text(), st.text(alphabet=INTERESTING))


def _refuse(*args, **kwargs):
    raise AssertionError(f"network access attempted: {args!r}")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    monkeypatch.setattr(tiktoken.load, "read_file", _refuse)


def _requested_by_tiktoken(name: str) -> tuple[str, str]:
    """The (blob URL, expected sha256) tiktoken's own constructor asks for, fetching nothing."""

    class Stop(Exception):
        pass

    seen: dict[str, str] = {}

    def record(blobpath, expected_hash=None):
        seen.update(url=blobpath, sha=expected_hash)
        raise Stop

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(openai_public, "load_tiktoken_bpe", record)
        with pytest.raises(Stop):
            openai_public.ENCODING_CONSTRUCTORS[name]()
    return seen["url"], seen["sha"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Encodings built by tiktoken's own path: get_encoding, reading its cache directory."""
    cache = tmp_path_factory.mktemp("tiktoken-cache")
    refs = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", str(cache))
        mp.setattr(tiktoken.registry, "ENCODINGS", {})  # bypass (and keep) the registry cache
        mp.setattr(tiktoken.load, "read_file", _refuse)  # a cache miss would mean a download
        mp.setattr(socket.socket, "connect", _refuse)
        for name, file_name in ENCODINGS.items():
            url, _ = _requested_by_tiktoken(name)
            raw = gzip.decompress((DATA / file_name).read_bytes())
            (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(raw)
            refs[name] = tiktoken.get_encoding(name)
    return refs


def _check_cut_points(points, text):
    if not points:
        assert not text.strip()
        return
    assert points[0] == 0
    assert all(a < b for a, b in zip(points, points[1:]))
    assert all(0 <= p < len(text) for p in points)
    pieces = [text[a:b] for a, b in zip(points, points[1:] + [len(text)])]
    assert "".join(pieces) == text and all(pieces)


def _expected_tiktoken_points(enc, text):
    """Independent reference: the character holding each token's first byte, deduplicated."""
    char_starts, pos = [], 0
    for ch in text:
        char_starts.append(pos)
        pos += len(ch.encode("utf-8"))
    points, byte = [], 0
    for token in enc.decode_tokens_bytes(enc.encode_ordinary(text)):
        char = bisect.bisect_right(char_starts, byte) - 1
        if not points or char > points[-1]:
            points.append(char)
        byte += len(token)
    return points


CORPUS = [
    "the quick brown fox jumps over the lazy dog",
    "hello world, hello tokenizers",
    "chunks are cut on character offsets",
]


def _word_level() -> Tokenizer:
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(CORPUS, trainers.WordLevelTrainer(special_tokens=["[UNK]", "[CLS]", "[SEP]"]))
    tok.post_processor = processors.BertProcessing(
        ("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]"))
    )
    return tok


@pytest.fixture
def hf_file(tmp_path):
    path = tmp_path / "tokenizer.json"
    _word_level().save(str(path))
    return path


HF_TEXTS = ["", "hello world", "the lazy fox, unknown words here!", "  spaced   out\ttext \n", "漢字 😀"]


@pytest.mark.parametrize("name", ENCODINGS)
def test_vendored_file_is_what_tiktoken_expects(name):
    _, expected = _requested_by_tiktoken(name)
    raw = gzip.decompress((DATA / ENCODINGS[name]).read_bytes())
    assert hashlib.sha256(raw).hexdigest() == expected
    assert lengths.VENDORED[name] == (ENCODINGS[name], expected)


def test_corrupted_copy_raises(tmp_path):
    raw = bytearray(gzip.decompress((DATA / ENCODINGS["cl100k_base"]).read_bytes()))
    good = tmp_path / "good"
    good.mkdir()
    (good / ENCODINGS["cl100k_base"]).write_bytes(gzip.compress(bytes(raw)))
    shared = TiktokenLength("cl100k").encoding
    text = "hi there, 漢字"
    assert build_encoding("cl100k_base", data_dir=good).encode_ordinary(text) == shared.encode_ordinary(text)

    raw[1000] ^= 0x01  # one flipped bit in the decompressed bytes
    (tmp_path / ENCODINGS["cl100k_base"]).write_bytes(gzip.compress(bytes(raw)))
    with pytest.raises(LengthError, match="corrupt.*sha256"):
        build_encoding("cl100k_base", data_dir=tmp_path)


@pytest.mark.parametrize("name", ENCODINGS)
def test_ranks_are_read_line_by_line_as_tiktoken_writes_them(name):
    path = DATA / ENCODINGS[name]
    raw = gzip.decompress(path.read_bytes())
    expected = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in raw.splitlines())}
    assert lengths.read_ranks(path, hashlib.sha256(raw).hexdigest()) == expected


@pytest.mark.parametrize("content, why", [(b"YQ== 0\nYg==\n", "without a rank"), (b"YQ== zero\n", "invalid literal"),
                                         (b"Y 0\n", "")])
def test_a_rank_file_that_does_not_parse_is_refused_with_the_reason(tmp_path, content, why):
    path = tmp_path / "ranks.tiktoken.gz"
    path.write_bytes(gzip.compress(content))
    with pytest.raises(LengthError, match=f"cannot parse tiktoken rank file ranks.tiktoken.gz: .*{why}"):
        lengths.read_ranks(path, hashlib.sha256(content).hexdigest())


def test_unreadable_copy_raises(tmp_path):
    (tmp_path / ENCODINGS["o200k_base"]).write_bytes(b"this is not gzip")
    with pytest.raises(LengthError, match="o200k_base.tiktoken.gz"):
        build_encoding("o200k_base", data_dir=tmp_path)
    with pytest.raises(LengthError, match="cl100k_base.tiktoken.gz"):  # missing file
        build_encoding("cl100k_base", data_dir=tmp_path)


def test_building_writes_no_cache_and_fetches_nothing(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    monkeypatch.setattr(tiktoken.load, "read_file_cached", _refuse)
    enc = build_encoding("o200k")
    assert enc.name == "o200k_base" and len(enc.encode_ordinary("hello world")) == 2
    assert list(cache.iterdir()) == []
    assert openai_public.load_tiktoken_bpe is tiktoken.load.load_tiktoken_bpe  # patch undone


def test_newer_tiktoken_expecting_other_data_is_refused(monkeypatch):
    monkeypatch.setitem(lengths.VENDORED, "cl100k_base", (ENCODINGS["o200k_base"], "0" * 64))
    monkeypatch.setattr(lengths, "read_ranks", lambda path, sha: {b"a": 0})
    with pytest.raises(LengthError, match="expects cl100k_base data"):
        build_encoding("cl100k_base")
    assert openai_public.load_tiktoken_bpe is tiktoken.load.load_tiktoken_bpe


@pytest.mark.parametrize("name", ENCODINGS)
def test_same_encoding_as_tiktoken(reference, name):
    ref, ours = reference[name], TiktokenLength(name).encoding
    assert ref is not ours
    assert ours.name == ref.name == name
    # tiktoken has no public accessor for these; equal internals mean equal encodings.
    assert ours._pat_str == ref._pat_str  # noqa: SLF001
    assert ours._special_tokens == ref._special_tokens  # noqa: SLF001
    assert build_encoding(name)._mergeable_ranks == ref._mergeable_ranks  # noqa: SLF001
    assert sorted(ours.token_byte_values()) == sorted(ref._mergeable_ranks)  # noqa: SLF001
    assert ours.n_vocab == ref.n_vocab
    for text in TEXTS:
        assert ours.encode_ordinary(text) == ref.encode(text, disallowed_special=())
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", ENCODINGS)
def test_the_shared_encoding_holds_its_ranks_once_and_a_length_sent_elsewhere_counts_alike(reference, name):
    """The Rust encoder holds the ranks; the Python copy (30 MB for o200k, in every process)
    is let go, so the length travels by name, and the bare encoding refuses to travel empty."""
    length = TiktokenLength(name)
    assert not length.encoding._mergeable_ranks  # noqa: SLF001
    arrived = pickle.loads(pickle.dumps(length))
    for text in TEXTS:
        assert arrived.count(text) == length.count(text) == len(reference[name].encode(text, disallowed_special=()))
        assert arrived.boundaries(text) == length.boundaries(text)
    with pytest.raises(ValueError):
        pickle.loads(pickle.dumps(length.encoding))


@given(st.lists(st.sampled_from(["", "a b", "the lazy fox", "漢字 😀", "a b "]), max_size=12))
@settings(max_examples=40, deadline=None)
def test_many_counts_are_each_texts_count_with_repeats_encoded_once(texts):
    length = get_length("o200k")
    encoded: list[str] = []
    encode = length.encoding.encode_ordinary

    def counting(text):
        encoded.append(text)
        return encode(text)

    length.encoding.encode_ordinary = counting  # on the shared encoding: put back below
    try:
        counts = length.count_many(texts)
    finally:
        del length.encoding.encode_ordinary
    assert counts == [len(encode(text)) for text in texts]
    assert sorted(encoded) == sorted(set(texts))


def test_many_hf_counts_with_repeats(hf_file):
    length = HFTokenizerLength(hf_file)
    texts = ["the lazy fox", "", "hello world", "the lazy fox", "hello world"]
    assert length.count_many(texts) == [length.count(text) for text in texts]


@pytest.mark.parametrize("name", ENCODINGS)
def test_counts_match_tiktoken(reference, name):
    ref, length = reference[name], get_length(name)
    expected = [len(ref.encode(text, disallowed_special=())) for text in TEXTS]
    assert [length.count(text) for text in TEXTS] == expected
    assert length.count_many(TEXTS) == expected
    assert length.count_many(iter(TEXTS)) == expected
    # special-token text is ordinary text: several tokens, never the one special id
    assert length.count("<|endoftext|>") > 1
    assert length.special_overhead == 0 and length.unit == "tokens"


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_counts_match_tiktoken_on_any_text(reference, name, text):
    ours = TiktokenLength(name)
    ref_ids = reference[name].encode(text, disallowed_special=())
    assert ours.encoding.encode_ordinary(text) == ref_ids
    assert ours.count(text) == len(ref_ids)


@pytest.mark.parametrize("name", LENGTH_NAMES[1:])
def test_tiktoken_boundaries_on_ascii_are_token_starts(name):
    length = get_length(name)
    for text in ASCII_TEXTS:
        points = length.boundaries(text)
        _check_cut_points(points, text)
        assert len(points) == length.count(text)
        ids = length.encoding.encode_ordinary(text)
        pieces = [text[a:b] for a, b in zip(points, points[1:] + [len(text)])]
        assert pieces == [length.encoding.decode([i]) for i in ids]


@pytest.mark.parametrize("name", LENGTH_NAMES[1:])
def test_tiktoken_boundaries_with_multibyte_tokens(name):
    length = get_length(name)
    for emoji in ("🦜", "🪿", "𓀀"):  # one character, several byte-level tokens
        assert length.count(emoji) > 1
        assert length.boundaries(emoji) == [0]
        assert length.boundaries(f"ab {emoji} cd") == _expected_tiktoken_points(
            length.encoding, f"ab {emoji} cd"
        )
    for text in TEXTS:
        points = length.boundaries(text)
        _check_cut_points(points, text)
        assert len(points) <= length.count(text)
        assert points == _expected_tiktoken_points(length.encoding, text)


@pytest.mark.parametrize("name", LENGTH_NAMES[1:])
@settings(max_examples=200, deadline=None)
@given(text=TEXT)
def test_tiktoken_boundaries_on_any_text(name, text):
    length = TiktokenLength(name)
    points = length.boundaries(text)
    _check_cut_points(points, text)
    assert points == _expected_tiktoken_points(length.encoding, text)
    assert bool(points) == bool(text)


def test_surrogates_do_not_break_counting_or_shift_offsets(hf_file):
    # Lone and paired surrogates (from badly decoded input) count like U+FFFD, so offsets
    # still index the original text.
    text = "a\ud800b \udfff c \ud83d\ude00 d"
    clean = "a\ufffdb \ufffd c \ufffd\ufffd d"
    for length in [get_length(name) for name in LENGTH_NAMES] + [get_length(hf_file)]:
        assert length.count(text) >= 4
        assert length.boundaries(text) == length.boundaries(clean)
        _check_cut_points(length.boundaries(text), text)


def test_char_length():
    length = get_length("chars")
    assert isinstance(length, CharLength) and isinstance(length, Length)
    assert (length.name, length.unit, length.special_overhead) == ("chars", "characters", 0)
    assert length.count("héllo 😀") == 7
    assert length.count_many(["ab", "", "漢字"]) == [2, 0, 2]
    assert length.boundaries("a😀c") == [0, 1, 2]
    assert length.boundaries("") == []


def test_hf_counts_match_the_tokenizer(hf_file):
    ref = _word_level()
    length = get_length(str(hf_file))
    assert isinstance(length, HFTokenizerLength)
    assert (length.name, length.unit) == ("hf:tokenizer.json", "tokens")
    expected = [len(ref.encode(t, add_special_tokens=False).ids) for t in HF_TEXTS]
    assert expected[1:3] == [2, 8]  # "," and "!" are tokens of their own
    assert [length.count(t) for t in HF_TEXTS] == expected
    assert length.count_many(HF_TEXTS) == expected
    assert length.special_overhead == 2
    assert len(ref.encode("hello world").ids) == length.count("hello world") + 2


def test_hf_name_forms(hf_file):
    for name in (hf_file, f"hf:{hf_file}", f"HF:{hf_file}", hf_file.parent):
        length = get_length(name)
        assert length.name == "hf:tokenizer.json" and length.count("hello world") == 2


def test_hf_saved_truncation_and_padding_are_ignored(tmp_path):
    tok = _word_level()
    tok.enable_truncation(max_length=3)
    tok.enable_padding(length=16)
    tok.save(str(tmp_path / "tokenizer.json"))
    length = get_length(tmp_path / "tokenizer.json")
    assert length.count("the quick brown fox jumps over") == 6
    assert length.count_many(["hello", "hello world"]) == [1, 2]
    assert length.special_overhead == 2


def test_hf_special_token_text_counts_as_text(hf_file):
    length = get_length(hf_file)
    assert _word_level().encode("[CLS]", add_special_tokens=False).ids == [1]  # as a special
    assert length.count("[CLS]") == 3  # "[", "CLS", "]"


def test_hf_from_json(hf_file):
    data = hf_file.read_text(encoding="utf-8")
    for source in (data, data.encode("utf-8")):
        length = HFTokenizerLength.from_json(source, name="my-model.json")
        assert length.name == "hf:my-model.json"
        assert length.count("hello world, fox") == 4 and length.special_overhead == 2
    assert HFTokenizerLength.from_json(data).name == "hf:upload"
    with pytest.raises(LengthError, match="upload"):
        HFTokenizerLength.from_json(b"\xff\xfe not utf-8")


def test_hf_bad_files_raise(tmp_path):
    broken = tmp_path / "broken-tokenizer.json"
    broken.write_text('{"version": "1.0", "model": ', encoding="utf-8")
    with pytest.raises(LengthError, match="broken-tokenizer.json"):
        get_length(broken)
    not_a_tokenizer = tmp_path / "other.json"
    not_a_tokenizer.write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(LengthError, match="other.json"):
        get_length(f"hf:{not_a_tokenizer}")
    with pytest.raises(LengthError, match="missing.json"):
        get_length(tmp_path / "missing.json")
    with pytest.raises(LengthError, match="tokenizer.json"):  # a folder without one
        get_length(tmp_path)


def test_hf_boundaries(hf_file):
    length = get_length(hf_file)
    assert length.boundaries("hello   world, fox") == [0, 8, 13, 15]
    assert length.boundaries("  hello world") == [0, 8]  # first token owns the leading blanks
    assert length.boundaries("   ") == [] and length.count("   ") == 0
    for text in HF_TEXTS:
        points = length.boundaries(text)
        _check_cut_points(points, text)
        assert len(points) == length.count(text)


def test_hf_byte_level_boundaries_on_multibyte_text(tmp_path):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )  # fmt: skip
    tok.train_from_iterator(CORPUS, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 1)]
    )
    tok.save(str(tmp_path / "bpe.json"))
    length = get_length(tmp_path / "bpe.json")
    assert length.special_overhead == 2
    for text in TEXTS:
        points = length.boundaries(text)
        _check_cut_points(points, text)
        assert len(points) <= length.count(text)
        assert length.count(text) == len(tok.encode(text, add_special_tokens=False).ids)
    assert length.count("🦜") == 4 and length.boundaries("🦜") == [0]


@pytest.mark.parametrize(
    ("alias", "cls", "name"),
    [
        ("chars", CharLength, "chars"),
        ("characters", CharLength, "chars"),
        ("c", CharLength, "chars"),
        ("char", CharLength, "chars"),
        ("o200k", TiktokenLength, "o200k"),
        ("O200K_BASE", TiktokenLength, "o200k"),
        ("cl100k", TiktokenLength, "cl100k"),
        (" cl100k_base ", TiktokenLength, "cl100k"),
    ],
)
def test_get_length_aliases(alias, cls, name):
    length = get_length(alias)
    assert type(length) is cls and length.name == name


def test_builtin_names_round_trip():
    assert LENGTH_NAMES == ("chars", "o200k", "cl100k")
    for name in LENGTH_NAMES:
        length = get_length(name)
        assert length.name == name and get_length(length) is length
    assert TiktokenLength("o200k").encoding is TiktokenLength("o200k_base").encoding


@pytest.mark.parametrize("bad", ["", "bogus", "tokens", "o300k", "gpt2", "hf:", "r50k_base"])
def test_get_length_rejects_unknown_names(bad):
    with pytest.raises(LengthError, match="accepted: chars") as info:
        get_length(bad)
    assert isinstance(info.value, ValueError)
    assert "o200k" in str(info.value) and "tokenizer.json" in str(info.value)


def test_tiktoken_length_rejects_other_encodings():
    with pytest.raises(LengthError, match="o200k_base, cl100k_base"):
        TiktokenLength("p50k_base")


def test_keys_tell_when_two_lengths_cut_alike(hf_file):
    assert get_length("o200k").key == get_length("o200k_base").key != get_length("cl100k").key
    assert get_length("chars").key == ("chars",)
    data = hf_file.read_bytes()
    assert HFTokenizerLength.from_json(data, "a").key == HFTokenizerLength(hf_file).key
    edited = data.decode("utf-8").replace('"[UNK]"', '"[UNKNOWN]"')
    assert edited != data.decode("utf-8")
    assert HFTokenizerLength.from_json(edited, "b").key != HFTokenizerLength(hf_file).key


def test_token_boundaries_are_computed_once_per_document_and_tokenizer(monkeypatch):
    from inspector.split.packing import Sizer

    calls = []
    real = TiktokenLength.boundaries

    def counting(self, text):
        calls.append(self.encoding_name)
        return real(self, text)

    monkeypatch.setattr(TiktokenLength, "boundaries", counting)
    memo: dict = {}
    text = "Tokens are counted once. Then reused for every budget and splitter."
    first = Sizer.of(text, get_length("o200k"), memo)
    again = Sizer.of(text, get_length("o200k"), memo)  # another instance, the same encoding
    Sizer.of(text, get_length("cl100k"), memo)
    assert calls == ["o200k_base", "cl100k_base"]
    plain = Sizer(text, get_length("o200k"))
    assert list(first.bounds) == list(again.bounds) == plain.bounds
    assert [first.size(0, b) for b in range(len(text) + 1)] == [plain.size(0, b) for b in range(len(text) + 1)]
    calls.clear()

    unkeyed = get_length("o200k")
    unkeyed.key = ()
    Sizer.of(text, unkeyed, memo)
    Sizer.of(text, unkeyed, memo)
    assert calls == ["o200k_base", "o200k_base"]  # nothing says two such lengths agree


def test_minilm_counts_the_word_pieces_of_the_tokenizer_in_its_wheel_and_budgets_splits():
    from inspector import Document, split_document
    from inspector.retrieval.minilm import MiniLM

    length = get_length("minilm")
    texts = ["Revenue grew 14% to $3.2 billion.", "Das ist ein Satz.", "tokenization " * 40]
    assert length.count_many(texts) == MiniLM().count(texts)
    assert (length.name, length.unit, length.special_overhead) == ("minilm", "tokens", 2)
    result = split_document(Document("d.md", "Alpha beta gamma. " * 400), "recursive:100t:minilm")
    assert str(result.spec) == "recursive:100t:minilm"
    assert all(length.count(c.text(Document("d.md", "Alpha beta gamma. " * 400))) <= 100 for c in result.chunks)


def test_the_minilm_unit_names_the_extra_when_the_wheel_is_missing(monkeypatch):
    from inspector import lengths

    lengths.minilm_length.cache_clear()
    monkeypatch.setattr("inspector.packaged.importlib.util.find_spec", lambda name: None)
    try:
        with pytest.raises(LengthError, match="minilm unit cannot be used.*" + re.escape(install_hint("minilm"))):
            get_length("minilm")
    finally:
        lengths.minilm_length.cache_clear()
