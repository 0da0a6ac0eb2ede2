"""Every file of a store byte-identical after it is read and asked itself, and a store on a
read-only mount read the same: Chroma's folder through SQLite's read-only mode, Qdrant's local
mode, LanceDB and Milvus Lite through their clients on a private copy that goes when they close."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from inspector.errors import StoreError
from inspector.stores import parse_store, read_store
from inspector.stores.private_copy import PrivateCopy
from tests.support import stores

FILLERS = {"chroma": stores.fill_chroma, "qdrant": stores.fill_qdrant, "lancedb": stores.fill_lancedb,
           "milvus": stores.fill_milvus}
QUESTIONS = ["Which port does replication use?", "How many days of parental leave are there?"]
#: Said when this machine cannot mount a folder read-only (not root, or no right to mount).
CANNOT_MOUNT = "mounting a folder read-only needs root"


@pytest.fixture(autouse=True)
def own_temporary_folder(tmp_path, monkeypatch):
    """Copies made where only this test looks (other tests copy stores at the same time)."""
    folder = tmp_path / "temporary"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))


def copies_left() -> set[str]:
    return {p for p in os.listdir(tempfile.gettempdir()) if p.startswith("chunk-inspector-store-")}


def exited(locations: list[str]) -> None:
    """What this process's exit does to the in-process servers of a store client still serving
    ``locations``: Milvus Lite stops each, writing the data it serves back to its file's folder."""
    lite = sys.modules.get("milvus_lite.server_manager")
    for location in locations if lite is not None else ():
        lite.server_manager_instance.release_server(location)


@contextlib.contextmanager
def read_only(folder: Path, at: Path):
    """``folder`` bind-mounted read-only at ``at``."""
    at.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "--bind", str(folder), str(at)], capture_output=True).returncode:
        pytest.skip(CANNOT_MOUNT)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(at)], check=True, capture_output=True)
        with pytest.raises(OSError):
            (at / "probe").write_text("x")
        yield at
    finally:
        subprocess.run(["umount", str(at)], check=True, capture_output=True)


@pytest.mark.parametrize("kind", list(FILLERS))
def test_a_store_read_and_asked_is_byte_identical_and_reads_the_same_from_a_read_only_mount(
        kind, handbook, chunks, tmp_path, monkeypatch):
    home = tmp_path / "store"
    home.mkdir()
    uri = FILLERS[kind](home / ("s.db" if kind == "milvus" else "s"), chunks)
    before, copies = stores.tree_digest(home), copies_left()
    made, copy = [], PrivateCopy.__init__

    def recorded(self, *args, **kwargs):  # each copy's location, for what the exit does to its server
        copy(self, *args, **kwargs)
        made.append(self.address.location)

    monkeypatch.setattr(PrivateCopy, "__init__", recorded)
    found = read_store(parse_store(uri), list(handbook.documents))
    ranked, retriever, _ = stores.asked(handbook, found, QUESTIONS)
    assert found.stored == len(chunks) and all(len(top) == 5 for top in ranked)
    del retriever
    assert stores.tree_digest(home) == before, "every file of the store byte-identical, none added"
    assert copies_left() == copies, "the private copies are gone"
    exited(made)
    assert copies_left() == copies, "and stay gone when the process exits"

    with read_only(home, tmp_path / "ro") as mounted:
        moved = uri.replace(str(home), str(mounted))
        again = read_store(parse_store(moved), list(handbook.documents))
        assert [(c.doc_id, c.start, c.end) for c in again.result.all_chunks()] == \
            [(c.doc_id, c.start, c.end) for c in found.result.all_chunks()]
        assert stores.asked(handbook, again, QUESTIONS)[0] == ranked
    assert stores.tree_digest(home) == before


def test_a_copy_over_its_bound_is_refused_before_anything_is_copied(chunks, tmp_path):
    uri = stores.fill_qdrant(tmp_path / "q", chunks)
    copies = copies_left()
    with pytest.raises(StoreError, match=r"read from a private copy, and its [\d,]+ MB are over the 0 MB such a copy"):
        PrivateCopy(parse_store(uri), limit=1)
    assert copies_left() == copies
    copy = PrivateCopy(parse_store(uri))
    assert sorted(stores.tree_digest(Path(copy.address.location)).values()) == \
        sorted(stores.tree_digest(tmp_path / "q").values())
    copy.close()
    assert not Path(copy.folder).exists()


def test_a_link_inside_a_store_is_not_copied_nor_written_through(chunks, tmp_path):
    uri = stores.fill_qdrant(tmp_path / "q", chunks)
    outside = tmp_path / "outside.txt"
    outside.write_text("the operator's file")
    (tmp_path / "q" / ".lock").unlink(missing_ok=True)
    (tmp_path / "q" / ".lock").symlink_to(outside)  # Qdrant's local mode writes its lock file there
    (tmp_path / "q" / "secrets").symlink_to(tmp_path / "outside.txt")
    found = read_store(parse_store(uri), [])
    assert found.stored == len(chunks)
    assert outside.read_text() == "the operator's file", "nothing written through a link"
    copy = PrivateCopy(parse_store(uri))
    assert not (Path(copy.address.location) / "secrets").exists(), "no link, and no file it points to, copied"
    copy.close()
