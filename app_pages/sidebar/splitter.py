"""The sidebar's splitter: its widgets, or an Orphan Test round's fixed splitter, settled into the
run's spec. Not a page (``sidebar.panel`` calls it).

Settling is separate from the widgets so that a held round (``HeldRound``) runs the very splitter
its chunks were drawn with while the sidebar shows no splitter widget at all.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from app_pages.parts.access import upload_closed
from app_pages.parts.chunk_sets import chunk_sets, spec_title
from app_pages.parts.state import kind_changed, option_key, touched, update
from app_pages.parts.units import UNIT_LABELS, engine_spec, length_for, tokenizer_dir, uploaded_units
from inspector import SplitterSpec
from inspector.chunks import ChunkSetInfo
from inspector.errors import ChunkSetError, LengthError, SpecError
from inspector.kinds import KINDS, Kind, KindOptions, kind_named, kind_names
from inspector.lengths import LENGTH_NAMES, HFTokenizerLength
from inspector.limits import MAX_TOKENIZER_BYTES
from inspector.spec import DEFAULT_STAMP, IMPORTED, MAX_SPEC_LENGTH
from inspector.split import available_adapters
from inspector.views import (
    UPLOAD_UNIT,
    AppState,
    HeldRound,
    cuts_problem,
    menu_choice,
    menu_label,
    menu_value,
    transformers,
)
from inspector.views import markdown_escape as md

if TYPE_CHECKING:
    from app_pages.parts.context import Context


def splitter_widgets(ctx: Context) -> None:
    """The splitter widgets, and the spec they name settled onto ``ctx``."""
    sets = chunk_sets(ctx)
    options = [*kind_names(), *available_adapters(), *sets]
    if st.session_state.get("kind") not in options:
        if menu_choice(str(st.session_state.get("kind", "")))[0] == IMPORTED:
            options.append(st.session_state["kind"])  # named by a link; the check below says why it fails
        else:
            st.session_state["kind"] = ctx.state.kind if ctx.state.kind in options else "structured"
    choice = st.selectbox("Splitter", options, key="kind", on_change=kind_changed,
                          format_func=lambda o: menu_label(o, sets),
                          help=" ".join(f"{kind.name}: {kind.summary}." for kind in KINDS.values())
                          + " ext-…: an installed library's splitter (LangChain, Chonkie, semantic-text-splitter), "
                            "its offsets checked against the text. imported: chunks brought in on the Import "
                            "page, fixed as they were made.")
    kind, chunk_set = menu_choice(choice)
    imported = kind == IMPORTED
    units = [*LENGTH_NAMES, "upload"]
    unit_choice = st.selectbox("Unit", units, key="unit", format_func=UNIT_LABELS.get, on_change=touched,
                               help="What budget and overlap count.")
    fixed = " (imported chunks are fixed as they were made)" if imported else ""
    budget = st.number_input("Budget", min_value=0, max_value=1_000_000, step=50, key="budget",
                             on_change=touched, disabled=imported, help="Largest chunk, in the unit above." + fixed)
    own = kind_named(kind)
    similar = own is not None and bool(own.overlap_refusal)
    overlap = st.number_input("Overlap", min_value=0, max_value=1_000_000, step=10, key="overlap",
                              disabled=imported or similar, on_change=touched,
                              help="How much of each chunk the next one repeats." + fixed
                              + (f" (the {kind} chunker {own.overlap_refusal})" if similar else ""))
    prefix = st.checkbox("Prefix the heading path", key="heading_prefix", on_change=touched, disabled=imported,
                         help="Each chunk starts with its section's headings (counts against the budget)." + fixed)
    header = st.checkbox("Repeat the table header", key="table_header", on_change=touched, disabled=imported,
                         help="Chunks that start inside a table get its header row first." + fixed)
    address = st.checkbox("Stamp the address", key="address", on_change=touched, disabled=imported,
                          help="Each chunk starts with its document's title, heading path, version and date "
                               "(from the front matter); it replaces the heading path and counts against the "
                               "budget." + fixed)
    stamp = DEFAULT_STAMP
    if address and not imported:
        stamp = st.text_input("Stamp template", key="stamp", on_change=touched, max_chars=MAX_SPEC_LENGTH // 2,
                              help="Fields {title}, {path}, {version}, {updated}; text in [...] is left out "
                                   "when a field inside it has no value.") or DEFAULT_STAMP
    unit = unit_choice
    if unit_choice == "upload":
        unit = _tokenizer_upload(ctx)
    options = _option_widgets(own) if own is not None else None
    if imported:  # the splitter stays as it was, for when one is chosen again; the set counts in the unit
        try:
            ctx.state = update(chunk_set=chunk_set, splitter=replace(ctx.state.splitter, unit=unit or ctx.state.unit))
        except SpecError as exc:
            ctx.problem = ctx.problem or f"These splitter settings cannot run: {exc}."
            return
    else:
        try:
            splitter = SplitterSpec(kind, int(budget), unit or ctx.state.unit, 0 if similar else int(overlap),
                                    heading_prefix=None if prefix == SplitterSpec.path_default(kind) else prefix,
                                    table_header=None if header == SplitterSpec.header_default(kind, ctx.state.mode)
                                    else header, address=address, stamp=stamp, options=options)
        except SpecError as exc:
            ctx.problem = ctx.problem or f"These splitter settings cannot run: {exc}."
            return
        ctx.state = update(chunk_set="", splitter=splitter)
    if unit_choice == "upload" and not unit:
        ctx.problem = ctx.problem or "Upload a tokenizer.json to count in its tokens, or choose another unit."
        return
    _settle(ctx, ctx.state, sets)


def held_splitter(ctx: Context, held: HeldRound) -> None:
    """A held round's splitter settled onto ``ctx`` from its settings, with no widget drawn."""
    if UPLOAD_UNIT.match(held.state.unit) and held.state.unit not in uploaded_units():
        ctx.problem = ctx.problem or "The round's tokenizer is no longer on this server: start another round."
        return
    _settle(ctx, held.state, chunk_sets(ctx), caption=False)


