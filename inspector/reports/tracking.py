"""Runs logged to MLflow: one run per splitter configuration, so configurations compare in its UI.

A run's params are the spec's parts (and the retriever, the atom mode, the corpus fingerprint);
its metrics the chunk count, survival per atom kind, p50 / p99 chunk tokens, the runt ratio and
the chunks over the embedder's cap, answer@5 and the cut rate, golden recall at 2,000 and 4,000
tokens; the JSON report (or the gate's result) is its artifact. MLflow is an optional extra:
``mlflow-skinny`` with SQLAlchemy, Alembic and psycopg for the SQL stores MLflow 3 recommends
(``sqlite:///runs.db``, ``postgresql://...``); a tracking server (``http://...``) needs nothing
more. MLflow 3 keeps its file store (``./mlruns``, the default here) in maintenance mode and
refuses it unless told otherwise; this module tells it so for file URIs, and switches MLflow's
own usage telemetry off (the tool runs offline). Whatever MLflow or its store raises becomes one
``TrackingError`` naming the store.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import TrackingError
from ..extras import install_hint
from ..measure.sizes import SizeStats, cap_report
from ..model import ATOM_KINDS
from ..spec import SplitterSpec, parse_spec

DEFAULT_URI = "./mlruns"
EXPERIMENT = "chunk-inspector"
#: The embedder cap the runt and over-cap metrics are taken against (the app's default).
CAP = 512
_OFFLINE = {"MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"}


@dataclass(frozen=True, slots=True)
class TrackedRun:
    """One configuration as MLflow receives it."""

    name: str
    """The run's name: the spec string (or an import's label)."""

    params: dict[str, str]
    metrics: dict[str, float]
    artifact: dict = field(default_factory=dict)
    """Logged as ``report.json``."""

    tags: dict[str, str] = field(default_factory=dict)
    """Set on the run (``tune`` tags its winner)."""


def tracking_uri(uri: str | None) -> str:
    """``uri`` as MLflow reads it: a plain path becomes a ``file:`` URI (absolute)."""
    uri = (uri or DEFAULT_URI).strip()
    if "://" in uri or uri.startswith(("file:", "databricks")):
        return uri
    return Path(uri).expanduser().resolve().as_uri()


def spec_params(spec: SplitterSpec | str) -> dict[str, str]:
    """The spec's parts, as MLflow params."""
    spec = parse_spec(spec)
    params = {"spec": str(spec), "kind": spec.kind, "budget": str(spec.budget), "unit": spec.unit,
              "overlap": str(spec.overlap), "heading_path": str(spec.prefixes_path).lower(),
              "table_header": str(spec.repeats_header).lower(), "address": str(spec.address).lower(),
              "context": str(spec.context).lower()}
    if spec.is_imported:
        params["chunk_set"] = spec.chunk_set
    if spec.context_model:
        params["context_model"] = spec.context_model
    return params


def size_metrics(workspace, spec, cap: int = CAP) -> dict[str, float]:
    """p50 / p99 of the chunks' o200k tokens (prefix included), the runt ratio and the chunks
    an embedder capped at ``cap`` tokens would truncate."""
    sizes = workspace.sizes(spec, "o200k")
    stats, capped = SizeStats.of(sizes), cap_report(sizes, cap)
    return {"tokens_p50": stats.p50, "tokens_p99": stats.p99, "runt_ratio": capped.runt_ratio,
            f"over_cap_{cap}": float(len(capped.over_cap))}


def report_runs(workspace, report: dict) -> list[TrackedRun]:
    """One run per compared splitter of a ``build_report`` result."""
    common = {"retriever": report.get("retriever", "bm25"), "mode": report["mode"],
              "corpus": workspace.fingerprint}
    golden, searched = {}, {}
    for section in report.get("golden", ())[:1]:  # the first golden set is the runs' recall
        golden = {row["spec"]: row for row in section["rows"] if not row.get("expand") and not row.get("searched")}
        searched = {row["spec"]: row for row in section["rows"] if row.get("searched")}
    runs = []
    for row in report["compare"]:
        metrics = {"chunks": float(row["chunks"]), "oversized": float(row["oversized"]),
                   "ctx_tokens": row["ctx_tokens"]}
        if row["answer_at_5"] is not None:  # None: no query was drawn, no rate to log
            metrics.update(answer_at_5=row["answer_at_5"], cut_rate=row["cut"])
        metrics.update({f"survival.{kind}": value for kind, value in row["survival"].items() if value is not None})
        metrics.update(size_metrics(workspace, row["spec"]))
        for budget, value in golden.get(row["spec"], {}).get("recall", {}).items():
            metrics[f"recall_{budget}"] = value
        for budget, value in searched.get(row["spec"], {}).get("recall", {}).items():
            metrics[f"search.recall_{budget}"] = value  # the user's store asked itself
        for expanded in row.get("expanded", ()):
            if expanded["answer_at_5"] is not None:
                metrics[f"answer_at_5.expand_{expanded['expand']}"] = expanded["answer_at_5"]
            metrics[f"ctx_tokens.expand_{expanded['expand']}"] = expanded["ctx_tokens"]
        runs.append(TrackedRun(row["spec"], {**spec_params(row["spec"]), **common}, metrics,
                               {**report, "compare": [row]}))
    return runs


