"""The app's settings as one frozen value, read from and written to the page URL.

Everything a view depends on (corpus, document, splitter, compare list, ...) lives in
``AppState``, so a copied link reproduces the view. ``from_query_params`` never raises: a bad
value falls back to its default and comes back as a problem to show. Also here: which folders
the app may read (``LaunchConfig``, from the command line and the environment) and the check
that refuses any other folder. Pure Python: nothing here imports Streamlit.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import SpecError
from ..lengths import LENGTH_NAMES
from ..model import MODES
from ..spec import IMPORTED, MAX_BUDGET, SWEEP_BUDGETS, SplitterSpec

#: Corpus values that are not folders.
SAMPLE, UPLOAD = "sample", "upload"

#: The bundled corpus, found relative to this package (never an absolute path in a file).
SAMPLE_CORPUS = Path(__file__).resolve().parents[2] / "sample_corpus"

#: An uploaded tokenizer.json as a unit: ``upload:`` and the first 16 hex digits of its sha256.
UPLOAD_UNIT = re.compile(r"^upload:[0-9a-f]{16}$")

#: Environment variables the app reads at start (AppTest sets these).
ENV_ROOTS, ENV_CORPUS = "CHUNK_INSPECTOR_ROOTS", "CHUNK_INSPECTOR_CORPUS"

MAX_CAP = 1_000_000
MAX_COMPARE = 16


@dataclass(frozen=True, slots=True)
class AppState:
    """Every setting a view depends on; the default is the app's opening view."""

    corpus: str = SAMPLE
    """``"sample"`` (the bundled corpus), ``"upload"`` (files sent from the browser) or a folder."""

    mode: str = "markdown"
    """Atom detector and reading mode: ``markdown`` or ``seed`` (the article's exact rules)."""

    doc: str = ""
    """Id of the document shown on the Document page; empty means the corpus's first."""

    kind: str = "structured"
    """Splitter family, one of ``KINDS`` (or an ``ext-`` adapter, or ``imported``)."""

    chunk_set: str = ""
    """With ``kind="imported"``: the id of the stored chunk set; budget, overlap and flags
    are then kept for when a splitter is chosen again, not used."""

    budget: int = 800
    """Largest chunk, in ``unit``."""

    unit: str = "chars"
    """``chars``, ``o200k``, ``cl100k`` or ``upload:<hash>`` for an uploaded tokenizer.json."""

    overlap: int = 0
    """How much of a chunk the next one repeats, in ``unit``."""

    heading_prefix: bool | None = None
    """Prefix chunks with their heading path; ``None``: the splitter's default."""

    table_header: bool | None = None
    """Repeat a table's header on chunks starting mid-table; ``None``: the splitter's default."""

    lane_b: str = ""
    """Spec string of a second splitter drawn beside the first; empty: side-by-side is off."""

    compare: tuple[str, ...] = ()
    """Spec strings on the Compare page; empty: the article's seven at ``budget``."""

    sweep: tuple[int, ...] = SWEEP_BUDGETS
    """Budgets of the Budget sweep page."""

    embed: str = "o200k"
    """Tokenizer of the embedder on the Chunk sizes page (a unit, as ``unit``)."""

    cap: int = 512
    """The embedder's input limit in tokens, on the Chunk sizes page."""

    def spec(self) -> SplitterSpec:
        """The splitter these settings describe; ``SpecError`` says why when they cannot run."""
        if self.unit == "chars" or self.unit in LENGTH_NAMES or UPLOAD_UNIT.match(self.unit):
            if self.kind == IMPORTED:
                return SplitterSpec.imported(self.chunk_set, self.unit)
            return SplitterSpec(kind=self.kind, budget=self.budget, unit=self.unit, overlap=self.overlap,
                                heading_prefix=self.heading_prefix, table_header=self.table_header)
        raise SpecError(f"unknown unit {self.unit!r}; choose chars, o200k, cl100k or upload a tokenizer.json")

    def spec_problem(self) -> str | None:
        """Why ``spec()`` fails, or None."""
        try:
            self.spec()
        except SpecError as exc:
            return str(exc)
        return None

    def with_spec(self, spec: SplitterSpec) -> "AppState":
        """These settings with the splitter fields taken from ``spec``."""
        if spec.is_imported:  # the budget and flags stay for the next built-in splitter
            return replace(self, kind=spec.kind, chunk_set=spec.chunk_set, unit=spec.unit)
        return replace(self, chunk_set="", kind=spec.kind, budget=spec.budget, unit=spec.unit, overlap=spec.overlap,
                       heading_prefix=spec.heading_prefix, table_header=spec.table_header)

    #: The URL keys these settings own; pages may add keys of their own beside them.
    URL_KEYS = ("spec", "doc", "mode", "corpus", "vs", "cmp", "budgets", "embed", "cap")

    def to_query_params(self) -> dict[str, str | list[str]]:
        """The URL form: ``spec`` and ``doc`` always, other settings when not at their default."""
        out: dict[str, str | list[str]] = {}
        if self.spec_problem() is None:
            out["spec"] = str(self.spec())
        if self.doc:
            out["doc"] = self.doc
        default = AppState()
        if self.mode != default.mode:
            out["mode"] = self.mode
        if self.corpus != default.corpus:
            out["corpus"] = self.corpus
        if self.lane_b:
            out["vs"] = self.lane_b
        if self.compare:
            out["cmp"] = list(self.compare)
        if self.sweep != default.sweep:
            out["budgets"] = ",".join(map(str, self.sweep))
        if self.embed != default.embed:
            out["embed"] = self.embed
        if self.cap != default.cap:
            out["cap"] = str(self.cap)
        return out

    @classmethod
    def from_query_params(cls, params: Mapping[str, str | Sequence[str]], *,
                          default: "AppState | None" = None,
                          uploaded_units: Sequence[str] = ()) -> tuple["AppState", list[str]]:
        """Read a URL's parameters; each bad value keeps ``default``'s and adds a problem.

        ``uploaded_units`` are the ``upload:<hash>`` units this server holds; a link naming
        another one (uploaded in an earlier run of the server) cannot be honoured.
        """
        state = default or cls()
        problems: list[str] = []
        values = {key: _values(value) for key, value in params.items()}

        def last(key: str) -> str | None:
            found = values.get(key)
            return found[-1] if found else None

        if (text := last("spec")) is not None:
            try:
                spec = checked_spec(text, uploaded_units)
                state = state.with_spec(spec)
            except SpecError as exc:
                problems.append(f"Splitter in the link ignored ({exc}); using {state.spec_label()}.")
        if (text := last("mode")) is not None:
            if text in MODES:
                state = replace(state, mode=text)
            else:
                problems.append(f"Atom mode {text!r} in the link is not one of {', '.join(MODES)}; "
                                f"using {state.mode}.")
        if (text := last("corpus")) is not None:
            if text.strip():
                state = replace(state, corpus=text.strip())
            else:
                problems.append("Empty corpus in the link; using the default corpus.")
        if (text := last("doc")) is not None:
            state = replace(state, doc=text)
        if (text := last("vs")) is not None:
            try:
                spec = checked_spec(text, uploaded_units)
                state = replace(state, lane_b=str(spec))
            except SpecError as exc:
                problems.append(f"Second splitter in the link ignored ({exc}).")
        if "cmp" in values:
            kept = []
            for text in values["cmp"][:MAX_COMPARE]:
                try:
                    spec = checked_spec(text, uploaded_units)
                    kept.append(str(spec))
                except SpecError as exc:
                    problems.append(f"Compared splitter {text!r} in the link ignored: {exc}.")
            if len(values["cmp"]) > MAX_COMPARE:
                problems.append(f"Only the first {MAX_COMPARE} compared splitters in the link are used.")
            state = replace(state, compare=tuple(dict.fromkeys(kept)))
        if (text := last("budgets")) is not None:
            budgets, problem = parse_budgets(text)
            if problem:
                problems.append(f"Sweep budgets in the link ignored: {problem}.")
            else:
                state = replace(state, sweep=budgets)
        if (text := last("embed")) is not None:
            try:
                _check_unit(text, uploaded_units)
                state = replace(state, embed=text)
            except SpecError as exc:
                problems.append(f"Embedder tokenizer in the link ignored: {exc}.")
        if (text := last("cap")) is not None:
            number = _whole(text)
            if number is None or not 0 < number <= MAX_CAP:
                problems.append(f"Token cap {text!r} in the link is not a whole number from 1 to "
                                f"{MAX_CAP}; using {state.cap}.")
            else:
                state = replace(state, cap=number)
        return state, problems

    def spec_label(self) -> str:
        """The splitter's short string, or a note that the settings cannot run."""
        return str(self.spec()) if self.spec_problem() is None else "(invalid splitter settings)"


