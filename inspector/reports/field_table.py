"""The field's table: a golden section laid out as Chroma's chunking evaluation prints its results
(chunker, size, overlap, then span recall, precision, precision-Ω and IoU of the top five chunks),
for the configurations its debate compares.

Chroma prints each mean with its standard deviation over questions; here each mean has its 95%
interval (a bootstrap over the questions), which says how far the mean itself may be off.
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
        rows.append({"chunker": spec.kind + spec.options.flags(), "size": spec.budget,
                     "unit": "tokens" if spec.in_tokens else "characters", "overlap": spec.overlap,
                     "recall": scores["recall"], "precision": scores["precision"],
                     "precision_omega": row["precision_omega"], "iou": scores["iou"],
                     "intervals": scores["intervals"]})
    return rows


def format_field(section: dict) -> list[str]:
    """The field's table as text, every figure a percentage with its interval below."""
    lines = [f"{section['name']}: {section['questions']} questions, the {CUT} chunks ranked by {section['retriever']}",
             f"{'chunker':14s}{'size':>6s}{'overlap':>8s}{'recall':>13s}{'precision':>13s}{'precision-Ω':>13s}"
             f"{'IoU':>13s}"]
    for row in field_rows(section):
        lines.append(f"{row['chunker']:14s}{row['size']:6d}{row['overlap']:8d}{100 * row['recall']:13.1f}"
                     f"{100 * row['precision']:13.2f}{100 * row['precision_omega']:13.2f}{100 * row['iou']:13.2f}")
        bounds = row["intervals"]
        lines.append(f"{'':28s}{_bounds(bounds['recall'], 1):>13s}{_bounds(bounds['precision'], 2):>13s}"
                     f"{'':13s}{_bounds(bounds['iou'], 2):>13s}")
    return lines


def _bounds(pair, places: int) -> str:
    low, high = pair
    return f"[{100 * low:.{places}f},{100 * high:.{places}f}]"
