"""The tables of the user's own sets: a golden set, and a file of questions without evidence.

Golden (table e), per splitter: recall@B with every quote needed (and with any quote enough,
when some question has several), the misses at the first budget told apart (cut, rank-miss,
uncovered), and the field's span metrics for the top 5 (recall, precision, IoU) with
precision-Ω. Questions (table f), per splitter and for the user's own system when the file says
what it retrieved: the context the top 5 cost and the atom fragments they hand the model.
"""

from __future__ import annotations

from ..measure.asking import ask_theirs, unplaced
from ..retrieval.golden import DEFAULT_BUDGETS, TOP_K, golden_recall
from .decide import bounds_line, bounds_text, decide, decision_lines, hits_of


def golden_section(workspace, golden, specs, retriever, budgets=None, expand: tuple[int, ...] = ()) -> dict:
    """JSON-ready scores of ``golden`` for each of ``specs``, and again for each neighbour
    width in ``expand`` (a row ``±W read`` after the splitter's own)."""
    budgets = tuple(budgets or DEFAULT_BUDGETS)
    workspace.measure_ahead(golden=(golden, specs, budgets, (0, *expand)), retriever=retriever)  # streamed: at once
    rows = [golden_row(workspace, golden, spec, retriever, budgets, f"  ±{width} read" if width else spec.label, width)
            for spec in specs for width in (0, *expand)]
    section = {"name": golden.name, "format": golden.format, "questions": len(golden.items), "quotes": golden.quotes,
               "left_out": golden.left_out(), "retriever": str(retriever.spec), "budgets": list(budgets), "rows": rows}
    return decided(section)


def decided(section: dict) -> dict:
    """The section with its verdict on recall at its first budget over its rows (again, when
    rows were added)."""
    first = str(section["budgets"][0])
    found, base = [], ""
    for row in section["rows"]:
        label = row["splitter"]
        base = base if label.startswith(" ") else label
        found.append((f"{base} {label.strip()}" if label.startswith(" ") else label, hits_of(row["answered"][first])))
    decision = decide(f"recall@{first}", found)
    return {**section, "decision": decision.as_dict() if decision else None}


def golden_row(workspace, golden, spec, retriever, budgets, label: str, expand: int = 0) -> dict:
    """One row of a golden table: ``spec``'s chunks ranked by ``retriever``."""
    result = golden_recall(workspace, golden, spec, budgets=tuple(budgets), retriever=retriever, expand=expand)
    row = result.as_dict()
    del row["label"], row["retriever"], row["misses"]
    row["answered"] = {str(b): "".join(map(str, result.hits(b))) for b in result.budgets}
    return {"splitter": label, "spec": str(spec), **row}


def questions_row(workspace, questions, spec, retriever, label: str) -> dict:
    """One row of the questions table: ``spec``'s chunks ranked by ``retriever``."""
    asked = workspace.ask(spec, questions, retriever=retriever, k=TOP_K)
    return {"splitter": label, "spec": str(spec), **asked.as_dict()}


def format_golden(section: dict, intervals: bool = False) -> list[str]:
    """The golden table's lines; with ``intervals``, each recall's 95% interval on the line
    below and the table's verdict at the first budget."""
    budgets = section["budgets"]
    first = str(budgets[0])
    several = section["quotes"] > section["questions"]
    cell = 13 if intervals else 8
    unit = section["rows"][0]["unit"] if section["rows"] else "o200k"
    lines = [f"e. golden set {section['name']}: {section['questions']} questions, {section['quotes']} quotes"
             + (f", {section['left_out']} lines left out" if section["left_out"] else "")
             + f"; ranked by {section['retriever']}, budgets in {unit} tokens",
             f"{'splitter':16s}" + "".join(f"{'r@' + str(b):>{cell}s}" for b in budgets)
             + (f"{'any@' + first:>9s}" if several else "")
             + f"{'cut':>5s}{'miss':>5s}{'unc':>5s}{'rec@' + str(TOP_K):>7s}{'prec@' + str(TOP_K):>8s}"
               f"{'IoU@' + str(TOP_K):>7s}{'prec-Ω':>8s}"]
    for row in section["rows"]:
        outcomes = row["outcomes"][first]
        top = row["span_scores"][f"top {TOP_K}"]
        lines.append(f"{row['splitter']:16s}" + "".join(f"{row['recall'][str(b)]:{cell}.1%}" for b in budgets)
                     + (f"{row['recall_any'][first]:9.1%}" if several else "")
                     + f"{outcomes['cut']:5d}{outcomes['rank-miss']:5d}{outcomes['uncovered']:5d}"
                     + f"{top['recall']:7.1%}{top['precision']:8.1%}{top['iou']:7.1%}{row['precision_omega']:8.1%}")
        if intervals and "intervals" in row:
            lines.append(bounds_line([(cell, row["intervals"]["recall"][str(b)]) for b in budgets], 16))
    lines.append(f"   cut, miss (rank-miss) and unc (uncovered) count questions missed at {first} tokens")
    if intervals:
        lines += decision_lines(section.get("decision"))
    for row in section["rows"]:
        if row.get("searched"):
            lines.append(f"   {row['splitter'].strip()}: {row['searched']} asked itself, questions embedded by "
                         f"{row['retriever']}")
    lines += _groups(section["rows"], "by_kind", f"   boundary questions by kind, answered within {first} tokens:",
                     first, intervals)
    lines += _groups(section["rows"], "by_language",
                     f"   questions by the language of their evidence, answered within {first} tokens:", first,
                     intervals)
    return lines


