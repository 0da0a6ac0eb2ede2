"""One run of the CI gate: a chunking measured, judged against its limits and baseline, with the
notes that say how the run was made. The command line reads the options and prints; this does
the rest."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .gate import GateResult, answered_by, check_gate, groups_by, measure
from .gate_notes import baseline_notes, emitted_note, run_notes

if TYPE_CHECKING:
    from ..chunks.importer import ImportResult
    from ..measure.engine import Engine
    from ..retrieval.golden import GoldenResult
    from ..retrieval.golden_files import GoldenSet
    from ..retrieval.ranking import Retriever
    from ..spec import SplitterSpec


@dataclass(frozen=True, slots=True)
class GateLimits:
    """What a run is judged against: floors and ceilings by measure, a baseline, tolerances."""

    floors: dict[str, float] = field(default_factory=dict)
    ceilings: dict[str, float] = field(default_factory=dict)
    baseline: dict | None = None
    tolerance: float = 0.0
    count_tolerance: float = 0.0
    strict: bool = False


@dataclass(frozen=True, slots=True)
class GateChunking:
    """What is judged: ``spec``'s chunks of ``measured`` (the documents an import covers), shown as
    ``label``; for chunks made elsewhere, the import and how many were not placed."""

    measured: Engine
    spec: SplitterSpec
    label: str
    unplaced: int | None = None
    imported: ImportResult | None = None
    store_address: object = ""
    """The store whose own search was asked (its address; empty: none)."""


@dataclass(frozen=True, slots=True)
class GateRun:
    """A judged run: the measures, what answered each probe query, the chunk groups, the verdict and the notes."""

    values: dict
    answered: dict[str, str]
    groups: dict[str, list[list[int]]]
    result: GateResult
    notes: list[str]


def run_gate(chunking: GateChunking, limits: GateLimits, *, fingerprint: str, retriever: Retriever,
             expand: int = 0, budget: int | None = None, unit: str = "chars", golden: GoldenSet | None = None,
             scored: GoldenResult | None = None, searched: Retriever | None = None) -> GateRun:
    """``chunking`` measured (chunks over ``budget`` ``unit`` counted, ``scored``: its golden
    recall), judged against ``limits`` (``ValueError`` when they cannot be applied), with the
    notes of how it was ranked, read, located and compared."""
    measured, spec, imported = chunking.measured, chunking.spec, chunking.imported
    oversized = emitted = None
    if imported is not None and budget is not None:
        from ..lengths import get_length

        oversized, by_span = imported.over_budget(get_length(unit), measured.documents, budget)
        emitted = emitted_note(imported.name, oversized, by_span, budget, unit)
    values = measure(measured, spec, fits=budget, golden=scored, unplaced=chunking.unplaced, retriever=retriever,
                     oversized=oversized, expand=expand)
    answered = answered_by(measured, spec, golden=scored, retriever=retriever, expand=expand)
    groups = groups_by(measured, spec, fits=budget)
    result = check_gate(values, floors=limits.floors, ceilings=limits.ceilings, baseline=limits.baseline,
                        answered=answered, groups=groups, tolerance=limits.tolerance,
                        count_tolerance=limits.count_tolerance, strict=limits.strict)
    notes = run_notes(result.notes, retriever=retriever, expand=expand, golden=golden, scored=scored,
                      searched=searched, store_address=chunking.store_address)
    notes += [emitted] if emitted else []
    notes += baseline_notes(limits.baseline, fingerprint=fingerprint, label=chunking.label,
                            retriever=str(retriever.spec), expand=expand)
    return GateRun(values, answered, groups, result, notes)
