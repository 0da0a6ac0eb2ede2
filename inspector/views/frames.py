"""What the app's pages tabulate, computed without Streamlit: DataFrames and one document's
view. Pages only lay these out; the CLI's numbers and these are the same numbers
(``compare_frame`` is ``build_report``'s table a and b). Their charts are in ``figures``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from ..atoms.analysis import Analysis
from ..corpus.load import Corpus, load_uploads
from ..kinds import offered_kinds
from ..lengths import Length
from ..limits import MAX_DOCUMENT_BYTES, MAX_UPLOAD_BYTES
from ..measure.engine import Engine
from ..measure.sizes import CapReport, SizeStats, cap_report
from ..measure.survival import CutAtom, cut_atoms, survival, uncovered
from ..measure.workspace import Workspace
from ..model import ATOM_KINDS, Document, SplitResult
from ..reports.article import build_report
from ..spec import ARTICLE_SPECS, MAX_BUDGET, SplitterSpec, parse_spec
from ..split.splitters import split_document
from .intervals import bound_columns, bound_values
from .text import first_words

Progress = Callable[[str, int, int], None]

#: Columns of the article's table a (survival) and table b (probe) in ``compare_frame``.
TABLE_A: tuple[str, ...] = ("splitter", "spec", "chunks", "mean chars", *ATOM_KINDS, "duplication", "oversized")
TABLE_B: tuple[str, ...] = ("splitter", "spec", "answer@5", "cut", "rank miss", "ctx chars", "ctx tokens")

def article_specs(budget: int = 800, unit: str = "chars") -> tuple[SplitterSpec, ...]:
    """The article's seven splitters scaled to ``budget`` (at 800 characters: exactly its seven)."""
    out = []
    for spec in ARTICLE_SPECS:
        size = max(1, round(spec.budget * budget / 800))
        overlap = round(spec.overlap * budget / 800)
        out.append(SplitterSpec(spec.kind, size, unit, overlap if overlap < size else 0))
    return tuple(dict.fromkeys(out))