def _groups(rows: list[dict], key: str, title: str, first: str, intervals: bool = False) -> list[str]:
    """Answered/asked per group at the first budget, one line per splitter (none without
    groups); with ``intervals``, each count's 95% interval beside it."""
    groups = sorted({group for row in rows for group in row.get(key, {})})
    if not groups:
        return []

    def cell(row: dict, group: str) -> str:
        counts = row.get(key, {}).get(group, {}).get(first)
        if not counts:
            return "-"
        bounds = row.get("intervals", {}).get(key, {}).get(group, {}).get(first) if intervals else None
        return f"{counts[0]}/{counts[1]}" + (f" {bounds_text(bounds)}" if bounds else "")

    cells = [[cell(row, g) for g in groups] for row in rows]
    widths = [max(7, len(g) + 2, *(len(line[i]) + 2 for line in cells)) for i, g in enumerate(groups)]
    lines = [title, f"{'splitter':16s}" + "".join(f"{g:>{w}s}" for g, w in zip(groups, widths))]
    for row, line in zip(rows, cells):
        lines.append(f"{row['splitter']:16s}" + "".join(f"{c:>{w}s}" for c, w in zip(line, widths)))
    return lines


def questions_section(workspace, questions, specs, retriever) -> dict:
    """JSON-ready: the user's questions asked of each of ``specs`` (and of their own system)."""
    rows = [questions_row(workspace, questions, spec, retriever, spec.label) for spec in specs]
    section = {"name": questions.name, "questions": len(questions.items), "left_out": len(questions.problems),
               "retriever": str(retriever.spec), "rows": rows}
    if questions.has_retrieved:
        theirs, placed = ask_theirs(workspace, questions, k=TOP_K)
        section["yours"] = {**theirs.as_dict(), "placement": placed.summary(),
                            "unplaced": len(unplaced(questions, placed))}
    return section


def format_questions(section: dict, intervals: bool = False) -> list[str]:
    """Table f's lines; with ``intervals``, each number's 95% interval on the line below."""
    tokens, part, cell = (13, 13, 13) if intervals else (11, 10, 11)
    lines = [f"f. your questions {section['name']}: {section['questions']} questions"
             + (f", {section['left_out']} lines left out" if section["left_out"] else "")
             + f"; top {TOP_K} ranked by {section['retriever']}",
             f"{'splitter':16s}{'ctx tokens':>{tokens}s}{'fragments':>{part}s}{'served one':>{cell}s}"]
    rows = list(section["rows"])
    if "yours" in section:
        rows.append({"splitter": "your system", **section["yours"]})
    for row in rows:
        lines.append(f"{row['splitter']:16s}{round(row['ctx_tokens']):{tokens}d}{row['fragments']:{part}.1%}"
                     f"{row['served_fragment']:{cell}.1%}")
        if intervals and "intervals" in row:
            bounds = row["intervals"]
            mean = "[{low:.0f},{high:.0f}]".format(**bounds["ctx_tokens"])
            lines.append(f"{'':16s}{mean:>{tokens}s}"
                         + bounds_line([(part, bounds["fragments"]), (cell, bounds["served_fragment"])], 0))
    lines.append("   fragments: retrieved chunks holding part, not all, of an atom; served one: questions "
                 "given at least one")
    if "yours" in section:
        lines.append(f"   your system's chunks: {section['yours']['placement']}")
    return lines
