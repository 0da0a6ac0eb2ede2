"""The session's settings: one ``AppState`` in ``st.session_state["app_state"]``, mirrored into the
URL, and the first values of the widgets that edit it. Not a page.

A session starts from its link (``start_session``); sidebar widgets get their first values from
the settings, page widgets theirs through ``keep`` (and keep them across page switches with
``persist_state``), so the URL always holds every page's settings.
"""

from __future__ import annotations

from dataclasses import asdict, replace

import streamlit as st

from app_pages.parts.units import uploaded_units
from inspector.kinds import kind_named
from inspector.spec import IMPORTED, SplitterSpec
from inspector.views import (
    PASTE,
    SAMPLE,
    UPLOAD,
    UPLOAD_UNIT,
    AppState,
    HeldRound,
    LaunchConfig,
    bounded_link,
    menu_choice,
    menu_value,
)

STATE = "app_state"
#: The document a first look opened on (where the splitter cuts most), until the Document page
#: has scrolled it to its first cut.
OPENED_ON_DAMAGE = "_opened_on_damage"
#: Where the Orphan Test round held on its page is kept (a ``HeldRound``), and that page's address.
HELD, ORPHAN_PAGE = "_orphan_held", "orphan-test"


def held_round(page: str) -> HeldRound | None:
    """The Orphan Test round held on its page, when ``page`` (an address) is that page."""
    return st.session_state.get(HELD) if page == ORPHAN_PAGE else None


def state() -> AppState:
    """The settings of this session."""
    return st.session_state[STATE]


def update(**changes) -> AppState:
    """Change settings (``publish`` then mirrors them into the URL)."""
    new = replace(state(), **changes)
    st.session_state[STATE] = new
    return new


def publish(settings: AppState | None = None) -> None:
    """Write the settings (the session's unless given) into the URL (only when they differ, to
    keep history quiet)."""
    current = {key: (st.query_params.get_all(key) if key == "cmp" else st.query_params.get(key))
               for key in st.query_params}
    # Keys a page owns (an Orphan Test round) stay, if short enough to read; only the shared
    # settings are rewritten.
    kept, _ = bounded_link({key: value for key, value in current.items() if key not in AppState.URL_KEYS})
    wanted = {key: values if key == "cmp" else values[-1] for key, values in kept.items()}
    wanted.update((settings or state()).to_query_params())
    if current != wanted:
        st.query_params.from_dict(wanted)


def start_session(launch: LaunchConfig) -> None:
    """Settle a new session's settings from its link and seed the sidebar widgets with them."""
    params = {key: st.query_params.get_all(key) for key in st.query_params}
    initial, problems = AppState.from_query_params(params, default=launch.default_state(),
                                                   uploaded_units=uploaded_units())
    st.session_state[STATE] = initial
    st.session_state["url_problems"] = problems
    seed_widgets(initial)


def seed_widgets(settings: AppState, *, missing_only: bool = False) -> None:
    """Give the sidebar's widgets the values of ``settings``; ``missing_only``: only the widgets
    whose value Streamlit dropped (a run that drew no sidebar widget, as a held round's)."""
    source = settings.corpus if settings.corpus in (SAMPLE, UPLOAD, PASTE) else "folder"
    splitter = settings.splitter
    values = {
        "corpus_source": source, "corpus_path": settings.corpus if source == "folder" else "",
        "mode": settings.mode, "kind": menu_value(settings), "budget": splitter.budget, "overlap": splitter.overlap,
        "unit": "upload" if UPLOAD_UNIT.match(splitter.unit) else splitter.unit,
        "heading_prefix": splitter.prefixes_path, "table_header": splitter.repeats_header_in(settings.mode),
        "address": splitter.address, "stamp": splitter.stamp, **option_values(splitter),
    }
    for key, value in values.items():
        if not missing_only or key not in st.session_state:
            st.session_state[key] = value


def option_key(field: str) -> str:
    """The sidebar widget of a splitter kind's option (kinds sharing an option share its widget)."""
    return f"option_{field}"


def option_values(spec: SplitterSpec) -> dict:
    """The sidebar's option widgets' values for ``spec``'s kind: its options, each shown as its
    control shows it (a default of 0 as the number it stands for)."""
    kind = kind_named(spec.kind)
    if kind is None:
        return {}
    fields, defaults = asdict(spec.options), asdict(kind.options())
    return {option_key(c.field): c.default if c.default is not None and fields[c.field] == defaults[c.field]
            else fields[c.field] for c in kind.controls}


def keep(key: str, value) -> None:
    """Give a page widget its first value (from the link). Page widgets use
    ``persist_state="session"`` so their values outlive a page switch."""
    if key not in st.session_state:
        st.session_state[key] = value


def touched() -> None:
    """Callback of the sidebar's setting widgets: the user changed a setting, so the link's warnings go."""
    st.session_state["url_problems"] = []


def kind_changed() -> None:
    """Callback of the splitter menu."""
    # A new splitter family starts from its own prefix defaults, not the previous family's.
    kind = st.session_state["kind"]
    if menu_choice(kind)[0] == IMPORTED:
        touched()
        return  # imported chunks ignore the flags: keep them for the next splitter
    st.session_state["heading_prefix"] = SplitterSpec.path_default(kind)
    st.session_state["table_header"] = SplitterSpec.header_default(kind, st.session_state.get("mode", "markdown"))
    touched()


def use_spec(text: str) -> None:
    """Callback: make a built-in splitter the sidebar's, its widgets set from the spec (a unit
    the menu does not list, an uploaded tokenizer's, stays as it is)."""
    from inspector.lengths import LENGTH_NAMES

    spec = SplitterSpec.parse(text)
    st.session_state.update(kind=spec.kind, budget=spec.budget, overlap=spec.overlap,
                            heading_prefix=spec.prefixes_path, address=spec.address, **option_values(spec),
                            table_header=spec.repeats_header_in(st.session_state.get("mode", "markdown")))
    if spec.unit in LENGTH_NAMES:
        st.session_state["unit"] = spec.unit
    touched()
