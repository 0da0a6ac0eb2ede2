"""What is counted over a whole corpus: a configuration's counts (summed over runs of documents
measured apart) and the corpus's own facts."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from ..model import ATOM_KINDS, Span
from ..spec import SplitterSpec
from .sizes import percentiles

#: Survival per document in a canonical form: ``((intact, counted), documents)`` pairs, sorted,
#: for the documents with any such atom. Sums over runs of documents merge tallies; the cluster
#: bootstrap needs no more, and no order.
Tally = tuple[tuple[tuple[int, int], int], ...]


#: Survival pooled over every atom kind per group of documents: ``(group, intact, counted)``,
#: sorted, for the groups with any atom. A document's group is a digest of its id (``bucket_of``),
#: so the engines, whatever their order, fill the same groups, and two configurations measured on
#: one corpus can be compared group by group: the paired cluster bootstrap behind table a's
#: verdict. Groups keep it flat: a million documents cost what 4,096 groups cost.
Buckets = tuple[tuple[int, int, int], ...]

#: How many groups ``Buckets`` has; a corpus of fewer documents has about one document a group.
BUCKETS = 4096


def bucket_of(doc_id: str) -> int:
    """The group of the document ``doc_id`` (the same on every engine and every run)."""
    import zlib

    return zlib.crc32(doc_id.encode("utf-8", "surrogatepass")) % BUCKETS


def merged_buckets(parts: Iterable[Buckets]) -> Buckets:
    """One ``Buckets`` from those of runs of documents measured apart."""
    found: dict[int, list[int]] = {}
    for one in parts:
        for group, intact, counted in one:
            sums = found.setdefault(group, [0, 0])
            sums[0] += intact
            sums[1] += counted
    return tuple((group, a, b) for group, (a, b) in sorted(found.items()))


@dataclass(frozen=True, slots=True)
class SplitSummary:
    """A configuration's corpus-wide counts (survival as ``kind -> (intact, counted)``)."""

    spec: SplitterSpec
    """The configuration."""

    chunks: int
    """Number of chunks over the corpus."""

    span_chars: int
    """Characters inside chunk spans, repeats counted (prefixes not included)."""

    survival_fit: dict[str, tuple[int, int]]
    """Survival over atoms no larger than the budget."""

    survival_all: dict[str, tuple[int, int]]
    """Survival over every atom."""

    oversized: int
    """Chunks over budget because one indivisible piece is."""

    tally_fit: dict[str, Tally] = field(default_factory=dict)
    """``survival_fit`` per document, tallied (what its interval resamples)."""

    tally_all: dict[str, Tally] = field(default_factory=dict)
    """``survival_all`` per document, tallied."""

    groups_fit: dict[str, Buckets] = field(default_factory=dict)
    """``survival_fit`` per group of documents (``bucket_of``), per kind: what table a's verdict
    and ``check --baseline`` compare document by document."""

    groups_all: dict[str, Buckets] = field(default_factory=dict)
    """``survival_all`` per group of documents, per kind."""

    @property
    def buckets(self) -> Buckets:
        """``survival_fit`` pooled over the kinds, per group of documents."""
        return merged_buckets(self.groups_fit.values())

    def pooled(self) -> tuple[int, int]:
        """Atoms that fit the budget, every kind together: ``(intact, counted)``."""
        return (sum(intact for intact, _ in self.survival_fit.values()),
                sum(counted for _, counted in self.survival_fit.values()))

    def kept(self, kind: str, *, every: bool = False) -> float | None:
        """Share of ``kind``'s atoms kept whole: of those that fit the budget, or of ``every``
        one; None when there is no such atom."""
        intact, counted = (self.survival_all if every else self.survival_fit)[kind]
        return intact / counted if counted else None

    def interval(self, kind: str, *, every: bool = False):
        """``derived`` with its 95% interval (``confidence.Interval``), documents resampled."""
        from ..confidence import clustered_rate

        tallied = (self.tally_all if every else self.tally_fit).get(kind, ())
        return clustered_rate(tallied)

    @classmethod
    def total(cls, spec: SplitterSpec, parts: Iterable["SplitSummary"]) -> "SplitSummary":
        """The summary of a corpus from those of its parts (runs of its documents, measured apart):
        every count is a sum over documents."""
        running = RunningSummary(spec)
        for part in parts:
            running.add(part)
        return running.summary()


