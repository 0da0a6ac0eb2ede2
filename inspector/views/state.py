"""The app's settings as one frozen value, read from and written to the page URL.

Everything a view depends on (corpus, document, splitter, compare list, ...) lives in
``AppState``, so a copied link reproduces the view. ``from_query_params`` never raises: a bad
value falls back to its default and comes back as a problem to show. Which folders the app
may read is ``launch``'s. Pure Python: nothing here imports Streamlit.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..errors import RetrieverError, SpecError
from ..lengths import LENGTH_NAMES, MINILM_UNIT
from ..model import MODES
from ..retrieval.retriever_spec import RetrieverSpec
from ..spec import IMPORTED, MAX_BUDGET, SWEEP_BUDGETS, SplitterSpec
from .retrievers import checked_retriever, retriever_problem

#: The splitter the app opens with.
DEFAULT_SPLITTER = SplitterSpec("structured", 800)
#: Corpus values that are not folders.
SAMPLE, UPLOAD, PASTE = "sample", "upload", "paste"

#: An uploaded tokenizer.json as a unit: ``upload:`` and the first 16 hex digits of its sha256.
UPLOAD_UNIT = re.compile(r"^upload:[0-9a-f]{16}$")
#: A language as ``atoms.language`` names one (ISO 639-1, ``und``).
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}$")

MAX_CAP = 1_000_000
#: The most rows a page's table draws (the rest are in its download).
MAX_TABLE_ROWS = 1_000
MAX_COMPARE = 16
#: The longest value a URL key may have (a folder path or a spec is far shorter).
MAX_URL_VALUE = 4_096
#: How many times one URL key may repeat (``cmp`` is the only key read more than once).
MAX_URL_VALUES = 64


@dataclass(frozen=True, slots=True)
class AppState:
    """Every setting a view depends on; the default is the app's opening view."""

    corpus: str = SAMPLE
    """``"sample"`` (the bundled corpus), ``"upload"`` (files sent from the browser), ``"paste"``
    (a text pasted in the browser) or a folder."""

    mode: str = "markdown"
    """Atom detector and reading mode: ``markdown`` or ``seed`` (the article's exact rules)."""

    doc: str = ""
    """Id of the document shown on the Document page; empty means the corpus's first."""

    splitter: SplitterSpec = DEFAULT_SPLITTER
    """The splitter, one of ours or another library's, whole: its kind's own options included."""

    chunk_set: str = ""
    """The id of a stored chunk set shown in place of ``splitter`` (which stays, for when a
    splitter is chosen again); empty: none."""

    lane_b: str = ""
    """Spec string of a second splitter drawn beside the first; empty: side-by-side is off."""

    compare: tuple[str, ...] = ()
    """Spec strings on the Compare page; empty: the article's seven at ``budget``."""

    language: str = ""
    """The language whose documents alone the Compare page measures (ISO 639-1); empty: all."""

    sweep: tuple[int, ...] = SWEEP_BUDGETS
    """Budgets of the Budget sweep page."""

    embed: str = "o200k"
    """Tokenizer of the embedder on the Chunk sizes page (a unit, as ``unit``)."""

    cap: int = 512
    """The embedder's input limit in tokens, on the Chunk sizes page."""

    retriever: str = "bm25"
    """What ranks chunks on the Compare, Budget sweep, Import and Orphan Test pages (a
    ``RetrieverSpec`` string this server allows)."""

    keep_front_matter: bool = False
    """Read the corpus with its front matter in the text, as pipelines reading raw files do."""

    @property
    def kind(self) -> str:
        """The splitter's kind, or ``imported`` while a chunk set is shown."""
        return IMPORTED if self.chunk_set else self.splitter.kind

    @property
    def budget(self) -> int:
        return self.splitter.budget

    @property
    def unit(self) -> str:
        """What sizes count in: the splitter's unit (an imported set's sizes count in it too)."""
        return self.splitter.unit

    def spec(self) -> SplitterSpec:
        """The chunks these settings show: the chunk set's, or the splitter's; ``SpecError`` when
        the unit cannot be counted in here."""
        if self.unit == "chars" or self.unit in LENGTH_NAMES or UPLOAD_UNIT.match(self.unit):
            return SplitterSpec.imported(self.chunk_set, self.unit) if self.chunk_set else self.splitter
        raise SpecError(f"unknown unit {self.unit!r}; choose chars, o200k, cl100k or upload a tokenizer.json")

    def spec_problem(self) -> str | None:
        """Why ``spec()`` fails, or None."""
        try:
            self.spec()
        except SpecError as exc:
            return str(exc)
        return None

    def with_spec(self, spec: SplitterSpec) -> "AppState":
        """These settings showing ``spec``'s chunks (a chunk set's keep the splitter, in its unit)."""
        if spec.is_imported:
            return replace(self, chunk_set=spec.chunk_set, splitter=replace(self.splitter, unit=spec.unit))
        return replace(self, chunk_set="", splitter=spec)

    def second_lane(self) -> str:
        """The spec a second lane opens with: the other of the two plain splitters at this budget,
        so the lanes differ from the first look (``fixed`` beside ``structured``, else ``structured``)."""
        kind = "fixed" if self.kind == "structured" else "structured"
        return f"{kind}:{self.budget}{'' if self.unit == 'chars' or self.kind == IMPORTED else ':' + self.unit}"

    #: The URL keys these settings own; pages may add keys of their own beside them.
    # ``embedder``, not ``embed``: Streamlit keeps ``embed`` for itself and never shows it to the app.
    URL_KEYS = ("spec", "doc", "mode", "corpus", "vs", "cmp", "lang", "budgets", "embedder", "cap", "retriever",
                "frontmatter")

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
        if self.language:
            out["lang"] = self.language
        if self.sweep != default.sweep:
            out["budgets"] = ",".join(map(str, self.sweep))
        if self.embed != default.embed:
            out["embedder"] = self.embed
        if self.cap != default.cap:
            out["cap"] = str(self.cap)
        if self.retriever != default.retriever:
            out["retriever"] = self.retriever
        if self.keep_front_matter:
            out["frontmatter"] = "keep"
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
        link, problems = bounded_link(params)
        for key, read in _URL_READERS.items():
            if key in link:
                state, found = read(state, link[key], uploaded_units)
                problems += found
        return state, problems

    def spec_label(self) -> str:
        """The splitter's short string, or a note that the settings cannot run."""
        return str(self.spec()) if self.spec_problem() is None else "(invalid splitter settings)"


