"""``inspector.corpus.load``: folder walks in both reading modes, skipped files, the entry points."""

from __future__ import annotations

import glob
import json
import os
import pathlib
import pickle
import random
import re
import subprocess
import sys
import tempfile

import pytest

from inspector.corpus.listing import SkippedFile, list_corpus, list_files
from inspector.corpus.load import (
    Corpus,
    Fingerprint,
    Reading,
    load_corpus,
    load_files,
    load_objects,
    load_uploads,
)
from inspector.corpus.read import read_text
from inspector.errors import CorpusError, InspectorError, SpecError
from inspector.model import Document
from tests.support.files import reasons, write
from tests.support.paths import ROOT

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def seed_reference(root):
    """The reference script, verbatim: what seed mode must reproduce."""
    out = []
    for p in sorted(glob.glob(os.path.join(root, "**", "*.md"), recursive=True)):
        text = open(p, encoding="utf-8").read()
        text = re.sub(r"^---\n.*?\n---\n", "", text, flags=re.S)
        out.append((os.path.relpath(p, root).replace(os.sep, "/"), text))
    return out


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "corpus"
    write(root, "a.md", "# Alpha\n\nText.\n")
    write(root, "sub/b.markdown", "no heading here\n")
    write(root, "sub/deeper/c.TXT", "## Second level\n\nbody\n")
    write(root, "sub/d.md", "---\ntitle: \"Delta doc\"\n---\nbody\n")
    write(root, "notes.rst", "not read\n")
    write(root, ".hidden.md", "hidden file\n")
    write(root, ".git/e.md", "hidden folder\n")
    write(root, "sub/.cache/f.md", "hidden nested folder\n")
    return root


def test_markdown_reads_suffixes_recursively_and_skips_hidden(tree):
    corpus = load_corpus(tree)
    assert [d.id for d in corpus] == ["a.md", "sub/b.markdown", "sub/d.md", "sub/deeper/c.TXT"]
    assert corpus.mode == "markdown"
    assert corpus.root == str(tree)
    assert corpus.skipped == ()
    assert [d.title for d in corpus] == ["Alpha", "b", "Delta doc", "Second level"]
    assert corpus.by_id("sub/d.md").text == "body\n"
    assert corpus.by_id("sub/d.md").meta == (("title", "Delta doc"),)
    assert corpus.by_id("a.md").source == str(tree / "a.md")


def test_empty_front_matter_and_empty_document_load(tmp_path):
    write(tmp_path, "empty.md", "---\n---\n")
    write(tmp_path, "blank.md", "")
    corpus = load_corpus(tmp_path)
    assert [(d.id, d.text, d.title) for d in corpus] == [("blank.md", "", "blank"), ("empty.md", "", "empty")]
    assert corpus.skipped == ()


def test_bad_files_are_skipped_with_reasons(tmp_path):
    root = tmp_path / "c"
    write(root, "good.md", "fine\n")
    write(root, "latin1.md", b"caf\xe9 ok" + b"\xff")
    write(root, "nul.txt", b"abc\x00def")
    write(root, "utf16.md", "hi".encode("utf-16"))
    write(root, "big.md", b"x" * 2000)
    write(tmp_path, "outside.md", "secret\n")
    os.symlink(tmp_path / "outside.md", root / "link_out.md")
    os.symlink(tmp_path, root / "dir_out")
    os.symlink(root / "missing.md", root / "broken.md")
    corpus = load_corpus(root, max_bytes=1000)
    assert [d.id for d in corpus] == ["good.md"]
    assert reasons(corpus) == {
        "latin1.md": "not UTF-8 text (invalid byte 0xe9 at offset 3)",
        "nul.txt": "binary file (contains NUL bytes)",
        "utf16.md": "not UTF-8 text (UTF-16 byte-order mark)",
        "big.md": "larger than the 1 kB limit (2 kB)",
        "link_out.md": "symbolic link pointing outside the corpus folder",
        "dir_out": "symbolic link pointing outside the corpus folder",
        "broken.md": "broken symbolic link",
    }
    assert all(isinstance(s, SkippedFile) for s in corpus.skipped)
    assert [s.path for s in corpus.skipped] == sorted(s.path for s in corpus.skipped)