def check_run(workspace, spec, label: str, values: dict, retriever: str, result: dict) -> TrackedRun:
    """The run of one ``check``: its measures as metrics (names MLflow accepts)."""
    metrics = {_metric_name(name): float(value) for name, value in values.items() if value is not None}
    metrics.update(size_metrics(workspace, spec))
    params = {**spec_params(spec), "retriever": retriever, "mode": workspace.mode, "corpus": workspace.fingerprint}
    return TrackedRun(label, params, metrics, result)


def tune_runs(workspace, result, retriever: str) -> list[TrackedRun]:
    """One run per configuration ``tune`` measured: its objective with the interval, its costs,
    and tags saying which was recommended and which tied with the best."""
    common = {"retriever": retriever, "mode": workspace.mode, "corpus": workspace.fingerprint,
              "objective": result.objective, "context": str(result.context)}
    winners = set(result.winners)
    runs = []
    for rank, candidate in enumerate(result.candidates, 1):
        metrics = {"chunks": float(candidate.chunks), f"embedded_{_unit_name(result.unit)}": float(candidate.embedded),
                   "duplication": candidate.duplication, "over_cap": float(candidate.over_cap)}
        if candidate.score is not None:
            name = _metric_name(result.objective)
            metrics.update({name: candidate.score.value, f"{name}.low": candidate.score.low,
                            f"{name}.high": candidate.score.high, "questions": float(candidate.score.count)})
        if candidate.whole is not None:
            metrics.update({"whole_at_5": candidate.whole.value, "whole_at_5.low": candidate.whole.low,
                            "whole_at_5.high": candidate.whole.high, "asked_ctx_tokens": candidate.asked_tokens})
        tags = {"tune.rank": str(rank), "tune.stage": "left out" if candidate.excluded else
                "sample" if candidate.sampled else "all questions"}
        if candidate.label in winners:
            tags["tune.verdict"] = "best" if len(winners) == 1 else "tied for best"
        if result.recommended is not None and candidate.spec == result.recommended:
            tags["tune.recommended"] = "true"
        runs.append(TrackedRun(str(candidate.spec), {**spec_params(candidate.spec), **common}, metrics,
                               candidate.as_dict(), tags))
    return runs


def _unit_name(unit: str) -> str:
    return "tokens" if unit.startswith("hf:") else unit


def _metric_name(name: str) -> str:
    """A gate measure's name as the report's runs call it (MLflow takes no ``@``):
    ``answer@5`` is ``answer_at_5``, ``recall@2000`` ``recall_2000``, ``code`` ``survival.code``."""
    kind, _, every = name.partition(".")
    if kind in ATOM_KINDS:
        return f"survival_all.{kind}" if every else f"survival.{kind}"
    if name.startswith("recall@"):
        return "recall_" + name[7:]
    return {"cut": "cut_rate"}.get(name, name.replace("@", "_at_"))