# -- reading each URL key: (state, the key's values, uploaded units) -> (state, problems) --------

def _last(read):
    """A reader of the key's last value (a key given twice keeps the later one)."""
    def reader(state: AppState, values: list[str], units: Sequence[str]) -> tuple[AppState, list[str]]:
        return read(state, values[-1], units) if values else (state, [])
    return reader


@_last
def _read_spec(state: AppState, text: str, units: Sequence[str]):
    try:
        return state.with_spec(checked_spec(text, units)), []
    except SpecError as exc:
        return state, [f"Splitter in the link ignored ({exc}); using {state.spec_label()}."]


@_last
def _read_mode(state: AppState, text: str, units: Sequence[str]):
    if text in MODES:
        return replace(state, mode=text), []
    return state, [f"Atom mode {text!r} in the link is not one of {', '.join(MODES)}; using {state.mode}."]


@_last
def _read_corpus(state: AppState, text: str, units: Sequence[str]):
    if text.strip():
        return replace(state, corpus=text.strip()), []
    return state, ["Empty corpus in the link; using the default corpus."]


@_last
def _read_doc(state: AppState, text: str, units: Sequence[str]):
    return replace(state, doc=text), []


@_last
def _read_lane_b(state: AppState, text: str, units: Sequence[str]):
    try:
        return replace(state, lane_b=str(checked_spec(text, units))), []
    except SpecError as exc:
        return state, [f"Second splitter in the link ignored ({exc})."]


def _read_compare(state: AppState, values: list[str], units: Sequence[str]):
    kept, problems = [], []
    for text in values[:MAX_COMPARE]:
        try:
            kept.append(str(checked_spec(text, units)))
        except SpecError as exc:
            problems.append(f"Compared splitter {text!r} in the link ignored: {exc}.")
    if len(values) > MAX_COMPARE:
        problems.append(f"Only the first {MAX_COMPARE} compared splitters in the link are used.")
    return replace(state, compare=tuple(dict.fromkeys(kept))), problems


@_last
def _read_language(state: AppState, text: str, units: Sequence[str]):
    if LANGUAGE_CODE.match(text):
        return replace(state, language=text), []
    return state, [f"Language {text[:40]!r} in the link is not a language code such as en or zh; every language "
                   "is measured."]


@_last
def _read_sweep(state: AppState, text: str, units: Sequence[str]):
    budgets, problem = parse_budgets(text)
    if problem:
        return state, [f"Sweep budgets in the link ignored: {problem}."]
    return replace(state, sweep=budgets), []


@_last
def _read_embed(state: AppState, text: str, units: Sequence[str]):
    problem = unit_problem(text, units)
    if problem:
        return state, [f"Embedder tokenizer in the link ignored: {problem}."]
    return replace(state, embed=text), []