def _settle(ctx: Context, s: AppState, sets: dict[str, ChunkSetInfo], *, caption: bool = True) -> None:
    """The spec ``s`` names, checked: set on ``ctx``, or the reason it cannot run as ``ctx.problem``."""
    problem = s.spec_problem()
    if problem:
        ctx.problem = ctx.problem or f"These splitter settings cannot run: {problem}."
        return
    spec = engine_spec(s.spec())
    if s.kind == IMPORTED and not _chunk_set_ready(ctx, s.chunk_set, sets.get(menu_value(s)), caption=caption):
        return
    try:
        ctx.length = length_for(spec.unit)
        ctx.spec = spec
    except LengthError as exc:
        ctx.problem = ctx.problem or f"The unit cannot be used: {exc}"
    if caption:
        st.caption(f"Spec `{s.spec()}` · {md(spec_title(s.spec(), sets))}")
    problem = cuts_problem(ctx.workspace, spec) if ctx.workspace is not None else None
    if problem:
        ctx.problem = ctx.problem or problem[0].upper() + problem[1:]
    if spec.context and ctx.workspace is not None:
        have, total = ctx.workspace.context_coverage(spec)
        if have < total:
            st.warning(md(f"{total - have:,} of {total:,} chunks have no context line from {spec.context_model}; "
                          "they are shown without one. Write the lines on the Fixes page or with "
                          "`chunk-inspector context`."))


def _option_widgets(kind: Kind) -> KindOptions:
    """The widgets the kind's controls describe, and the options they set."""
    values = {}
    for control in kind.controls:
        key, shown = option_key(control.field), control.default
        if control.widget == "toggle":
            value = st.checkbox(control.label, key=key, on_change=touched, help=control.help)
        elif control.widget == "number":
            value = int(st.number_input(control.label, min_value=control.low, max_value=control.high, key=key,
                                        on_change=touched, help=control.help))
        elif control.widget == "embedder":  # the server's transformer models besides those in packages
            value = st.selectbox(control.label, [*control.choices, *transformers()], key=key, on_change=touched,
                                 help=control.help)
        else:
            value = st.text_input(control.label, key=key, on_change=touched, max_chars=control.high,
                                  help=control.help).strip()
        values[control.field] = value
        if shown is not None and value == shown:
            del values[control.field]  # shown for the option's default, which the spec string leaves out
    return kind.options(**values)


def _chunk_set_ready(ctx: Context, set_id: str, info: ChunkSetInfo | None, *, caption: bool = True) -> bool:
    """Check that the imported set can be used on this corpus; say what it covers."""
    if ctx.workspace is None:
        return False
    try:
        ctx.workspace.chunk_set(set_id)
    except ChunkSetError as exc:
        ctx.problem = ctx.problem or f"The imported chunks cannot be used: {exc}"
        return False
    if info is not None and caption:
        total = len(ctx.workspace.documents)
        st.caption(md(f"{info.chunks:,} chunks from {info.name}, imported {info.created[:10]}, "
                      f"in {info.documents} of {total} documents."))
        if info.coverage(total):
            st.warning(info.coverage(total))
    return True


def _tokenizer_upload(ctx: Context) -> str | None:
    closed = upload_closed(ctx)
    file = st.file_uploader("tokenizer.json", type=["json"], key="tokenizer_upload", disabled=bool(closed),
                            help="A Hugging Face tokenizer.json, e.g. from your embedding model's folder.")
    if file is None:
        current = ctx.state.unit
        return current if UPLOAD_UNIT.match(current) and current in uploaded_units() else None
    data = file.getvalue()
    if len(data) > MAX_TOKENIZER_BYTES:
        st.error(f"{md(file.name)} is {len(data) / 1e6:.1f} MB; tokenizer files over "
                 f"{MAX_TOKENIZER_BYTES / 1e6:.0f} MB are refused.")
        return None
    try:
        HFTokenizerLength.from_json(data, file.name)
    except LengthError as exc:
        st.error(f"That tokenizer file cannot be used: {md(exc)}")
        return None
    digest = hashlib.sha256(data).hexdigest()[:16]
    target = Path(tokenizer_dir()) / f"{digest}.json"
    if not target.exists():
        target.write_bytes(data)
    return f"upload:{digest}"
