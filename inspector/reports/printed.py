"""The report as text: the article's tables with its columns, widths and rounding, and outside
seed mode each rate's 95% interval on the line below and each table's verdict."""

from __future__ import annotations

from ..errors import SpecError
from ..model import ATOM_KINDS
from ..spec import parse_spec
from .decide import bounds_line, bounds_text, decision_lines, percent_cell
from .formats_table import format_formats, format_languages

SWEEP_KINDS: tuple[str, ...] = ("code", "table", "num")


def _count_word(n: int) -> str:
    words = "no one two three four five six seven eight nine ten".split()
    return words[n] if n < len(words) else "several"


def _marked(decision: dict | None, label: str) -> bool:
    """Whether ``label`` is a table's clear best row."""
    return bool(decision and decision["clear"] and decision["best"] == label)


def cost_lines(costs: dict) -> list[str]:
    """The cost block under table a: per splitter, seconds to split and what is embedded and asked
    (texts and o200k tokens), and the dollars ("?" where a paid part has no price)."""
    lines = ["", "   index-time cost (tokens in o200k; the splitter's own embeddings are local, so free)",
             f"{'':24s}{'splitter embeds':>22s}{'chunks embedded':>22s}{'LLM prompts':>22s}",
             f"{'splitter':16s}{'split s':>8s}" + f"{'texts':>10s}{'tokens':>12s}" * 3 + f"{'dollars':>9s}"]
    for spec, cost in costs.items():
        dollars = "?" if cost["dollars"] is None else f"{cost['dollars']:.2f}"
        try:
            label = parse_spec(spec).label
        except SpecError:
            label = spec
        lines.append(f"{label:16s}{cost['seconds']:8.2f}"
                     f"{cost['chunker_texts']:>10,d}{cost['chunker_tokens']:>12,d}"
                     f"{cost['embedded_texts']:>10,d}{cost['embedded_tokens']:>12,d}"
                     f"{cost['llm_calls']:>10,d}{cost['llm_input_tokens'] + cost['llm_output_tokens']:>12,d}"
                     f"{dollars:>9s}")
    return lines


#: How ``format_report`` may lay golden sets out.
LAYOUTS = ("article", "chroma")