def test_permission_denied_file_and_folder():
    # Root reads files whatever their mode, so as root the load runs in a child process that
    # has dropped to "nobody"; pytest's tmp_path sits in a root-only folder, hence /tmp.
    with tempfile.TemporaryDirectory() as name:
        root = pathlib.Path(name)
        root.chmod(0o755)
        write(root, "ok.md", "ok").chmod(0o644)
        write(root, "locked.md", "x").chmod(0)
        write(root, "sub/a.md", "a")
        (root / "sub").chmod(0)
        try:
            if IS_ROOT:
                code = (
                    "import json, os, sys\n"
                    "from inspector.corpus.load import load_corpus\n"
                    "os.seteuid(65534)\n"
                    "c = load_corpus(sys.argv[1])\n"
                    "print(json.dumps([[d.id for d in c], {s.path: s.reason for s in c.skipped}]))\n"
                )
                repo = str(ROOT)
                out = subprocess.run(
                    [sys.executable, "-c", code, name], cwd=repo, capture_output=True, text=True, check=True
                ).stdout
                ids, skipped = json.loads(out)
            else:
                corpus = load_corpus(root)
                ids, skipped = [d.id for d in corpus], reasons(corpus)
        finally:
            (root / "sub").chmod(0o755)
    assert ids == ["ok.md"]
    assert skipped == {"locked.md": "unreadable: permission denied", "sub": "unreadable folder: permission denied"}


def test_fifo_is_skipped_without_blocking(tmp_path):
    write(tmp_path, "ok.md", "ok")
    os.mkfifo(tmp_path / "pipe.md")
    assert reasons(load_corpus(tmp_path)) == {"pipe.md": "not a regular file"}


def test_symlinks_inside_the_root_load(tmp_path):
    write(tmp_path, "real/a.md", "A\n")
    os.symlink(tmp_path / "real" / "a.md", tmp_path / "alias.md")
    os.symlink(tmp_path / "real", tmp_path / "mirror")
    os.symlink(tmp_path, tmp_path / "real" / "loop")  # a cycle: must terminate
    corpus = load_corpus(tmp_path)
    assert [d.id for d in corpus] == ["alias.md", "mirror/a.md", "real/a.md"]
    assert reasons(corpus) == {
        "mirror/loop": "symbolic link loop (points to an enclosing folder)",
        "real/loop": "symbolic link loop (points to an enclosing folder)",
    }


def test_folder_with_nothing_loadable_is_an_empty_corpus(tmp_path):
    write(tmp_path, "bad.md", b"\xff")
    corpus = load_corpus(tmp_path)
    assert len(corpus) == 0 and corpus.documents == ()
    assert reasons(corpus) == {"bad.md": "not UTF-8 text (invalid byte 0xff at offset 0)"}


def test_empty_folder(tmp_path):
    corpus = load_corpus(tmp_path)
    assert corpus.documents == () and corpus.skipped == () and corpus.characters == 0


def test_seed_reads_only_md_and_matches_glob_order(tree):
    write(tree, "sub/UPPER.MD", "not matched by *.md\n")
    write(tree, "Z.md", "capital sorts first\n")
    write(tree, "sub-dash/x.md", "'-' sorts before '/'\n")
    os.symlink(tree / "sub", tree / "via_link")
    corpus = load_corpus(tree, mode="seed")
    expected = seed_reference(str(tree))
    assert [d.id for d in corpus] == [rel for rel, _ in expected]
    assert [d.text for d in corpus] == [text for _, text in expected]
    # Sorting relative paths gives the order of sorting the full paths glob returns.
    full = sorted(glob.glob(os.path.join(str(tree), "**", "*.md"), recursive=True))
    assert [os.path.join(str(tree), *d.id.split("/")) for d in corpus] == full
    assert all(d.id.endswith(".md") for d in corpus)


def test_seed_text_equals_reference_on_generated_corpus(tmp_path):
    rng = random.Random(1234)
    pieces = ["---", "\n", "\r\n", "\r", "title: t", "...", "# H", "text", " ", "é", "\ufeff", "+++", "```"]
    for i in range(60):
        body = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        if rng.random() < 0.4:
            body = rng.choice(["---\n", "---\r\n", "\ufeff---\n"]) + body
        folder = rng.choice(["", "a/", "a/b/", "c d/", "a-b/"])
        write(tmp_path, f"{folder}f{i}.md", body)
    corpus = load_corpus(tmp_path, mode="seed")
    assert [(d.id, d.text) for d in corpus] == seed_reference(str(tmp_path))
    assert corpus.skipped == ()


