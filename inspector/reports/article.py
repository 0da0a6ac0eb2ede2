"""The article's four tables (splitter comparison, probe, budget sweep, header carry) for any
corpus, as one plain dictionary and as the text the article prints; with golden sets, a fifth
table per set (``golden_table``) scores every compared splitter on it.

Table b and the sweep's context column are ranked by the run's retriever: BM25 unless told
otherwise, so seed mode prints the article's tables; a dense or hybrid retriever embeds every
chunk and query once, before the workers fork, so they inherit the vectors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..measure.cost import IndexCost, Prices, index_cost
from ..measure.engine import Engine
from ..model import ATOM_KINDS
from ..retrieval.ranking import Retriever
from ..spec import ARTICLE_SPECS, SWEEP_BUDGETS, SplitterSpec, parse_spec
from .decide import answered, probe_intervals
from .formats_table import formats_section, languages_section
from .printed import SWEEP_KINDS

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class ReportPlan:
    """What one report measures (the ``report`` command's options as one value)."""

    specs: tuple = ARTICLE_SPECS
    """The splitters compared (tables a and b), specs or their strings."""

    fits: int | None = 800
    """Table a counts only atoms no larger than this (the article's 800 characters, the same for
    every row so rows compare; ``None``: each splitter's own budget)."""

    sweep_spec: SplitterSpec | str = "structured:800"
    budgets: tuple[int, ...] = SWEEP_BUDGETS
    """The sweep's budgets (table c)."""

    header_spec: SplitterSpec | str = "structured:800"
    golden: tuple = ()
    """``GoldenSet`` values, a golden table each, at ``golden_budgets`` (default: the tables')."""

    golden_budgets: tuple[int, ...] | None = None
    questions: object = None
    """A ``QuestionSet``: the table of the user's own questions."""

    by_format: bool = False
    by_language: bool = False
    expand: tuple[int, ...] = ()
    """Each width adds, to table b and the golden tables, every splitter again with each retrieved
    chunk read with that many neighbours either side (retrieve small, read big)."""

    fixes: SplitterSpec | str | None = None
    """A splitter: the fixes table (``fixes_table``) from it, the context step measured with
    ``context_model``'s lines, neighbours read at the first width of ``expand`` (1)."""

    context_model: str = ""

    cost: bool = False
    """Add each compared splitter's index-time cost (``measure.cost``) as the ``cost`` block."""

    prices: Prices = Prices()
    """The prices the cost block's dollars are counted at."""


def build_report(workspace: Engine, plan: ReportPlan | None = None, *, progress: Progress | None = None,
                 jobs: int = 1, workers=None, retriever=None, **settings) -> dict:
    """Everything the ``report`` command prints, as JSON-ready data (fractions from 0 to 1):
    what ``plan`` asks (or a plan of ``settings``, ``ReportPlan``'s fields).

    With ``jobs`` > 1 the configurations are measured in that many forked worker processes
    (Linux), which share the workspace's atoms and term index instead of recomputing them;
    ``workers`` are analysis workers already started on the workspace's documents (see
    ``Workspace.analyses``). ``retriever`` (a retriever or its spec; default BM25) ranks table b
    and the golden and questions tables.
    """
    plan = plan or ReportPlan(**{**settings, "golden": _golden_sets(settings.get("golden"))})
    specs, fits, budgets, golden_budgets = plan.specs, plan.fits, plan.budgets, plan.golden_budgets
    questions, expand, fixes = plan.questions, plan.expand, plan.fixes
    sweep_base, header_spec = parse_spec(plan.sweep_spec), parse_spec(plan.header_spec)
    goldens = list(plan.golden)
    if not isinstance(retriever, Retriever):
        retriever = workspace.retriever(retriever)
    tasks: list[Task] = [("compare", parse_spec(spec), fits) for spec in specs]
    tasks += [("sweep", sweep_base.with_budget(b), None) for b in budgets]
    tasks.append(("headers", header_spec, None))
    steps = _Steps(progress, len(tasks) + 1 + len(goldens) + (questions is not None) + (fixes is not None))
    workspace.analyses(jobs=jobs, workers=workers)
    corpus = workspace.corpus_facts().as_dict()
    steps.done("atoms")
    if not retriever.spec.is_default:
        texts = [q.text for q in workspace.queries()] + [item.question for g in goldens for item in g.items]
        texts += questions.texts if questions else []
        workspace.embed_ahead(retriever, [spec for _, spec, _ in tasks[:-1]], texts,
                              (lambda done, total: progress("texts embedded", done, total)) if progress else None)
    measured = [(spec, fits) for table, spec, fits in tasks if table != "headers"]
    workspace.measure_ahead(measured, [spec for spec, _ in measured], [spec for table, spec, _ in tasks
                                                                       if table == "headers"],
                            expand=expand, retriever=retriever)
    rows: list = [None] * len(tasks)
    for position, row in _measure_all(workspace, tasks, jobs, retriever, tuple(expand)):
        rows[position] = row
        table, spec, _ = tasks[position]
        steps.done({"compare": spec.label, "sweep": f"budget {spec.budget}"}.get(table, "headers"))
    tables = {table: [row for (kind, _, _), row in zip(tasks, rows) if kind == table]
              for table in ("compare", "sweep", "headers")}
    survival = survival_decision(tables["compare"], corpus["documents"])
    for row in tables["compare"]:
        del row["survival_all"], row["budget"], row[GROUPS]
    for row in tables["sweep"]:
        row.pop(ANSWERED, None)
        row.pop(GROUPS)
    report = {
        "mode": workspace.mode,
        "corpus": corpus,
        "retriever": str(retriever.spec),
        "queries": len(workspace.queries()),
        "compare": tables["compare"],
        "decision": probe_decision(tables["compare"]),
        "survival_decision": survival,
        "sweep": [_sweep_row(row) for row in tables["sweep"]],
        "sweep_spec": str(sweep_base),
        "headers": tables["headers"][0],
        "header_spec": str(header_spec),
        "fits": fits,
    }
    model, cap = retriever.cap()
    if cap:  # what the embedder cuts is ranked on its start only: said, never silent
        report["cut_at_cap"] = {"model": model, "cap": cap, "chunks": {
            str(spec): [sum(column) for column in zip(*workspace.per_part(
                "count chunks over the embedder's cap", over_cap, str(spec), str(retriever.spec)))]
            for table, spec, _ in tasks if table == "compare"}}
    if plan.cost:
        report["cost"] = {str(spec): IndexCost.total(workspace.per_part(
            "measure the index-time cost", index_cost, str(spec), str(retriever.spec))).as_dict(plan.prices)
            for table, spec, _ in tasks if table == "compare"}
    if goldens or questions is not None:
        # Loaded when asked for: the golden sets' and questions' modules cost more to import than
        # a warm report of the article's tables takes to measure.
        from .golden_table import golden_section, questions_section
    if goldens:
        report["golden"] = []
        for one in goldens:
            report["golden"].append(golden_section(workspace, one, [parse_spec(s) for s in specs], retriever,
                                                   golden_budgets, expand))
            steps.done(f"golden set {one.name}")
    if questions is not None:
        report["questions"] = questions_section(workspace, questions, [parse_spec(s) for s in specs], retriever)
        steps.done("your questions")
    if plan.by_format:
        report["by_format"] = formats_section(workspace, [parse_spec(s) for s in specs])
    if plan.by_language:
        report["by_language"] = languages_section(workspace, [parse_spec(s) for s in specs])
    if fixes is not None:
        from .fixes_table import measure_fixes

        report["fixes"] = measure_fixes(workspace, fixes, golden=goldens[0] if goldens else None, retriever=retriever,
                                      context_model=plan.context_model, expand=expand[0] if expand else 1).to_dict()
        steps.done("the fixes")
    return report


def _golden_sets(golden) -> tuple:
    """``golden`` as a tuple of golden sets (one, several or none given)."""
    return () if golden is None else (golden,) if not isinstance(golden, (list, tuple)) else tuple(golden)


class _Steps:
    """Counts the report's steps for its progress callback."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.count = progress, total, 0

    def done(self, what: str) -> None:
        self.count += 1
        if self.progress:
            self.progress(what, self.count, self.total)


def _sweep_row(row: dict) -> dict:
    """A compare row cut down to what table c prints (every atom counted)."""
    return {"budget": row["budget"], "spec": row["spec"], "chunks": row["chunks"], "mean": row["mean"],
            "survival": {k: row["survival_all"][k] for k in SWEEP_KINDS}, "ctx_tokens": row["ctx_tokens"],
            "intervals": {"survival": row["intervals"]["survival_all"], "ctx_tokens": row["intervals"]["ctx_tokens"]}}


def compare_row(workspace: Engine, spec: SplitterSpec | str, fits: int | None = None,
                retriever: Retriever | str | None = None, expand: tuple[int, ...] = (), survival: str = "fit") -> dict:
    """One configuration's row of tables a and b: chunk counts, survival, duplication, the probe
    (ranked by ``retriever``, default BM25), and the probe again for each neighbour width in
    ``expand``; the intervals of ``survival`` (``fit``: table a's, ``all``: the sweep's)."""
    spec = parse_spec(spec)
    summary = workspace.summarize(spec, fits=fits)
    probe = workspace.probe(spec, retriever=retriever)
    total = workspace.characters
    return {
        "splitter": spec.label,
        "spec": str(spec),
        "budget": spec.budget,
        "chunks": summary.chunks,
        "mean": summary.span_chars / summary.chunks if summary.chunks else 0.0,
        "survival": {k: summary.kept(k) for k in ATOM_KINDS},
        "survival_all": {k: summary.kept(k, every=True) for k in ATOM_KINDS},
        "counts": {k: list(summary.survival_fit[k]) for k in ATOM_KINDS},
        "duplication": summary.span_chars / total if total else 0.0,
        "oversized": summary.oversized,
        GROUPS: summary.buckets,
        "answer_at_5": probe.answer_rate,
        "cut": probe.cut_rate,
        "rank_miss": probe.miss_rate,
        "ctx_chars": probe.context_chars,
        "ctx_tokens": probe.context_tokens,
        "intervals": {
            # Table a's rows count the atoms that fit, the sweep's every atom: each gets its own.
            **({"survival": {k: summary.interval(k).as_dict() if summary.survival_fit[k][1] else None
                             for k in ATOM_KINDS}} if survival == "fit" else
               {"survival_all": {k: summary.interval(k, every=True).as_dict() if summary.survival_all[k][1] else None
                                 for k in SWEEP_KINDS}}),
            **probe_intervals(probe)},
        ANSWERED: answered(probe.hits()),
        **({"expanded": [probe_row(workspace.probe(spec, retriever=retriever, expand=w)) for w in expand]}
           if expand else {}),
    }


ANSWERED = "answered"
"""A row's key for which queries it answers: one character each, ``1`` or ``0``, in the queries'
order (what the table's verdict, and ``check --baseline``, compare query by query)."""


GROUPS = "groups"
"""A row's key, while the report is built, for its survival per group of documents
(``SplitSummary.buckets``: what table a's verdict compares)."""


def survival_decision(rows: list[dict], documents: int) -> dict | None:
    """Table a's verdict: atoms kept whole, every kind together, compared document by document
    (a paired cluster bootstrap over groups of documents)."""
    from .decide import decide_grouped

    decision = decide_grouped("atoms kept whole", [(row["splitter"].strip(), row[GROUPS]) for row in rows], documents)
    return decision.as_dict() if decision else None


def probe_row(probe) -> dict:
    """Table b's columns of one probe."""
    return {"expand": probe.expand, "answer_at_5": probe.answer_rate, "cut": probe.cut_rate,
            "rank_miss": probe.miss_rate, "ctx_chars": probe.context_chars, "ctx_tokens": probe.context_tokens,
            "intervals": probe_intervals(probe), ANSWERED: answered(probe.hits())}


def probe_decision(rows: list[dict]) -> dict | None:
    """Table b's verdict on answer@5 over its rows (each splitter, and each read with its
    neighbours)."""
    from .decide import decide, hits_of

    found = []
    for row in rows:
        found.append((row["splitter"].strip(), hits_of(row[ANSWERED])))
        found += [(f"{row['splitter'].strip()} ±{e['expand']} read", hits_of(e[ANSWERED]))
                  for e in row.get("expanded", ())]
    decision = decide("answer@5", found, "queries")
    return decision.as_dict() if decision else None


Task = tuple[str, SplitterSpec, "int | None"]
#: ``(spec, ((position, table, fits), ...))``: every task of one splitter, measured in one process.
Job = tuple[SplitterSpec, tuple[tuple[int, str, "int | None"], ...]]


def _plan(tasks: list[Task]) -> list[Job]:
    """The tasks as jobs, one per splitter, costliest first so that workers finish together: a
    splitter both compared and swept (the sweep's default, ``structured:800``) is split and
    probed once, and the header count joins the job measuring the same splitter, which then has
    its chunks at hand. The recursive and structured splitters and small budgets (many chunks to
    rank) cost most."""
    jobs: dict[str, tuple[SplitterSpec, list]] = {}
    for i, (table, spec, fits) in enumerate(tasks):
        jobs.setdefault(str(spec), (spec, []))[1].append((i, table, fits))
    plan = [(spec, tuple(sorted(parts, key=lambda part: part[1] == "headers"))) for spec, parts in jobs.values()]
    return sorted(plan, key=lambda job: (job[0].kind not in ("recursive", "structured"), job[0].budget))


def _run_job(workspace: Engine, job: Job, retriever: Retriever, expand: tuple[int, ...]) -> list[tuple[int, dict]]:
    spec, parts = job
    rows = []
    for position, table, fits in parts:
        if table == "headers":
            rows.append((position, workspace.header_carry(spec).as_dict()))
        else:  # the probe is the same for both tables: the workspace ranks it once
            rows.append((position, compare_row(workspace, spec, fits, retriever,
                                               expand if table == "compare" else (),
                                               "fit" if table == "compare" else "all")))
    return rows


def _measure_all(workspace: Engine, tasks: list[Task], jobs: int, retriever: Retriever, expand: tuple[int, ...]):
    """``(position, row)`` for every task, as they are measured: the jobs fanned out by the
    engine (``Engine.fan_out``: the held one forks ``jobs - 1`` workers), else in the report's
    order, for the progress bar."""
    plan = _plan(tasks)
    if jobs <= 1:
        plan.sort(key=lambda job: job[1][0][0])

    def measured(work: Engine, job: Job) -> list[tuple[int, dict]]:
        return _run_job(work, job, retriever, expand)

    for rows in workspace.fan_out(measured, plan, jobs, let_go=lambda work, job: work.release(job[0])):
        yield from rows


def name_rows(report, names: dict[str, str]):
    """The report with the rows of the specs in ``names`` (spec string -> name) named so in every
    table (a store's chunks are "your index", not an id)."""
    if isinstance(report, list):
        return [name_rows(item, names) for item in report]
    if not isinstance(report, dict):
        return report
    out = {key: name_rows(value, names) for key, value in report.items()}
    if out.get("spec") in names and isinstance(out.get("splitter"), str) and not out["splitter"].startswith(" "):
        out["splitter"] = names[out["spec"]]
    return out


def over_cap(part, spec: str, retriever: str) -> tuple[int, int]:
    """How many of ``spec``'s chunks in ``part`` the retriever's embedder cuts at its cap, of how many."""
    texts = part.pool(spec).texts()
    return part.retriever(retriever).over_cap(texts), len(texts)