def format_report(report: dict, intervals: bool | None = None, layout: str = "article") -> str:
    """The tables as the article prints them (same columns, widths and rounding); with
    ``intervals`` (the default except in seed mode, whose tables stay the article's) every rate
    gets its 95% interval on the line below and each table its verdict. ``layout="chroma"``
    prints each golden set as Chroma's evaluation does (``field_table``)."""
    if intervals is None:
        intervals = report["mode"] != "seed"
    corpus = report["corpus"]
    atoms = corpus["atoms"]
    lines = [
        f"corpus   {corpus['documents']} documents, {corpus['characters']:,} characters"
        f" ({report['mode']} atoms)",
        # The article prints no such line: seed mode's report stays its, number for number.
        *(["         languages: " + ", ".join(f"{name} {count}" for name, count in corpus["languages"].items())]
          if report["mode"] != "seed" else []),
        f"atoms    {atoms['code']} code blocks, {atoms['table']} tables, {atoms['row']} rows, "
        f"{atoms['num']} figure sentences, {atoms['cite']} citing sentences",
        "",
        "atom length in characters      p50      p90      p99      max",
    ]
    for kind, label in (("code", "code block"), ("table", "table"), ("row", "table row"),
                        ("num", "figure sentence")):
        s = corpus["atom_lengths"][kind]
        lines.append(f"  {label:16s}{s['p50']:10.0f}{s['p90']:9.0f}{s['p99']:9.0f}{s['max']:9d}")
    fits = report.get("fits")
    limit = (f"{fits}-character budget, atoms of {fits} characters or less" if fits
             else "atoms no larger than each splitter's budget")
    cell = 12 if intervals else 7
    lines += ["", f"a. splitter comparison, {limit}"
              + (", 95% intervals below (documents resampled)" if intervals else ""),
              f"{'splitter':16s}{'chunks':>7s}{'mean':>6s}" + "".join(f"{k:>{cell}s}" for k in ATOM_KINDS)
              + f"{'dup':>6s}"]
    for row in report["compare"]:
        lines.append(f"{row['splitter']:16s}{row['chunks']:7d}{row['mean']:6.0f}"
                     + "".join(percent_cell(row["survival"][k], cell) for k in ATOM_KINDS)
                     + f"{row['duplication']:6.2f}"
                     + ("  best" if intervals and _marked(report.get("survival_decision"), row["splitter"].strip())
                        else ""))
        if intervals and "intervals" in row:
            lines.append(bounds_line([(cell, row["intervals"]["survival"][k]) for k in ATOM_KINDS], 29))
    if intervals:
        lines += decision_lines(report.get("survival_decision"))
    if "cost" in report:
        lines += cost_lines(report["cost"])
    ranked = "" if report.get("retriever", "bm25") == "bm25" else f", ranked by {report['retriever']}"
    # The article's recipe; beyond it, a sentence of Chinese, Japanese or Korean gives bigrams.
    words = "three longest words" if report["mode"] == "seed" else "three longest words (or rarest bigrams)"
    lines += ["", f"b. {report['queries']} lexical queries, {words} of a figure sentence{ranked}",
              f"{'splitter':16s}{'answer@5':>9s}{'':>{12 * intervals}s}{'cut':>7s}{'':>{12 * intervals}s}"
              f"{'ctx chars':>10s}{'ctx tokens':>11s}"]
    for row in report["compare"]:
        for label, probe in ((row["splitter"], row), *((f"  ±{e['expand']} read", e) for e in row.get("expanded", ()))):
            rates = (f"{percent_cell(probe['answer_at_5'], 9)}{percent_cell(probe['cut'], 7)}" if not intervals else
                     f"{percent_cell(probe['answer_at_5'], 9)}{bounds_text(probe['intervals']['answer_at_5']):>12s}"
                     f"{percent_cell(probe['cut'], 7)}{bounds_text(probe['intervals']['cut']):>12s}")
            best = intervals and _marked(report.get("decision"), label.strip() if probe is row else
                                         f"{row['splitter'].strip()} {label.strip()}")
            lines.append(f"{label:16s}{rates}{probe['ctx_chars']:10.0f}{round(probe['ctx_tokens']):11d}"
                         + ("  best" if best else ""))
    if intervals:
        lines += decision_lines(report.get("decision"))
    cut = report.get("cut_at_cap")
    if cut and any(over for over, _ in cut["chunks"].values()):
        lines.append(f"   {cut['model']} reads at most {cut['cap']} tokens of a text; chunks it cut: "
                     + ", ".join(f"{spec} {over}/{total}" for spec, (over, total) in cut["chunks"].items()))
    sweep_kind, swept = report["sweep_spec"].split(":")[0], len(report["sweep"])
    lines += ["", f"c. {sweep_kind} splitter, {_count_word(swept)} budget{'s' * (swept != 1)}, every atom counted",
              f"{'budget':>7s}{'chunks':>7s}{'mean':>6s}" + "".join(f"{k:>{cell}s}" for k in SWEEP_KINDS)
              + f"{'ctx tokens':>11s}"]
    for row in report["sweep"]:
        lines.append(f"{row['budget']:7d}{row['chunks']:7d}{row['mean']:6.0f}"
                     + "".join(percent_cell(row["survival"][k], cell) for k in SWEEP_KINDS)
                     + f"{round(row['ctx_tokens']):11d}")
        if intervals and "intervals" in row:
            lines.append(bounds_line([(cell, row["intervals"]["survival"][k]) for k in SWEEP_KINDS], 20))
    h = report["headers"]
    tot = h["rows"]
    lines += ["", f"d. rows in a chunk that also holds their header row: {h['rows_with_header']}/{tot} = "
              f"{percent_cell(h['rows_with_header'] / tot if tot else None, 0).strip()}",
              f"   rows in a chunk that begins mid-table: {h['rows_mid_table']}/{tot} = "
              f"{percent_cell(h['rows_mid_table'] / tot if tot else None, 0).strip()}"
              f" across {h['mid_table_chunks']} chunks, none carrying a header"]
    if "golden" in report or "questions" in report:
        from .golden_table import format_golden, format_questions
    for section in report.get("golden", ()):
        if layout == "chroma":
            from .field_table import format_field

            lines += ["", *format_field(section)]
        else:
            lines += ["", *format_golden(section, intervals)]
    if "questions" in report:
        lines += ["", *format_questions(report["questions"], intervals)]
    if "by_format" in report:
        lines += ["", *format_formats(report["by_format"], intervals)]
    if "by_language" in report:
        lines += ["", *format_languages(report["by_language"], intervals)]
    if "fixes" in report:
        from .fixes_table import format_fixes

        lines += ["", *format_fixes(report["fixes"], intervals)]
    return "\n".join(lines) + "\n"