def test_seed_skips_non_utf8_instead_of_crashing(tmp_path):
    write(tmp_path, "ok.md", "ok")
    write(tmp_path, "bad.md", b"ok\x80")
    corpus = load_corpus(tmp_path, mode="seed")
    assert [d.id for d in corpus] == ["ok.md"]
    assert reasons(corpus) == {"bad.md": "not UTF-8 text (invalid byte 0x80 at offset 2)"}


def test_seed_folder_named_like_a_document(tmp_path):
    write(tmp_path, "odd.md/inner.md", "x")
    corpus = load_corpus(tmp_path, mode="seed")
    assert [d.id for d in corpus] == ["odd.md/inner.md"]
    assert reasons(corpus) == {"odd.md": "a folder, not a file"}
    assert load_corpus(tmp_path).skipped == ()


def test_single_file(tmp_path):
    path = write(tmp_path, "dir/.hidden.rst", "# T\n")
    corpus = load_corpus(path)
    assert corpus.root == str(tmp_path / "dir")
    assert [d.id for d in corpus] == [".hidden.rst"]


def test_missing_and_special_paths_raise(tmp_path):
    with pytest.raises(CorpusError, match="not found") as info:
        load_corpus(tmp_path / "nope")
    assert isinstance(info.value, OSError) and isinstance(info.value, InspectorError)
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(CorpusError, match="neither a folder nor a file"):
        load_corpus(tmp_path / "pipe")


def test_bad_settings_raise(tmp_path):
    with pytest.raises(SpecError, match="reading mode"):
        load_corpus(tmp_path, mode="html")
    with pytest.raises(SpecError, match="max_bytes"):
        load_corpus(tmp_path, max_bytes=0)
    with pytest.raises(SpecError):
        read_text(b"", "nope")


def test_load_files(tmp_path):
    a = write(tmp_path, "x/one.md", "1")
    b = write(tmp_path, "x/y/two.txt", "2")
    corpus = load_files([b, a, a])
    assert corpus.root == str(tmp_path / "x")
    assert [d.id for d in corpus] == ["one.md", "y/two.txt"]
    assert [d.id for d in load_files([a], root=tmp_path)] == ["x/one.md"]
    assert len(load_files([])) == 0


def test_a_listed_path_that_cannot_be_read_is_skipped_with_its_reason_and_the_rest_loads(tmp_path):
    a = write(tmp_path, "x/one.md", "1")
    (tmp_path / "x" / "folder").mkdir()
    corpus = load_files(["one.md", "gone.md", "folder", tmp_path / "outside.md", "../x/one.md"], root=tmp_path / "x")
    assert [d.id for d in corpus] == ["one.md"] and corpus.documents[0].text == "1"
    assert reasons(corpus) == {"gone.md": "not found", "folder": "not a file",
                               str(tmp_path / "outside.md"): f"not inside the corpus folder {tmp_path / 'x'}"}
    assert load_files([a], root=tmp_path / "x" / "y").skipped[0].reason.startswith("not inside")


def test_load_files_skips_bad_content(tmp_path):
    a = write(tmp_path, "one.md", "1")
    b = write(tmp_path, "two.md", b"\x00")
    corpus = load_files([a, b], mode="seed")
    assert [d.id for d in corpus] == ["one.md"]
    assert reasons(corpus) == {"two.md": "binary file (contains NUL bytes)"}


def test_uploads_with_clashing_names():
    corpus = load_uploads(
        [
            ("notes.md", b"first"),
            ("b.md", b"\xef\xbb\xbfbom"),
            ("notes.md", b"second"),
            ("notes (2).md", b"real name"),
            ("notes.md", b"third"),
            ("README", b"x"),
            ("README", b"\x00"),
            ("big.md", b"x" * 50),
        ],
        max_bytes=40,
    )
    assert corpus.root == ""
    assert [(d.id, d.text) for d in corpus] == [
        ("README", "x"),
        ("b.md", "bom"),
        ("notes (2).md", "real name"),
        ("notes (3).md", "second"),
        ("notes (4).md", "third"),
        ("notes.md", "first"),
    ]
    assert reasons(corpus) == {
        "README (2)": "binary file (contains NUL bytes)",
        "big.md": "larger than the 40 bytes limit (50 bytes)",
    }
    assert load_uploads([("b.md", b"\xef\xbb\xbfbom")], mode="seed").by_id("b.md").text == "\ufeffbom"