class RunningSummary:
    """A configuration's counts summed as the summaries of runs of its documents come in, holding
    the running sums only: a pass over a corpus in many batches does not keep every batch's
    per-group counts until its end (4,096 groups per kind each)."""

    def __init__(self, spec: SplitterSpec) -> None:
        self.spec = spec
        self.chunks = self.span_chars = self.oversized = 0
        self.survival = (dict.fromkeys(ATOM_KINDS, (0, 0)), dict.fromkeys(ATOM_KINDS, (0, 0)))
        self.tallies: tuple[dict[str, dict], ...] = tuple({k: {} for k in ATOM_KINDS} for _ in range(2))
        # Per kind, fit and every atom: (intact, counted) of each group, and which groups appeared.
        self.groups = tuple({k: np.zeros((BUCKETS, 2), dtype=np.int64) for k in ATOM_KINDS} for _ in range(2))
        self.seen = tuple({k: np.zeros(BUCKETS, dtype=bool) for k in ATOM_KINDS} for _ in range(2))

    def add(self, part: SplitSummary) -> None:
        """Count one run of documents."""
        self.chunks += part.chunks
        self.span_chars += part.span_chars
        self.oversized += part.oversized
        for which, (survival, tallies, groups) in enumerate((
                (part.survival_fit, part.tally_fit, part.groups_fit),
                (part.survival_all, part.tally_all, part.groups_all))):
            mine = self.survival[which]
            for kind, (intact, counted) in survival.items():
                mine[kind] = (mine[kind][0] + intact, mine[kind][1] + counted)
            for kind in ATOM_KINDS:
                found = self.tallies[which][kind]
                for pair, n in tallies.get(kind, ()):
                    found[pair] = found.get(pair, 0) + n
                buckets = groups.get(kind, ())
                if buckets:
                    # Flattened first: numpy reads a flat run of ints at twice the speed of nested tuples.
                    rows = np.fromiter(chain.from_iterable(buckets), dtype=np.int64,
                                       count=3 * len(buckets)).reshape(-1, 3)
                    np.add.at(self.groups[which][kind], rows[:, 0], rows[:, 1:])
                    self.seen[which][kind][rows[:, 0]] = True

    def summary(self) -> SplitSummary:
        """The counts so far, as one summary."""
        tallies = [{kind: tuple(sorted(found[kind].items())) for kind in ATOM_KINDS} for found in self.tallies]
        groups = [{kind: tuple((group, int(a), int(b)) for group, (a, b) in
                               zip(np.flatnonzero(seen[kind]).tolist(), sums[kind][seen[kind]].tolist()))
                   for kind in ATOM_KINDS} for sums, seen in zip(self.groups, self.seen)]
        return SplitSummary(self.spec, self.chunks, self.span_chars, dict(self.survival[0]), dict(self.survival[1]),
                            self.oversized, *tallies, *groups)


#: A configuration's counts per group of documents (by format or language): group -> (documents,
#: spec -> summary).
Grouped = dict[str, tuple[int, dict[str, SplitSummary]]]


def grouped_total(parts: Iterable[Grouped]) -> Grouped:
    """The groups' counts over a corpus from those of its runs of documents, measured apart."""
    documents: dict[str, int] = {}
    found: dict[str, dict[str, RunningSummary]] = {}
    for part in parts:
        for group, (count, summaries) in part.items():
            documents[group] = documents.get(group, 0) + count
            for spec, summary in summaries.items():
                found.setdefault(group, {}).setdefault(spec, RunningSummary(summary.spec)).add(summary)
    return {group: (documents[group], {spec: running.summary() for spec, running in found[group].items()})
            for group in documents}


@dataclass(slots=True)
class CorpusFacts:
    """What a report says of a corpus, counted document by document (``add``): documents,
    characters, documents per language, and every atom's length per kind."""

    documents: int = 0
    characters: int = 0
    languages: dict[str, int] = field(default_factory=dict)
    lengths: dict[str, array] = field(default_factory=lambda: {kind: array("q") for kind in ATOM_KINDS})

    def add(self, characters: int, language: str, lengths: dict[str, Iterable[int]]) -> None:
        """Count one document: its length, language and its atoms' lengths by kind."""
        self.documents += 1
        self.characters += characters
        self.languages[language] = self.languages.get(language, 0) + 1
        for kind in ATOM_KINDS:
            self.lengths[kind].extend(lengths.get(kind, ()))

    @staticmethod
    def lengths_of(atoms: dict[str, Iterable[Span]]) -> dict[str, list[int]]:
        """Atoms' lengths by kind, from their spans."""
        return {kind: [b - a for a, b in spans] for kind, spans in atoms.items()}

    def language_counts(self) -> dict[str, int]:
        """Documents per language, the most written first."""
        return most_first(self.languages)

    def as_dict(self) -> dict:
        """The report's ``corpus`` section: atom counts and length percentiles (p50, p90, p99, max)."""
        lengths = {}
        for kind in ATOM_KINDS:
            sizes = self.lengths[kind]
            p50, p90, p99 = percentiles(sizes, (50, 90, 99))
            lengths[kind] = {"p50": p50, "p90": p90, "p99": p99, "max": max(sizes) if sizes else 0}
        return {"documents": self.documents, "characters": self.characters, "languages": self.language_counts(),
                "atoms": {kind: len(self.lengths[kind]) for kind in ATOM_KINDS}, "atom_lengths": lengths}


class SpanLists(Sequence):
    """A list of spans per document, appended in corpus order and kept in flat integer arrays:
    what an engine that does not hold the corpus keeps of every document's query candidates (a
    span as a Python tuple costs about 100 bytes, here 16). ``spans[doc]`` is a document's list."""

    def __init__(self) -> None:
        self.starts, self.ends, self.firsts = array("q"), array("q"), array("q", [0])

    def append(self, spans: Iterable[Span]) -> None:
        for start, end in spans:
            self.starts.append(start)
            self.ends.append(end)
        self.firsts.append(len(self.starts))

    def __len__(self) -> int:
        return len(self.firsts) - 1

    def __getitem__(self, doc: int) -> list[Span]:
        a, b = self.firsts[doc], self.firsts[doc + 1]
        return list(zip(self.starts[a:b], self.ends[a:b]))


def most_first(counts: dict[str, int]) -> dict[str, int]:
    """Counts by name, the largest first (ties by name)."""
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