def compare_suggestions(budget: int = 800, unit: str = "chars", adapters: Sequence[str] = ()) -> tuple[str, ...]:
    """Specs worth setting beside the article's seven at ``budget``: every built-in kind at half
    and twice the budget, the structured splitter with its heading path and address stamp, the fixed and
    recursive ones with a 15% overlap, and each installed library's splitter (``adapters``)."""
    half, twice = max(1, budget // 2), min(MAX_BUDGET, budget * 2)
    overlap = budget * 15 // 100
    specs = [SplitterSpec(kind, budget, unit) for kind in offered_kinds()]
    specs += [SplitterSpec("structured", budget, unit, heading_prefix=path, address=address)
              for path, address in ((True, False), (False, True), (True, True))]
    if 0 < overlap < budget:
        specs += [SplitterSpec(kind, budget, unit, overlap) for kind in ("fixed", "recursive")]
    specs += [SplitterSpec(kind, size, unit) for size in (half, twice) for kind in offered_kinds()]
    specs += [SplitterSpec(name, budget, unit) for name in adapters]
    return tuple(dict.fromkeys(str(s) for s in specs))


def compare_frame(workspace: Engine, specs: Iterable[SplitterSpec | str], *, fits: int | None = None,
                  progress: Progress | None = None, retriever=None) -> pd.DataFrame:
    """Tables a and b, one row per splitter (fractions from 0 to 1). Table a counts atoms no
    larger than ``fits`` (in each splitter's unit; None: its own budget), as the CLI does;
    table b is ranked by ``retriever`` (a spec string; default BM25); *over cap* counts the chunks
    its embedder cut at its input cap."""
    specs = [parse_spec(s) for s in specs]
    report = build_report(workspace, specs=specs, fits=fits, budgets=(), progress=progress, retriever=retriever)
    cut = report.get("cut_at_cap", {}).get("chunks", {})
    rows = []
    for row in report["compare"]:
        intervals = row["intervals"]
        rows.append({
            "splitter": row["splitter"], "spec": row["spec"], "chunks": row["chunks"],
            "mean chars": round(row["mean"], 1),
            **{kind: row["survival"][kind] for kind in ATOM_KINDS},
            "duplication": round(row["duplication"], 4), "oversized": row["oversized"],
            "answer@5": row["answer_at_5"], "cut": row["cut"],
            "rank miss": row["rank_miss"] and max(0.0, row["rank_miss"]),
            "ctx chars": round(row["ctx_chars"], 1), "ctx tokens": round(row["ctx_tokens"], 1),
            "queries": report["queries"], "answered": row["answered"],
            "documents": report["corpus"]["documents"],
            "groups": workspace.summarize(row["spec"], fits=fits).buckets,
            "over cap": cut.get(row["spec"], [0])[0],
            **bound_values({kind: intervals["survival"][kind] for kind in ATOM_KINDS}),
            **bound_values({"answer@5": intervals["answer_at_5"], "cut": intervals["cut"]}),
        })
    return pd.DataFrame(rows, columns=list(dict.fromkeys((*TABLE_A, *TABLE_B, "queries", "answered", "documents",
                                                           "groups", "over cap",
                                                           *bound_columns((*ATOM_KINDS, "answer@5", "cut"))))))


def probe_verdict(frame: pd.DataFrame) -> str:
    """Table b's verdict on answer@5 over ``frame``'s rows (the report's sentence; that nothing
    was measured when no query was drawn), or empty without per-query answers."""
    from ..reports.decide import decide, hits_of

    if "queries" in frame and not frame.empty and not frame["queries"].any():
        return ("The probe drew no query from this corpus's figure sentences (10+ words with a number): "
                "table b measures nothing here.")
    if "answered" not in frame or frame["answered"].isna().any():
        return ""
    decision = decide("answer@5", [(label, hits_of(answered))
                                   for label, answered in zip(frame["splitter"], frame["answered"])], "queries")
    return decision.sentence() if decision else ""


def survival_verdict(frame: pd.DataFrame) -> str:
    """Table a's verdict on atoms kept whole over ``frame``'s rows (the report's sentence), or
    empty without survival per group of documents."""
    from ..reports.decide import decide_grouped

    if "groups" not in frame or frame.empty:
        return ""
    decision = decide_grouped("atoms kept whole", list(zip(frame["splitter"], frame["groups"])),
                              int(frame["documents"].iloc[0]))
    return decision.sentence() if decision else ""


def sweep_frame(workspace: Engine, spec: SplitterSpec | str, budgets: Sequence[int], *,
                progress: Progress | None = None, retriever=None) -> pd.DataFrame:
    """Survival of every atom kind (every atom counted) and probe context, per budget, the
    probe ranked by ``retriever`` (default BM25)."""
    base = parse_spec(spec)
    rows = []
    for done, budget in enumerate(budgets, 1):
        current = base.with_budget(budget)
        summary = workspace.summarize(current)
        probe = workspace.probe(current, retriever=retriever)
        rows.append({
            "budget": budget, "spec": str(current), "chunks": summary.chunks,
            "mean chars": round(summary.span_chars / summary.chunks, 1) if summary.chunks else 0.0,
            **{kind: summary.kept(kind, every=True) for kind in ATOM_KINDS},
            "answer@5": probe.answer_rate, "ctx tokens": round(probe.context_tokens, 1),
            **bound_values({kind: summary.interval(kind, every=True).as_dict() if summary.survival_all[kind][1]
                            else None for kind in ATOM_KINDS}),
        })
        if progress:
            progress(f"budget {budget}", done, len(budgets))
    columns = ["budget", "spec", "chunks", "mean chars", *ATOM_KINDS, "answer@5", "ctx tokens",
               *bound_columns(ATOM_KINDS)]
    return pd.DataFrame(rows, columns=columns)


def sizes_frame(workspace: Workspace, spec: SplitterSpec | str, length: Length) -> pd.DataFrame:
    """Every chunk of the corpus with the size of what is embedded (prefix + span) in ``length``."""
    documents = {d.id: d for d in workspace.documents}
    chunks = workspace.chunks(spec)
    texts = [c.embedded_text(documents[c.doc_id]) for c in chunks]
    return pd.DataFrame({
        "doc": [c.doc_id for c in chunks],
        "chunk": [c.index + 1 for c in chunks],
        "tokens": length.count_many(texts),
        "chars": [len(t) for t in texts],
        "first words": [first_words(t) for t in texts],
    }, columns=["doc", "chunk", "tokens", "chars", "first words"])


def document_parts(documents: Sequence[Document], parts: int = 8, least: int = 64_000) -> list[tuple[int, int]]:
    """``(first, stop)`` positions cutting ``documents`` into at most ``parts`` runs of about
    equal text, none under ``least`` characters but the last: what a page measures one at a time
    to show what it has so far."""
    total = sum(len(d.text) for d in documents)
    size = max(least, -(-total // max(1, parts)))
    out, first, held = [], 0, 0
    for position, document in enumerate(documents):
        held += len(document.text)
        if held >= size:
            out.append((first, position + 1))
            first, held = position + 1, 0
    if first < len(documents) or not out:
        out.append((first, len(documents)))
    return out


@dataclass(frozen=True, slots=True)
class SizeSummary:
    """Chunk sizes against an embedder's cap."""

    stats: SizeStats
    """Distribution of the sizes."""

    cap: CapReport
    """Runts and over-cap chunks."""

    over_cap: pd.DataFrame
    """The rows of the sizes frame an embedder would truncate, largest first."""


def size_summary(sizes: pd.DataFrame, cap: int, *, overhead: int = 0, runt_tokens: int = 32) -> SizeSummary:
    """p50/p99, runt ratio and over-cap chunks (``overhead``: special tokens the embedder adds)."""
    tokens = [int(t) for t in sizes["tokens"]]
    report = cap_report(tokens, cap, runt_tokens=runt_tokens, overhead=overhead)
    over = sizes.iloc[list(report.over_cap)].sort_values("tokens", ascending=False, kind="stable")
    return SizeSummary(SizeStats.of(tokens), report, over.reset_index(drop=True))


@dataclass(frozen=True, slots=True)
class DocView:
    """One document split one way, with everything the Document page draws."""

    result: SplitResult
    """The chunks and which are oversized."""

    analysis: Analysis
    """The document's atoms."""

    sizes: tuple[int, ...]
    """Each chunk's embedded size in the splitter's unit."""

    cuts: tuple[CutAtom, ...]
    """Atoms no chunk holds whole (the red ones)."""

    survival: dict[str, tuple[int, int]]
    """``kind -> (intact, counted)`` over this document's atoms."""

    duplication: float
    """Characters inside chunk spans over the document's length (1.0: nothing repeated)."""

    uncovered: int = 0
    """Characters of text (whitespace not counted) that no chunk holds: what a pipeline lost."""


def doc_view(workspace: Workspace, document: Document, spec: SplitterSpec | str, length: Length) -> DocView:
    """Split one document (sharing the workspace's atoms) and measure it. Imported chunks
    (``imported:ID``) come from the workspace's chunk sets (``ChunkSetError`` if it has none)."""
    spec = parse_spec(spec)
    analysis = workspace.analysis(document)
    if spec.is_imported:
        index = next(i for i, d in enumerate(workspace.documents) if d.id == document.id)
        result = workspace.split(spec)[index]
    else:
        result = split_document(document, spec, analysis, length, answers=workspace.cut_answers(spec))
    spans = result.spans
    sizes = tuple(length.count_many([c.embedded_text(document) for c in result.chunks]))
    covered = sum(b - a for a, b in spans)
    return DocView(result, analysis, sizes, tuple(cut_atoms(analysis.atoms, spans)),
                   survival(analysis.atoms, spans), covered / len(document.text) if document.text else 0.0,
                   uncovered(document.text, spans))



def uploads_corpus(items: Sequence[tuple[str, bytes]], *, mode: str, max_file_bytes: int = MAX_DOCUMENT_BYTES,
                   max_total_bytes: int = MAX_UPLOAD_BYTES, conversions=None,
                   keep_front_matter: bool = False) -> tuple[Corpus | None, str | None]:
    """Uploaded (name, bytes) as a corpus, or ``(None, reason)`` when together they are too big.
    Each file is checked here too: the browser's size limit can be bypassed."""
    total = sum(len(data) for _, data in items)
    if total > max_total_bytes:
        return None, (f"the uploads add up to {total / 1e6:.1f} MB, over the "
                      f"{max_total_bytes / 1e6:.0f} MB limit; upload fewer files")
    return load_uploads(items, mode=mode, max_bytes=max_file_bytes, conversions=conversions,
                        keep_front_matter=keep_front_matter), None