def log_runs(runs: list[TrackedRun], uri: str | None = None, experiment: str = EXPERIMENT) -> list[str]:
    """Log every run under ``experiment`` at ``uri`` (default ``./mlruns``); their run ids."""
    try:
        import mlflow
    except ImportError:
        raise TrackingError(f"--mlflow needs MLflow: {install_hint('mlflow')}") from None
    uri = tracking_uri(uri)
    for key, value in _OFFLINE.items():
        os.environ.setdefault(key, value)
    if uri.startswith("file:"):
        _check_folder(uri)
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
    elif uri.startswith("sqlite:"):
        _check_database(uri)
    elif uri.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "mysql", "mssql"):
        _check_server(uri)
    ids = []
    # MLflow's logging would fill stderr with its database migrations and retries (the failure is
    # told once, below), and it prints each run's address on stdout, which holds the report.
    quiet = [logging.getLogger(name) for name in ("mlflow", "alembic")]
    levels = [logger.level for logger in quiet]
    try:
        for logger in quiet:
            logger.setLevel(logging.ERROR + 10)
        with contextlib.redirect_stdout(sys.stderr):
            mlflow.set_tracking_uri(uri)
            mlflow.set_experiment(experiment)
            for run in runs:
                with mlflow.start_run(run_name=run.name) as started:
                    mlflow.log_params(run.params)
                    mlflow.log_metrics(run.metrics)
                    mlflow.log_dict(run.artifact, "report.json")
                    if run.tags:
                        mlflow.set_tags(run.tags)
                ids.append(started.info.run_id)
    except mlflow.exceptions.MlflowException as exc:
        raise TrackingError(f"MLflow at {shown(uri)} refused the runs: {' '.join(str(exc).split())[:300]}") from None
    except ImportError as exc:  # a store's driver: sqlalchemy and alembic for sqlite:, psycopg for postgresql:
        raise _missing(uri, exc) from None
    except Exception as exc:  # the store's own failures (OSError, SQLAlchemy's, HTTP clients')
        detail = " ".join(str(exc).split())[:300] or "no message"
        raise TrackingError(f"MLflow at {shown(uri)} could not log the runs ({type(exc).__name__}: {detail})") from None
    finally:
        for logger, level in zip(quiet, levels):
            logger.setLevel(level)
    return ids


def _missing(uri: str, exc: ImportError) -> TrackingError:
    return TrackingError(f"MLflow's store at {shown(uri)} needs {exc.name or exc} ({install_hint('mlflow')})")


def shown(uri: str) -> str:
    """``uri`` as messages print it: a password in it is not repeated."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", uri)


def _check_server(uri: str) -> None:
    """A database server is reached once before MLflow is handed it (MLflow tries ten times over
    100 s before it says that it cannot)."""
    try:
        import sqlalchemy
    except ImportError:
        raise TrackingError(f"MLflow's store at {shown(uri)} needs SQLAlchemy ({install_hint('mlflow')})") from None
    try:
        engine = sqlalchemy.create_engine(uri, connect_args={"connect_timeout": 10} if uri.startswith("postgres")
                                          else {})
        with engine.connect():
            pass
        engine.dispose()
    except ImportError as exc:
        raise _missing(uri, exc) from None
    except Exception as exc:  # the driver's own errors: refused, unknown host, bad password
        detail = " ".join(str(exc).split())[:300] or type(exc).__name__
        raise TrackingError(f"MLflow's database at {shown(uri)} cannot be reached ({detail})") from None


def _check_database(uri: str) -> None:
    """A SQLite store is a file in a folder that exists (MLflow retries an impossible one for
    100 s before it says so)."""
    name = uri.split(":///", 1)[1] if ":///" in uri else ""
    if not name or name == ":memory:":
        raise TrackingError(f"MLflow's SQLite store {uri} names no file (sqlite:///runs.db, or an absolute "
                            "sqlite:////path/runs.db)")
    path = Path(name)
    if path.is_dir():
        raise TrackingError(f"MLflow's SQLite store {uri} is a folder, not a database file")
    if not path.parent.is_dir():
        raise TrackingError(f"MLflow's SQLite store {uri} cannot be made: its folder {path.parent} does not exist")
    if not os.access(path if path.exists() else path.parent, os.W_OK):
        raise TrackingError(f"MLflow's SQLite store {uri} cannot be written")


def _check_folder(uri: str) -> None:
    """A file store is a folder: refuse a file, a device or a path below one before MLflow writes."""
    from urllib.parse import unquote, urlparse

    path = Path(unquote(urlparse(uri).path))
    for place in (path, *path.parents):
        if place.exists():
            if not place.is_dir():
                raise TrackingError(f"MLflow's file store {uri} is not a folder: {place} is a file")
            if not os.access(place, os.W_OK | os.X_OK):
                raise TrackingError(f"MLflow's file store {uri} cannot be written: {place} is read-only")
            return


def mlflow_available() -> bool:
    """Whether MLflow can be imported (checked before a long run, not after)."""
    import importlib.util

    return importlib.util.find_spec("mlflow") is not None
