"""A data folder damaged on disk costs time, never a wrong number or a traceback: values with
flipped bytes, values moved between rows, and files with flipped bytes give the report a fresh
data folder gives, byte for byte, with a note."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys

import pytest

from inspector.context.store import ContextStore
from tests.support.paths import ROOT, SAMPLE

#: store -> (table, key columns, value column)
TABLES = {"analyses.sqlite3": ("analyses", ("key",), "plain"), "kept.sqlite3": ("kept", ("key",), "plain"),
          "embeddings.sqlite3": ("vectors", ("model", "digest"), "vector")}
ARGS = ["report", str(SAMPLE / "handbook"), "--spec", "fixed:800", "--spec", "structured:800", "--budgets", "400",
        "--retriever", "hybrid", "--engine", "memory", "--jobs", "1", "--json", "--quiet"]


def _report(capsys, monkeypatch, folder) -> tuple[str, str]:
    """The report and what was said, by a process of its own (as every run reads the stores)."""
    done = subprocess.run([sys.executable, "-m", "inspector", *ARGS], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "CHUNK_INSPECTOR_DATA": str(folder)}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


def _damage_values(path, table: str, keys: tuple[str, ...], value: str, rng: random.Random) -> int:
    """Flip a byte in a third of the values and swap the values of another third between rows."""
    connection = sqlite3.connect(path)
    with connection:
        rows = connection.execute(f"SELECT {', '.join(keys)}, {value} FROM {table}").fetchall()
        rng.shuffle(rows)
        third = len(rows) // 3
        where = " AND ".join(f"{k} = ?" for k in keys)
        for *key, blob in rows[:third]:
            damaged = bytearray(blob)
            damaged[rng.randrange(len(damaged))] ^= 0x5A
            connection.execute(f"UPDATE {table} SET {value} = ? WHERE {where}", (bytes(damaged), *key))
        moved = rows[third:2 * third]
        for (*key, _), (*_, blob) in zip(moved, moved[1:] + moved[:1]):
            connection.execute(f"UPDATE {table} SET {value} = ? WHERE {where}", (blob, *key))
    connection.close()
    return 2 * third


def test_flipped_and_moved_values_give_the_fresh_report_with_a_note(tmp_path, capsys, monkeypatch):
    fresh, _ = _report(capsys, monkeypatch, tmp_path / "fresh")
    folder = tmp_path / "kept"
    assert _report(capsys, monkeypatch, folder)[0] == fresh
    rng = random.Random(33)
    touched = {name: _damage_values(folder / name, *TABLES[name], rng) for name in TABLES}
    assert all(count > 0 for count in touched.values()), touched
    again, err = _report(capsys, monkeypatch, folder)
    assert again == fresh
    for name in TABLES:
        assert f"of {name} in the data folder were set aside and computed again" in err, err
    assert "Traceback" not in err
    # Set aside means gone: the next run reads only sound rows and has nothing to say.
    third, err = _report(capsys, monkeypatch, folder)
    assert third == fresh and "damaged" not in err


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_files_with_flipped_bytes_give_the_fresh_report(tmp_path, capsys, monkeypatch, seed):
    fresh, _ = _report(capsys, monkeypatch, tmp_path / "fresh")
    folder = tmp_path / "kept"
    _report(capsys, monkeypatch, folder)
    rng = random.Random(seed)
    for name in TABLES:
        connection = sqlite3.connect(folder / name)
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        data = bytearray((folder / name).read_bytes())
        for _ in range(40):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        (folder / name).write_bytes(bytes(data))
    again, err = _report(capsys, monkeypatch, folder)
    assert again == fresh and "Traceback" not in err


def test_a_damaged_context_line_is_set_aside_and_counted_missing(tmp_path):
    store = ContextStore(tmp_path)
    store.put("m", "doc", [(0, 10, "The first chunk's line."), (10, 20, "The second chunk's line.")])
    shutil.copy(store.path, tmp_path / "copy.sqlite3")
    connection = sqlite3.connect(store.path)
    with connection:
        connection.execute("UPDATE lines SET line = 'A line someone changed.' WHERE start = 0")
        connection.execute("UPDATE lines SET end = 15 WHERE start = 10")  # moved to another chunk
    connection.close()
    assert store.lines("m", "doc") == {}
    assert store.count() == 0
    assert ContextStore(tmp_path / "copy.sqlite3").lines("m", "doc") == {(0, 10): "The first chunk's line.",
                                                                          (10, 20): "The second chunk's line."}


def test_lines_kept_before_lines_were_sealed_are_sealed_as_they_are(tmp_path):
    path = tmp_path / "context-lines.sqlite3"
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("CREATE TABLE lines (model TEXT NOT NULL, document TEXT NOT NULL, start INTEGER NOT NULL, "
                           "end INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (model, document, start, end))")
        connection.execute("INSERT INTO lines VALUES ('m', 'doc', 0, 10, 'Paid for once.')")
    connection.close()
    assert ContextStore(tmp_path).lines("m", "doc") == {(0, 10): "Paid for once."}
