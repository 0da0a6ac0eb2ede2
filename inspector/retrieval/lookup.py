"""Finding the occurrences of a few wanted words among millions of terms, by their codes.

A term is a ``[start, end)`` run of an array of character codes (``terms.TermTable``'s). A cheap
fingerprint of each term narrows them to the few that can equal a wanted word, and those are
compared with it code by code, all as array operations.
"""

from __future__ import annotations

import numpy as np

#: Terms per block when a whole-corpus pass would otherwise hold several arrays of every term.
BLOCK = 1 << 20


def _fingerprints(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A cheap key per term (length, first, second and last code) that equal terms share
    (unequal ones too, now and then: candidates are compared in full afterwards)."""
    starts, ends = starts.astype(np.int64), ends.astype(np.int64)
    second = np.minimum(starts + 1, ends - 1)
    return (((ends - starts) << 42) ^ (codes[starts].astype(np.int64) << 28)
            ^ (codes[second].astype(np.int64) << 14) ^ codes[ends - 1].astype(np.int64))


def occurrences(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray, ids: dict[bytes, int]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Numbers of the terms equal to a word of ``ids`` (keyed by its codes' bytes, in the type
    of ``codes``), and that word's id, in term order.

    Fingerprints narrow half a million terms to the few that can equal a wanted word; those
    are then compared with their word code by code, all as array operations.
    """
    none = np.zeros(0, dtype=np.int64)
    if not ids or not len(starts):
        return none, none
    width = codes.dtype.itemsize
    words = list(ids)
    lengths = np.fromiter((len(w) // width for w in words), np.int64, len(words))
    word_ends = np.cumsum(lengths)
    spelling = np.frombuffer(b"".join(words), dtype=codes.dtype)
    keys = _fingerprints(spelling, word_ends - lengths, word_ends)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    # Block by block, so that no pass holds several arrays the size of the whole corpus's terms.
    hits, slots = [], []
    for at in range(0, len(starts), BLOCK):
        found = _fingerprints(codes, starts[at:at + BLOCK], ends[at:at + BLOCK])
        slot = np.minimum(np.searchsorted(keys, found), len(keys) - 1)
        hit = np.flatnonzero(keys[slot] == found)
        hits.append(hit + at)
        slots.append(slot[hit])
    terms, slot = np.concatenate(hits), np.concatenate(slots)
    shared = np.flatnonzero(keys[1:] == keys[:-1])
    if len(shared):  # two wanted words with one fingerprint: compare those terms as text
        ambiguous = np.isin(keys[slot], keys[shared])
        exact = [(t, ids[codes[a:b].tobytes()]) for t, a, b in zip(
            terms[ambiguous].tolist(), starts[terms[ambiguous]].tolist(), ends[terms[ambiguous]].tolist())
            if codes[a:b].tobytes() in ids]
        terms, slot = terms[~ambiguous], slot[~ambiguous]
    word = order[slot]
    size = (ends[terms] - starts[terms]).astype(np.int64)
    fits = size == lengths[word]  # fingerprints of unequal lengths can meet
    terms, word, size = terms[fits], word[fits], size[fits]
    total = int(size.sum())
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
    text = codes[np.repeat(starts[terms], size) + within]
    spelled = spelling[np.repeat(word_ends[word] - lengths[word], size) + within]
    same = np.logical_and.reduceat(text == spelled, np.cumsum(size) - size) if total else np.zeros(0, dtype=bool)
    terms, word = terms[same], word[same]
    word_ids = np.fromiter(ids.values(), np.int64, len(ids))[word]
    if len(shared) and exact:
        terms = np.concatenate((terms, np.fromiter((t for t, _ in exact), np.int64, len(exact))))
        word_ids = np.concatenate((word_ids, np.fromiter((w for _, w in exact), np.int64, len(exact))))
        sort = np.argsort(terms, kind="stable")
        terms, word_ids = terms[sort], word_ids[sort]
    return terms, word_ids
