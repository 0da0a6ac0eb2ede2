"""``inspector.views.menu``: the splitter menu's values and names, through ``SplitterSpec``."""

from __future__ import annotations

from inspector import SplitterSpec
from inspector.chunks.sets import ChunkSetInfo
from inspector.views.menu import chunk_set_of, chunk_set_title, menu_choice, menu_label, menu_value
from inspector.views.state import AppState

SET_ID = "0123456789abcdef"
INFO = ChunkSetInfo(SET_ID, "mine.jsonl", "f" * 32, 1200, 7, "2026-01-02T03:04:05+00:00")
SETS = {f"imported:{SET_ID}": INFO}


def test_a_menu_value_is_a_kind_or_a_chunk_sets_spec():
    assert menu_choice("structured") == ("structured", "")
    assert menu_choice("ext-langchain") == ("ext-langchain", "")
    assert menu_choice(f"imported:{SET_ID}") == ("imported", SET_ID)
    assert menu_choice("imported:not-an-id") == ("imported:not-an-id", "")
    assert chunk_set_of(f"imported:{SET_ID}:cl100k") == SET_ID and chunk_set_of("fixed:800/100") == ""


def test_the_menu_value_of_settings_round_trips():
    for state in (AppState(), AppState(splitter=SplitterSpec("heading", 800)), AppState(chunk_set=SET_ID)):
        kind, chunk_set = menu_choice(menu_value(state))
        assert (kind, chunk_set) == (state.kind, state.chunk_set)


def test_names_of_stored_missing_and_built_in_choices():
    assert menu_label(f"imported:{SET_ID}", SETS) == "imported: mine.jsonl (1,200 chunks)"
    assert menu_label("imported:ffffffffffffffff", SETS) == "imported: ffffffffffffffff (not on this server)"
    assert menu_label("recursive", SETS) == "recursive"
    assert chunk_set_title(f"imported:{SET_ID}:o200k", SETS) == "imported: mine.jsonl"
    assert chunk_set_title("imported:ffffffffffffffff", SETS) == "imported ffffffff"
    assert chunk_set_title("structured:800", SETS) is None and chunk_set_title("structured", SETS) is None
