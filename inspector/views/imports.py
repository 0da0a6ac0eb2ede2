"""Uploads in, plain rows out: what the Import page shows, computed without Streamlit.

Kept apart from ``inspector.chunks.importer`` and ``inspector.retrieval.golden`` (which read,
place and measure) so those stay about formats and spans; this module only adapts their
results for display.
"""

from __future__ import annotations

import json

from ..chunks.export import export_text
from ..chunks.importer import ImportResult, import_chunks
from ..chunks.sets import chunk_set_from_import
from ..confidence import rate
from ..errors import ImportChunksError
from ..limits import MAX_CHUNK_FILE_BYTES, MAX_GOLDEN_BYTES
from ..measure.sizes import SizeStats
from ..measure.survival import uncovered
from ..retrieval.golden_files import GoldenSet, load_golden
from ..spec import SplitterSpec, parse_spec


def import_upload(name: str, data: bytes, workspace, *, default_doc: str | None = None,
                  max_bytes: int = MAX_CHUNK_FILE_BYTES,
                  raw_offsets: bool = False) -> tuple[ImportResult | None, str | None]:
    """An uploaded chunk file placed on ``workspace``'s documents, or ``(None, reason)`` when the
    file as a whole is unusable (too big, not UTF-8, no record at all). Bad records never refuse
    the file: they are the result's problems. ``raw_offsets``: offsets count in the raw files."""
    if len(data) > max_bytes:
        return None, (f"{name} is {len(data) / 1e6:.1f} MB; chunk files over {max_bytes / 1e6:.0f} MB are "
                      "refused here (import one folder's chunks at a time)")
    try:
        result = import_chunks(bytes(data), workspace, name=name, default_doc=default_doc, workspace=workspace,
                               raw_offsets=raw_offsets)
    except ImportChunksError as exc:
        return None, str(exc)
    if result.records == 0:
        return None, (f"{name} holds no chunk records: expected JSON Lines (one object per line), a JSON "
                      "list of objects, or a CSV file with a header row and one chunk per row")
    return result, None


def sample_export(workspace, spec: SplitterSpec | str = "structured:800", *, damaged: bool = False) -> bytes:
    """Our own JSONL export of ``workspace`` under ``spec``, to try the import with. ``damaged``
    breaks a few records the ways real files break (see ``damage_export``)."""
    text = export_text(workspace, spec)
    return (damage_export(text) if damaged else text).encode("utf-8")