def test_objects_are_read_one_at_a_time_from_a_generator_and_let_go():
    """What an object store's reader would hand over: (key, bytes) pairs, fetched lazily."""
    held: list[int] = []

    def listing():
        previous = None
        for key, data in [("docs/a.md", b"# A\n\nalpha"), ("docs/b.pdf", b"not a pdf"), ("docs/a.md", b"again"),
                          ("docs/c.txt", b"gamma"), ("docs/big.md", b"x" * 50)]:
            if previous is not None:
                held.append(sys.getrefcount(previous) - 2)  # references besides ``previous`` and the call's
            previous = bytes(bytearray(data))  # a fresh object per fetch
            yield key, previous

    corpus = load_objects(listing(), max_bytes=40)
    assert [(d.id, d.text) for d in corpus] == [("docs/a.md", "# A\n\nalpha"), ("docs/c.txt", "gamma")]
    assert set(reasons(corpus)) == {"docs/b.pdf", "docs/a.md", "docs/big.md"}
    assert reasons(corpus)["docs/a.md"] == "the same key was given twice; the first object was read"
    assert held == [0, 0, 0, 0]  # no object's bytes were kept once the next was asked for


def test_corpus_helpers(tmp_path):
    write(tmp_path, "a.md", "aa")
    write(tmp_path, "b.md", "bbb")
    corpus = load_corpus(tmp_path)
    assert len(corpus) == 2
    assert [d.id for d in iter(corpus)] == ["a.md", "b.md"]
    assert corpus.characters == 5
    assert corpus.by_id("b.md").text == "bbb"
    with pytest.raises(KeyError):
        corpus.by_id("c.md")
    fp = corpus.fingerprint
    assert re.fullmatch(r"[0-9a-f]{32}", fp)
    assert load_corpus(tmp_path).fingerprint == fp == corpus.fingerprint
    write(tmp_path, "b.md", "bbc")
    assert load_corpus(tmp_path).fingerprint != fp
    joined = Corpus("", (Document("a", "bc"),), (), "markdown")
    split = Corpus("", (Document("ab", "c"),), (), "markdown")
    assert joined.fingerprint != split.fingerprint
    clone = pickle.loads(pickle.dumps(corpus))
    assert clone == corpus and clone.by_id("a.md").text == "aa" and clone.fingerprint == fp


def test_many_files_load(tmp_path):
    for i in range(2000):
        write(tmp_path, f"d{i % 20}/f{i}.md", f"# Doc {i}\n\ntext\n")
    corpus = load_corpus(tmp_path)
    assert len(corpus) == 2000 and corpus.skipped == ()


def test_a_path_with_a_nul_character_is_refused_not_raised(tmp_path):
    with pytest.raises(CorpusError, match="NUL character"):
        load_corpus(str(tmp_path) + "\x00x")
    write(tmp_path, "ok.md", "# Fine\n")
    corpus = load_files([tmp_path / "ok.md", str(tmp_path / "bad") + "\x00.md"])
    assert [d.id for d in corpus] == ["ok.md"]
    assert [s.reason for s in corpus.skipped] == ["a path cannot contain a NUL character"]


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_a_listing_read_file_by_file_is_the_corpus_a_load_reads(tmp_path, mode):
    """What ``--engine ray`` does: the files listed on one machine, read one by one elsewhere."""
    for rel, data in {"b.md": "# B\n\nText.\n", "a/c.md": "---\ntitle: C\n---\nBody.\n", "bad.md": b"x\x00y",
                      ".hidden.md": "no", "notes.txt": "plain\n"}.items():
        write(tmp_path, rel, data)
    listing = list_corpus(tmp_path, mode=mode)
    assert [doc_id for doc_id, _ in listing.entries] == sorted(doc_id for doc_id, _ in listing.entries)
    reading = Reading(mode)
    found = [reading.read(doc_id, path) for doc_id, path in listing.entries]
    corpus = load_corpus(tmp_path, mode=mode)
    assert tuple(f for f in found if isinstance(f, Document)) == corpus.documents
    assert tuple(sorted([*listing.skipped, *(f for f in found if isinstance(f, SkippedFile))])) == corpus.skipped
    fingerprint = Fingerprint()
    for document in corpus.documents:
        fingerprint.add(document)
    assert fingerprint.hexdigest() == corpus.fingerprint
    assert list_files([tmp_path / "b.md", tmp_path / "nope.md"], root=tmp_path).skipped[0].reason == "not found"