def parse_budgets(text: str) -> tuple[tuple[int, ...], str | None]:
    """``"400, 800,1200"`` -> sorted distinct budgets, or ``((), reason)``."""
    parts = [p.strip() for p in str(text).replace(";", ",").split(",") if p.strip()]
    if not parts:
        return (), "no budgets given"
    budgets = []
    for part in parts:
        number = _whole(part)
        if number is None or not 0 < number <= MAX_BUDGET:
            return (), f"{part!r} is not a whole number from 1 to {MAX_BUDGET}"
        budgets.append(number)
    if len(set(budgets)) > 24:
        return (), "at most 24 budgets"
    return tuple(sorted(set(budgets))), None


def _whole(text: str) -> int | None:
    text = str(text).strip()
    return int(text) if re.fullmatch(r"\d{1,9}", text) else None


def _values(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]


def unit_problem(unit: str, uploaded_units: Sequence[str]) -> str | None:
    """Why ``unit`` may not come from a link or a text box, or None.

    Tokenizer paths are refused: whoever sends a link would choose which server file is read.
    Uploaded tokenizers are named by hash and must be held by this server.
    """
    if unit == "chars" or unit in LENGTH_NAMES:
        return None
    if UPLOAD_UNIT.match(unit):
        if unit in uploaded_units:
            return None
        return "the tokenizer.json it names is not on this server (it was uploaded elsewhere); upload it again"
    return (f"unit {unit!r} is not allowed here; use chars, o200k or cl100k, "
            "or choose 'tokenizer.json' as the unit and upload the file")


