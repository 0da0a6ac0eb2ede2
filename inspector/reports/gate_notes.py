"""What a ``check`` run says beside its verdicts: how it ranked and read, the golden set it
located, the store it asked, and where its baseline was written for something else."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def golden_note(golden, scored) -> str:
    """How many questions were located, and how the misses at each budget divide."""
    located = f"golden set {golden.name}: {len(golden.items)} questions located ({golden.quotes} quotes)"
    if golden.left_out():
        located += f", {golden.left_out()} lines left out"
    parts = []
    for budget in scored.budgets:
        counts = scored.counts(budget)
        parts.append(f"at {budget}: {counts['hit']} hit, {counts['cut']} cut, {counts['rank-miss']} rank-miss, "
                     f"{counts['uncovered']} uncovered")
    return located + "; " + "; ".join(parts)


def emitted_note(name: str, oversized: int, by_span: int, budget: int, unit: str) -> str | None:
    """When an imported set's emitted text and its spans disagree on what is over budget: which counts."""
    if by_span == oversized:
        return None
    return (f"oversized is judged on the text {name} emitted: {oversized} chunks over {budget} {unit} ({by_span} "
            "by their span in the document, which holds whitespace the tool dropped)")


def baseline_notes(baseline: Mapping | None, *, fingerprint: str, label: str, retriever: str,
                   expand: int) -> list[str]:
    """Each way the baseline was written for another run than this one."""
    if baseline is None:
        return []
    notes = []
    if baseline.get("corpus", {}).get("fingerprint") not in (None, fingerprint):
        notes.append("the baseline was written for a different corpus")
    if baseline.get("spec") not in (None, label):
        notes.append(f"the baseline was written for {baseline.get('spec')}, this run is {label}")
    if baseline.get("retriever", "bm25") != retriever:
        notes.append(f"the baseline was ranked by {baseline.get('retriever', 'bm25')}, this run by {retriever}")
    if baseline.get("expand", 0) != expand:
        notes.append(f"the baseline read ±{baseline.get('expand', 0)} neighbours, this run ±{expand}")
    return notes


def run_notes(gate: Sequence[str], *, retriever, expand: int, golden=None, scored=None, searched=None,
              store_address: str = "") -> list[str]:
    """The gate's own notes, then how this run ranked (``retriever``, a retriever whose ``spec``
    says it), read (``expand`` neighbours), located its golden set and asked a store."""
    notes = list(gate)
    if not retriever.spec.is_default:
        notes.append(f"answer@5, cut and recall are ranked by {retriever.spec}")
    if expand:
        notes.append(f"answer@5, cut and recall read each retrieved chunk with {expand} neighbour"
                     f"{'s' * (expand != 1)} either side")
    if scored is not None:
        notes.append(golden_note(golden, scored))
    if searched is not None:
        notes.append(f"recall asks {store_address} itself, questions embedded by {searched.spec}"
                     + (f"; {searched.unplaced:,} chunks it answered were not placed on the corpus"
                        if searched.unplaced else ""))
        notes += searched.notes
    return notes