@_last
def _read_cap(state: AppState, text: str, units: Sequence[str]):
    number = _whole(text)
    if number is None or not 0 < number <= MAX_CAP:
        return state, [f"Token cap {text!r} in the link is not a whole number from 1 to {MAX_CAP}; using {state.cap}."]
    return replace(state, cap=number), []


@_last
def _read_retriever(state: AppState, text: str, units: Sequence[str]):
    try:
        return replace(state, retriever=str(checked_retriever(text))), []
    except RetrieverError as exc:
        return state, [f"Retriever in the link ignored ({exc}); using {state.retriever}."]


@_last
def _read_front_matter(state: AppState, text: str, units: Sequence[str]):
    if text in ("keep", "strip"):
        return replace(state, keep_front_matter=text == "keep"), []
    return state, [f"Front matter {text[:40]!r} in the link is not 'keep' or 'strip'; it is removed."]


#: Every URL key ``AppState`` owns and how it is read, in the order they are applied.
_URL_READERS = {"spec": _read_spec, "mode": _read_mode, "corpus": _read_corpus, "doc": _read_doc,
                "vs": _read_lane_b, "cmp": _read_compare, "lang": _read_language, "budgets": _read_sweep,
                "embedder": _read_embed, "cap": _read_cap, "retriever": _read_retriever,
                "frontmatter": _read_front_matter}


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
    return [value] if isinstance(value, str) else [str(v) for v in value[:MAX_URL_VALUES + 1]]


def bounded_link(params: Mapping[str, str | Sequence[str]]) -> tuple[dict[str, list[str]], list[str]]:
    """A link's parameters (every key, not only ``AppState``'s) without the values too long to
    read, and why each was left out. Pages keep the keys they own from here."""
    link, problems = {}, []
    for key, value in params.items():
        values, refused = _bounded(key, _values(value))
        problems += refused
        if values:
            link[key] = values
    return link, problems


def _bounded(key: str, values: list[str]) -> tuple[list[str], list[str]]:
    """The values of one URL key that are short enough to read, and why the others were not
    (a link can carry a value of any length, or one key thousands of times)."""
    problems = []
    if len(values) > MAX_URL_VALUES:
        problems.append(f"The link gives {key!r} more than {MAX_URL_VALUES} times; only the first "
                        f"{MAX_URL_VALUES} are read.")
        values = values[:MAX_URL_VALUES]
    kept = [v for v in values if len(v) <= MAX_URL_VALUE]
    if len(kept) < len(values):
        longest = max(len(v) for v in values)
        problems.append(f"The link's {key!r} value ignored: {longest:,} characters, more than the "
                        f"{MAX_URL_VALUE:,} a setting may have.")
    return kept, problems


def model_tokenizers() -> tuple[str, ...]:
    """The units of the embedding models installed here that count in their own tokenizer."""
    from ..errors import MissingExtra
    from ..packaged import MINILM

    try:
        MINILM.path()
    except MissingExtra:
        return ()
    return (MINILM_UNIT,)


def sizes_defaults(state: AppState) -> tuple[str, int]:
    """The Chunk sizes page's tokenizer and cap: the retriever's own when it is all-MiniLM-L6-v2
    and the link named neither, else the state's."""
    from ..retrieval.minilm import MAX_PIECES
    from ..retrieval.retriever_spec import parse_retriever

    default = AppState()
    if (state.embed, state.cap) == (default.embed, default.cap) and \
            parse_retriever(state.retriever).base.embedder == MINILM_UNIT and MINILM_UNIT in model_tokenizers():
        return MINILM_UNIT, MAX_PIECES
    return state.embed, state.cap


def unit_problem(unit: str, uploaded_units: Sequence[str]) -> str | None:
    """Why ``unit`` may not come from a link or a text box, or None.

    Tokenizer paths are refused: whoever sends a link would choose which server file is read.
    Uploaded tokenizers are named by hash and must be held by this server.
    """
    if unit == "chars" or unit in LENGTH_NAMES or unit == MINILM_UNIT:
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
    if spec.context and not spec.context_model:
        from ..context.writer import ENV_MODEL

        model = os.environ.get(ENV_MODEL, "").strip()
        if not model:
            raise SpecError(f"+context needs the model that wrote the lines: add ;llm=MODEL (or set {ENV_MODEL})")
        spec = replace(spec, context_model=model)
    if spec.options.embedder:
        problem = retriever_problem(RetrieverSpec("dense", spec.options.embedder))
        if problem:
            raise SpecError(f"the {spec.kind} chunker cannot embed with {spec.options.embedder}: {problem}")
    return spec