def damage_export(text: str) -> str:
    """A JSONL export with records 2-10 broken on purpose, one kind of trouble each, for a
    demonstration of the import's report: line 2 truncated (malformed), line 4 names a missing
    document (unknown-document, leaving a gap), line 6 has offsets 3 characters off (realigned
    by its text), line 8 lost its offsets and its whitespace (placed whitespace-normalised) and
    line 10 repeats line 9 (duplicate, leaving line 10's text uncovered). Files of fewer than
    10 records get the damage that fits."""
    lines = text.splitlines()
    if len(lines) >= 2:
        lines[1] = lines[1][:len(lines[1]) // 2]
    for number, change in ((4, _missing_document), (6, _shifted_offsets), (8, _squashed_whitespace)):
        if len(lines) >= number:
            record = json.loads(lines[number - 1])
            change(record)
            lines[number - 1] = json.dumps(record, ensure_ascii=False)
    if len(lines) >= 10:
        lines[9] = lines[8]
    return "\n".join(lines) + "\n"


def _missing_document(record: dict) -> None:
    record["doc_id"] = "not-in-this-corpus.md"


def _shifted_offsets(record: dict) -> None:
    record["start"] += 3
    record["end"] += 3


def _squashed_whitespace(record: dict) -> None:
    record.pop("start", None)
    record.pop("end", None)
    record["text"] = " ".join(record["text"].split())


def problem_rows(problems) -> list[dict]:
    """``ImportProblem``s as table rows (line, chunk id, kind, message)."""
    return [{"line": p.line, "chunk id": p.chunk_id, "kind": p.kind, "message": p.message} for p in problems]


def gap_rows(result: ImportResult, documents, *, blank: bool) -> list[dict]:
    """The uncovered stretches that are (``blank=True``) or are not only whitespace, with their
    first words, in document order."""
    texts = {d.id: d.text for d in documents}
    rows = []
    for gap in result.gaps:
        if gap.blank == blank:
            words = texts[gap.doc_id][gap.start:gap.end].split()
            rows.append({"document": gap.doc_id, "start": gap.start, "end": gap.end,
                         "characters": gap.end - gap.start,
                         "text": " ".join(words[:14]) + (" …" if len(words) > 14 else "")})
    return rows


def coverage_rows(result: ImportResult, documents) -> list[dict]:
    """Per document that received chunks: the characters of text (not whitespace) no chunk holds,
    what a pipeline lost, largest loss first."""
    texts = {d.id: d.text for d in documents}
    rows = []
    for doc_id, chunks in result.chunks.items():
        lost = uncovered(texts[doc_id], [(c.start, c.end) for c in chunks])
        if lost:
            rows.append({"document": doc_id, "length": len(texts[doc_id]), "text in no chunk": lost,
                         "share": lost / len(texts[doc_id])})
    return sorted(rows, key=lambda r: (-r["text in no chunk"], r["document"]))


def imported_spec(workspace, result: ImportResult, unit: str = "chars") -> SplitterSpec:
    """The spec (``imported:ID``) naming ``result``'s chunks in ``workspace``, registered there."""
    chunk_set = chunk_set_from_import(result, workspace)
    workspace.add_chunk_set(chunk_set)
    return SplitterSpec.imported(chunk_set.id, unit)


def side_by_side(workspace, result: ImportResult, spec: SplitterSpec | str, *, label: str | None = None,
                 unit: str | None = None, retriever=None) -> list[dict]:
    """The imported chunks next to ``spec``'s chunks of the same documents, measured the same
    way: chunk count, sizes in ``unit`` (default the spec's; prefix included), share of every
    atom kept whole (None: no such atom), duplication and the lexical probe (ranked by
    ``retriever``, default BM25). Only the documents the import covers take part, on both
    sides. ``label`` names the spec's row (default ``str(spec)``)."""
    spec = parse_spec(spec)
    unit = unit or spec.unit
    covered = workspace.subset(result.chunks)
    rows = []
    for name, chunking in ((result.spec, imported_spec(covered, result, unit)), (label or str(spec), spec)):
        summary, probe = covered.summarize(chunking), covered.probe(chunking, retriever=retriever)
        sizes = SizeStats.of(covered.sizes(chunking, unit))
        characters = covered.characters
        rows.append({
            "chunks from": name, "documents": len(covered.documents), "chunks": summary.chunks,
            "mean size": round(sizes.mean, 1), "p50": sizes.p50, "p90": sizes.p90, "max": sizes.max,
            **{kind: summary.kept(kind, every=True) for kind in summary.survival_all},
            "duplication": round(summary.span_chars / characters, 4) if characters else 0.0,
            "answer@5": probe.answer_rate, "cut": probe.cut_rate,
            "rank miss": probe.miss_rate and max(0.0, probe.miss_rate),
            "ctx tokens": round(probe.context_tokens, 1),
        })
    return rows




def golden_upload(name: str, data: bytes, corpus, *,
                  max_bytes: int = MAX_GOLDEN_BYTES) -> tuple[GoldenSet | None, str | None]:
    """An uploaded golden file located in ``corpus``, or ``(None, reason)`` when the file as a
    whole is unusable (too big, not UTF-8, no line at all). Bad lines are the set's problems."""
    if len(data) > max_bytes:
        return None, (f"{name} is {len(data) / 1e6:.1f} MB; golden files over {max_bytes / 1e6:.0f} MB are "
                      "refused here")
    try:
        golden = load_golden(bytes(data), corpus, name=name)
    except ImportChunksError as exc:
        return None, str(exc)
    if not golden.items and not golden.problems:
        return None, (f"{name} holds no questions: expected JSON Lines, one "
                      '{"question": ..., "evidence": ...} object per line')
    return golden, None


def golden_problem_rows(golden: GoldenSet) -> list[dict]:
    """The golden file's problems as table rows (line, kind, message)."""
    return [{"line": p.line, "kind": p.kind, "message": p.message} for p in golden.problems]


def recall_rows(results) -> list[dict]:
    """One row per chunking and budget: recall (every quote needed; with several quotes per
    question, also any quote enough) and every outcome's count."""
    rows = []
    several = any(result.quotes > len(result.questions) for result in results)
    for result in results:
        for budget in result.budgets:
            counts = result.counts(budget)
            row = {"chunks from": result.label, "context budget": budget,
                   "questions": len(result.questions), "recall": result.recall(budget),
                   "recall 95%": result.interval(budget).bounds()}
            if several:
                row["recall (any quote)"] = result.recall(budget, "any")
                row["recall (any quote) 95%"] = result.interval(budget, "any").bounds()
            rows.append({**row, **counts})
    return rows


def span_rows(results) -> list[dict]:
    """One row per chunking and cut of the ranking (top 5, each budget): the span metrics."""
    rows = []
    for result in results:
        for scores in result.span_scores:
            row = {"chunks from": result.label, "retrieved": scores.cut}
            for name, value, bound in zip(("span recall", "span precision", "span IoU"),
                                          (scores.recall, scores.precision, scores.iou), scores.bounds or [None] * 3):
                row[name] = value
                row[f"{name} 95%"] = f"[{100 * bound[0]:.1f}, {100 * bound[1]:.1f}]" if bound else ""
            rows.append({**row, "precision-Ω": result.precision_omega})
    return rows


def folder_rows(results) -> list[dict]:
    """One row per folder and chunking: recall at each budget (None: no question there)."""
    return _group_rows(results, "folder", lambda result: result.by_folder())


def language_rows(results) -> list[dict]:
    """One row per language (of the questions' evidence) and chunking, as ``folder_rows``; none
    when every question's evidence is in one language."""
    results = list(results)
    if not any(result.several_languages for result in results):
        return []
    return _group_rows(results, "language", lambda result: result.by_language())


def _group_rows(results, key: str, groups_of) -> list[dict]:
    results = list(results)
    rows = []
    for result in results:
        for group, per_budget in groups_of(result).items():
            row = {key: group, "chunks from": result.label, "questions": per_budget[result.budgets[0]][1]}
            for budget, (hits, total) in per_budget.items():
                row[f"recall@{budget}"] = hits / total if total else None
                # A folder of four questions says little: its interval says how little.
                row[f"recall@{budget} 95%"] = rate(hits, total).bounds() if total else ""
            rows.append(row)
    rows.sort(key=lambda r: (r[key], [res.label for res in results].index(r["chunks from"])))
    return rows


def miss_rows(results) -> list[dict]:
    """Every question some chunking misses at some budget, with each chunking's outcome per
    budget (the results must come from the same golden set)."""
    results = list(results)
    if not results:
        return []
    rows = []
    for item_results in zip(*(r.questions for r in results)):
        if all(o == "hit" for q in item_results for o in q.outcomes):
            continue
        item = item_results[0].item
        row = {"line": item.line, "folder": item.folder, "question": item.question}
        for result, q in zip(results, item_results):
            for budget, outcome in zip(result.budgets, q.outcomes):
                row[f"{result.label} @{budget}"] = outcome
        rows.append(row)
    return rows
