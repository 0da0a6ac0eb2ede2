"""One configuration's chunks, and every atom, over a whole corpus as flat arrays.

Measuring a dozen configurations repeats two questions over tens of thousands of spans: which
atoms does some chunk hold whole, and which chunks hold a query's words. Put every document in
one coordinate space (document ``i`` starts at ``bases[i]``, one offset past the end of the
one before, as in the probe's ``TermTable``) and both become a few array operations over the
corpus, with no ``Chunk`` objects built.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

import numpy as np

from ..atoms.analysis import Analysis
from ..model import ATOM_KINDS, Span
from .summary import BUCKETS, Buckets, Tally, bucket_of


def document_bases(lengths: list[int]) -> np.ndarray:
    """Where each document starts when the corpus is joined with one separator between texts."""
    sizes = np.asarray(lengths, dtype=np.int64) + 1
    return np.cumsum(sizes) - sizes


def document_groups(doc_ids: list[str]) -> np.ndarray:
    """Each document's group (``summary.bucket_of``), in the order given."""
    return np.fromiter((bucket_of(d) for d in doc_ids), np.int64, len(doc_ids))


@dataclass(frozen=True, slots=True)
class ChunkArrays:
    """One configuration's chunks over a corpus, in corpus order, as parallel arrays."""

    doc_ids: tuple[str, ...]
    """The corpus's document ids, in order."""

    counts: np.ndarray
    """Chunks per document."""

    starts: np.ndarray
    """Each chunk's start offset in its document."""

    ends: np.ndarray
    """Each chunk's end offset in its document."""

    prefixes: tuple[str, ...] | None
    """Each chunk's prefix; None when no chunk has one."""

    oversized: int
    """Chunks over budget because one indivisible piece is."""

    @classmethod
    def from_spans(cls, doc_ids: list[str] | tuple[str, ...],
                   per_document: Iterable[tuple[list[Span], list[str] | None, int]]) -> "ChunkArrays":
        """From each document's ``(spans, prefixes or None, oversized count)``, taken one
        document at a time (a generator never holds a whole corpus's span lists)."""
        counts, flat = array("q"), array("q")
        prefixes: list[str] | None = None
        oversized = 0
        for spans, doc_prefixes, over in per_document:
            if doc_prefixes is not None and prefixes is None:
                prefixes = [""] * (len(flat) // 2)
            if prefixes is not None:
                prefixes += doc_prefixes if doc_prefixes is not None else [""] * len(spans)
            counts.append(len(spans))
            flat.extend(chain.from_iterable(spans))
            oversized += over
        pairs = np.frombuffer(flat, dtype=np.int64).reshape(-1, 2) if flat else np.zeros((0, 2), dtype=np.int64)
        return cls(tuple(doc_ids), np.frombuffer(counts, dtype=np.int64).copy() if counts else np.zeros(0, np.int64),
                   pairs[:, 0].copy(), pairs[:, 1].copy(), tuple(prefixes) if prefixes is not None else None, oversized)

    @property
    def doc_of(self) -> np.ndarray:
        """Each chunk's document position."""
        return np.repeat(np.arange(len(self.doc_ids), dtype=np.int64), self.counts)

    def __len__(self) -> int:
        return len(self.starts)

    def span_chars(self) -> int:
        """Characters inside the spans, repeats counted."""
        return int((self.ends - self.starts).sum())

    def global_spans(self, bases: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Starts and ends in the corpus-wide coordinate space of ``bases``."""
        shift = np.repeat(bases, self.counts)
        return self.starts + shift, self.ends + shift


class AtomArrays:
    """Every atom of a corpus, per kind, in the coordinate space of ``bases``."""

    def __init__(self, bases: np.ndarray, analyses: list[Analysis]) -> None:
        self.bases = bases
        self.starts: dict[str, np.ndarray] = {}
        """Global start of every atom, per kind, in corpus order."""
        self.ends: dict[str, np.ndarray] = {}
        """Global end of every atom, per kind."""
        self.documents: dict[str, np.ndarray] = {}
        """Each atom's document position, per kind."""
        for kind in ATOM_KINDS:
            per_doc = [analysis.atoms.get(kind, ()) for analysis in analyses]
            counts = np.fromiter(map(len, per_doc), np.int64, len(per_doc))
            flat = np.array([span for spans in per_doc for span in spans], dtype=np.int64).reshape(-1, 2)
            shift = np.repeat(bases, counts)
            self.starts[kind] = flat[:, 0] + shift
            self.ends[kind] = flat[:, 1] + shift
            self.documents[kind] = np.repeat(np.arange(len(per_doc), dtype=np.int64), counts)
        self._token_sizes: dict[tuple[str, str], np.ndarray] = {}

    def sizes(self, kind: str) -> np.ndarray:
        """Each atom's size in characters."""
        return self.ends[kind] - self.starts[kind]

    def token_sizes(self, kind: str, unit: str, length, texts: list[str]) -> np.ndarray:
        """Each atom's size as ``length.count`` of its text (``texts``: the documents', in
        order), computed once per ``unit`` (the spec's unit name, which ``length`` counts)."""
        key = (kind, unit)
        if key not in self._token_sizes:
            shift = self.bases[self.documents[kind]]
            local = zip(self.documents[kind].tolist(), (self.starts[kind] - shift).tolist(),
                        (self.ends[kind] - shift).tolist())
            self._token_sizes[key] = np.array([length.count(texts[d][a:b]) for d, a, b in local], dtype=np.int64)
        return self._token_sizes[key]


def held_whole(atom_starts: np.ndarray, atom_ends: np.ndarray, chunk_starts: np.ndarray,
               chunk_ends: np.ndarray) -> np.ndarray:
    """For each atom, whether one chunk contains it whole (all in one coordinate space).

    The last chunk starting at or before the atom, or any before it, must reach its end; a
    chunk of an earlier document never does, because documents are separated.
    """
    if not len(chunk_starts):
        return np.zeros(len(atom_starts), dtype=bool)
    if len(chunk_starts) > 1 and np.any(chunk_starts[1:] < chunk_starts[:-1]):
        order = np.argsort(chunk_starts, kind="stable")
        chunk_starts, chunk_ends = chunk_starts[order], chunk_ends[order]
    reach = np.maximum.accumulate(chunk_ends)
    k = np.searchsorted(chunk_starts, atom_starts, side="right")
    found = k > 0
    out = np.zeros(len(atom_starts), dtype=bool)
    out[found] = reach[k[found] - 1] >= atom_ends[found]
    return out


@dataclass(frozen=True, slots=True)
class Survival:
    """What ``survival_counts`` finds: ``(intact, counted)`` per kind for the atoms that fit and
    for every atom, the same per document as a ``Tally`` each, and per group of documents."""

    fit: dict[str, tuple[int, int]]
    every: dict[str, tuple[int, int]]
    tally_fit: dict[str, Tally]
    tally_all: dict[str, Tally]
    groups_fit: dict[str, Buckets]
    groups_all: dict[str, Buckets]


def survival_counts(atoms: AtomArrays, chunk_starts: np.ndarray, chunk_ends: np.ndarray,
                    fits: int | None, sizes=None, groups: np.ndarray | None = None) -> Survival:
    """``measures.survival_pair`` over the whole corpus for atoms no larger than ``fits``
    (``sizes(kind)`` measures them; characters by default) and for every atom, tallied per
    document and, with ``groups`` (each document's ``bucket_of``), summed per group."""
    fit_out, all_out, fit_tally, all_tally, fit_groups, all_groups = {}, {}, {}, {}, {}, {}
    for kind in ATOM_KINDS:
        held = held_whole(atoms.starts[kind], atoms.ends[kind], chunk_starts, chunk_ends)
        documents = atoms.documents[kind]
        every = np.ones(len(held), dtype=bool)
        all_out[kind] = (int(held.sum()), len(held))
        all_tally[kind] = tally(documents, held, every)
        all_groups[kind] = grouped(groups, documents, held, every)
        if fits is None:
            fit_out[kind], fit_tally[kind], fit_groups[kind] = all_out[kind], all_tally[kind], all_groups[kind]
        else:
            small = (sizes(kind) if sizes else atoms.sizes(kind)) <= fits
            fit_out[kind] = (int((held & small).sum()), int(small.sum()))
            fit_tally[kind] = tally(documents, held & small, small)
            fit_groups[kind] = grouped(groups, documents, held & small, small)
    return Survival(fit_out, all_out, fit_tally, all_tally, fit_groups, all_groups)


def grouped(groups: np.ndarray | None, documents: np.ndarray, intact: np.ndarray, counted: np.ndarray) -> Buckets:
    """Atoms ``intact`` and ``counted`` summed per group of documents (``groups``: each
    document's; ``documents``: each atom's)."""
    if groups is None or not len(documents):
        return ()
    group = groups[documents]
    kept = np.bincount(group, weights=intact, minlength=BUCKETS).astype(np.int64)
    seen = np.bincount(group, weights=counted, minlength=BUCKETS).astype(np.int64)
    found = np.flatnonzero(seen)
    return tuple(zip(found.tolist(), kept[found].tolist(), seen[found].tolist()))


def tally(documents: np.ndarray, intact: np.ndarray, counted: np.ndarray) -> Tally:
    """Per document (``documents``: each atom's), atoms ``intact`` and atoms ``counted``, tallied."""
    if not len(documents):
        return ()
    size = int(documents.max()) + 1
    kept = np.bincount(documents, weights=intact, minlength=size).astype(np.int64)
    seen = np.bincount(documents, weights=counted, minlength=size).astype(np.int64)
    kept, seen = kept[seen > 0], seen[seen > 0]
    if not len(seen):
        return ()
    base = int(seen.max()) + 1  # one number per (kept, seen) pair: a 1-D unique is far cheaper
    keys, many = np.unique(kept * base + seen, return_counts=True)
    unique = np.stack([keys // base, keys % base], axis=1)
    return tuple(((int(a), int(b)), int(n)) for (a, b), n in zip(unique.tolist(), many.tolist()))
