"""A tune result as text: the ranked table with intervals and costs, the verdict, what was
left out, and the recommendation."""

from __future__ import annotations

from ..reports.decide import bounds_text, decision_lines
from .result import Candidate, TuneResult


def format_tune(result: TuneResult, *, documents: int) -> list[str]:
    """The result's lines (the command adds the snippets)."""
    asked = (f"{result.questions} questions of {', '.join(result.sources)}" if result.sources else
             f"the probe's {result.questions} queries")
    ranked = result.ranked
    yours = bool(result.asked)
    lines = [f"tune: {len(result.candidates)} configurations on {documents} documents; objective "
             f"{result.objective} over {asked}, context budget {result.context:,} tokens",
             f"{'':4s}{'splitter':26s}{result.objective:>10s}{'':13s}"
             + (f"{'whole@5':>9s}{'':13s}" if yours else "")
             + f"{'chunks':>8s}{'embedded':>11s}{'dup':>6s}{'over cap':>9s}"]
    clear = bool(result.decision and result.decision.clear)
    marks = {label: "best" if clear else "tied" for label in result.winners}
    for position, candidate in enumerate(ranked, 1):
        lines.append(_row(f"{position:3d} ", candidate, marks, yours))
    sampled = [c for c in result.candidates if c.sampled]
    if sampled:
        lines += ["", f"scored on a sample of {result.sample} questions only (below the best third there):"]
        lines += [_row("    ", c, {}, yours) for c in sampled]
    lines += decision_lines(result.decision.as_dict() if result.decision else None)
    excluded = [c for c in result.candidates if c.excluded]
    if excluded:
        lines += ["", "left out:"] + [f"    {c.label:26s}{c.excluded}" for c in excluded]
    lines.append(f"   embedded counts {result.unit} tokens embedded to build the index (the chunks, and what a "
                 f"semantic or cluster chunker embeds to cut); * marks the Pareto front of {result.objective} "
                 "against them")
    if result.embedding is not None:
        lines.append("   " + embedding_line(result))
    if yours:
        lines.append(f"   whole@5: questions of {result.asked} whose five chunks hold no atom cut in two "
                     "(not a measure of answers: those questions have no evidence)")
    if not clear:
        lines.append("   tied: within noise of the best")
    if result.recommended is not None:
        best = ranked[0]
        if clear:
            why = "the best beyond noise"
        elif result.recommended == best.spec:
            why = f"the best; none of the {len(result.winners) - 1} rows tied with it embeds a tenth fewer tokens"
        else:
            why = f"tied with the best, {best.label}, and embeds a tenth fewer tokens or less"
        lines += ["", f"recommended: {result.recommended} ({why})"]
    else:
        lines += ["", "recommended: none (no configuration could be scored)"]
    return lines


def embedding_line(result: TuneResult) -> str:
    """How many chunk texts the candidates' indexes share (vectors are kept by text)."""
    share = result.embedding
    return (f"vectors: the {share.indexes} indexes hold {share.texts:,} chunk texts, {share.distinct:,} of them "
            f"different; each is embedded once and kept by its text, so {share.shared:,} were shared "
            "between configurations")


def _row(lead: str, c: Candidate, marks: dict[str, str], yours: bool = False) -> str:
    score = f"{c.score.value:10.1%}{bounds_text(c.score.as_dict()):>13s}" if c.score else f"{'':23s}"
    if yours:
        score += f"{c.whole.value:9.1%}{bounds_text(c.whole.as_dict()):>13s}" if c.whole else f"{'':22s}"
    mark = ("*" if c.front else " ") + (f" {marks[c.label]}" if c.label in marks else "")
    return (f"{lead}{c.label[:25]:26s}{score}{c.chunks:8,d}{c.embedded:11,d}{c.duplication:6.2f}"
            f"{c.over_cap:9,d} {mark}").rstrip()