def _check_unit(unit: str, uploaded_units: Sequence[str]) -> None:
    problem = unit_problem(unit, uploaded_units)
    if problem:
        raise SpecError(problem)


def checked_spec(text: str, uploaded_units: Sequence[str] = ()) -> SplitterSpec:
    """Parse a spec typed by a user or found in a link; ``SpecError`` when it may not run."""
    spec = SplitterSpec.parse(text)
    _check_unit(spec.unit, uploaded_units)
    return spec


# -- which folders the app may read ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class LaunchConfig:
    """What the app was started with: the default corpus and the folders it may read."""

    default_corpus: str = SAMPLE
    """The corpus shown when a link names none: ``sample`` or a folder."""

    roots: tuple[str, ...] = field(default=())
    """Folders (resolved) under which any folder may be opened as a corpus."""

    problems: tuple[str, ...] = ()
    """Start-up settings that were refused, to show in the app."""

    def default_state(self) -> AppState:
        """The opening view under this configuration."""
        return AppState(corpus=self.default_corpus)


def launch_config(argv: Sequence[str], environ: Mapping[str, str]) -> LaunchConfig:
    """Read ``--corpus PATH`` and ``--allow-root PATH`` (repeatable) from the arguments after
    ``streamlit run app.py --``, and ``CHUNK_INSPECTOR_CORPUS`` / ``CHUNK_INSPECTOR_ROOTS``
    (``os.pathsep``-separated) from the environment; the command line wins for the corpus."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--corpus")
    parser.add_argument("--allow-root", action="append", default=[])
    known, _ = parser.parse_known_args(list(argv))
    problems = []
    candidates = [r for r in environ.get(ENV_ROOTS, "").split(os.pathsep) if r.strip()] + known.allow_root
    corpus = known.corpus or environ.get(ENV_CORPUS, "").strip() or SAMPLE
    if corpus != SAMPLE:
        candidates.append(corpus)  # the folder the app was started on is allowed by that act
    roots = []
    for root in candidates:
        if os.path.isdir(root):
            roots.append(os.path.realpath(root))
        else:
            problems.append(f"Allowed root {root!r} is not a folder; ignored.")
    if corpus != SAMPLE and not os.path.isdir(corpus):
        problems.append(f"Corpus {corpus!r} given at start is not a folder; using the sample corpus.")
        corpus = SAMPLE
    return LaunchConfig(corpus, tuple(dict.fromkeys(roots)), tuple(problems))


def corpus_folder_problem(path: str, roots: Sequence[str]) -> str | None:
    """Why the folder ``path`` may not be opened (outside every allowed root, or not a folder)."""
    if not path.strip():
        return "no folder given"
    real = os.path.realpath(path)
    allowed = [os.path.realpath(SAMPLE_CORPUS), *roots]
    if not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in allowed):
        return (f"{path!r} is outside the folders this app may read. To allow it, start the app with "
                "streamlit run app.py -- --allow-root FOLDER, or set CHUNK_INSPECTOR_ROOTS.")
    if not os.path.isdir(real):
        return f"{path!r} is not a folder"
    return None

