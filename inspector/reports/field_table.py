"""The field's table: a golden section laid out as Chroma's chunking evaluation prints its results
(chunker, size, overlap, then span recall, precision, precision-Ω and IoU of the top five chunks,
each "mean ± standard deviation over questions"), for the configurations its debate compares.

Its precision-Ω is Chroma's (a chunk that only touches the evidence reaches it); the project's
own, stricter precision-Ω follows in the last column. Below each row, the 95% interval of each
mean (a bootstrap over the questions): the ± of Chroma's tables is how far questions differ,
not how far the mean may be off.
"""

from __future__ import annotations

from ..retrieval.golden import TOP_K
from ..spec import parse_spec

#: The debate's configurations: recursive at 200, 400 and 800 tokens (Chroma's own run of
#: LangChain's splitter at 800 with 400 overlap first), fixed 800-token windows with 400 overlap
#: (OpenAI's file search default), and the semantic and cluster chunkers.
FIELD_SPECS: tuple[str, ...] = ("recursive:800t/400", "recursive:200t", "recursive:400t", "recursive:800t",
                                "fixed:800t/400", "semantic:400t", "cluster:200t", "cluster:400t")
#: The cut of the ranking the table reads (Chroma's runs read a fixed number of chunks).
CUT = f"top {TOP_K}"


def field_rows(section: dict) -> list[dict]:
    """Each row of a golden section (``golden_table.golden_section``) as the field's table has it."""
    rows = []
    for row in section["rows"]:
        spec = parse_spec(row["spec"])
        scores = row["span_scores"][CUT]
        spread = scores.get("std", {})
        omega_spread = row.get("precision_omega_std", {})
        rows.append({"chunker": spec.kind + spec.options.flags(), "size": spec.budget,
                     "unit": "tokens" if spec.in_tokens else "characters", "overlap": spec.overlap,
                     "recall": scores["recall"], "precision": scores["precision"],
                     "precision_omega": row["precision_omega"], "iou": scores["iou"],
                     "precision_omega_chroma": row.get("precision_omega_chroma", 0.0),
                     "std": {**spread, "precision_omega": omega_spread.get("precision_omega", 0.0),
                             "precision_omega_chroma": omega_spread.get("precision_omega_chroma", 0.0)},
                     "intervals": scores["intervals"]})
    return rows


def format_field(section: dict) -> list[str]:
    """The field's table as text, as Chroma prints it: each figure a percentage ± the standard
    deviation over questions, precision-Ω by Chroma's rule then by the project's; each mean's
    95% interval below it."""
    lines = [f"{section['name']}: {section['questions']} questions, the {CUT} chunks ranked by {section['retriever']}",
             f"{'chunker':14s}{'size':>6s}{'overlap':>8s}{'recall':>14s}{'precision':>14s}{'precision-Ω':>14s}"
             f"{'IoU':>14s}{'Ω (strict)':>14s}"]
    for row in field_rows(section):
        std = row["std"]
        cells = [(row["recall"], std.get("recall", 0.0)), (row["precision"], std.get("precision", 0.0)),
                 (row["precision_omega_chroma"], std["precision_omega_chroma"]), (row["iou"], std.get("iou", 0.0)),
                 (row["precision_omega"], std["precision_omega"])]
        lines.append(f"{row['chunker']:14s}{row['size']:6d}{row['overlap']:8d}"
                     + "".join(f"{f'{100 * mean:.1f} ± {100 * spread:.1f}':>14s}" for mean, spread in cells))
        bounds = row["intervals"]
        lines.append(f"{'':28s}{_bounds(bounds['recall'], 1):>14s}{_bounds(bounds['precision'], 1):>14s}"
                     f"{'':14s}{_bounds(bounds['iou'], 1):>14s}")
    lines.append("precision-Ω as Chroma's code computes it (a chunk that only touches the evidence counts); "
                 "Ω (strict): only chunks sharing a character with it. Below each row: the 95% interval of "
                 "each mean.")
    return lines


def _bounds(pair, places: int) -> str:
    low, high = pair
    return f"[{100 * low:.{places}f},{100 * high:.{places}f}]"
