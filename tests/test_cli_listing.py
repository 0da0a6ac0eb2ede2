"""``--files-from``: the reading step takes a list of paths (what an object-store listing would
hand over): the listed files are read, the rest of the folder is not, a listed path that cannot
be read is skipped with its reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from inspector import load_corpus
from inspector.cli import main
from tests.support.paths import ROOT, SAMPLE

LISTED = ["handbook/benefits-by-country.md", "# a comment", "", "guides/no-such-guide.md"]


def test_report_and_export_read_only_the_listed_files(tmp_path, capsys, isolated_app):
    known = [d.id for d in load_corpus(SAMPLE).documents]
    listing = tmp_path / "files.txt"
    listing.write_text("\n".join([known[0], *LISTED]) + "\n", encoding="utf-8")
    assert main(["report", str(SAMPLE), "--files-from", str(listing), "--json", "--quiet",
                 "--spec", "structured:800"]) == 0
    shown = capsys.readouterr()
    assert json.loads(shown.out)["corpus"]["documents"] == 2
    assert "skipped guides/no-such-guide.md: not found" in shown.err
    assert main(["export", str(SAMPLE), "--files-from", str(listing), "--spec", "fixed:800"]) == 0
    exported = {json.loads(line)["doc_id"] for line in capsys.readouterr().out.splitlines()}
    assert exported == {known[0], "handbook/benefits-by-country.md"}


def test_the_listing_can_come_from_standard_input(isolated_app):
    done = subprocess.run([sys.executable, "-m", "inspector", "export", str(SAMPLE), "--files-from", "-",
                           "--spec", "fixed:800"], cwd=ROOT, input=b"handbook/benefits-by-country.md\n",
                          capture_output=True, timeout=300,
                          env={**os.environ, "CHUNK_INSPECTOR_DATA": str(isolated_app)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert {json.loads(line)["doc_id"] for line in done.stdout.splitlines()} == {"handbook/benefits-by-country.md"}


def test_a_listing_that_cannot_serve_is_refused_with_the_reason(tmp_path, capsys, isolated_app):
    listing = tmp_path / "files.txt"
    listing.write_bytes(b"\xff\xfe")
    assert main(["export", str(SAMPLE), "--files-from", str(listing), "--spec", "fixed:800"]) == 2
    err = capsys.readouterr().err
    assert "cannot read the file list" in err and "not UTF-8" in err
    assert main(["export", str(SAMPLE), "--files-from", str(tmp_path / "none.txt"), "--spec", "fixed:800"]) == 2
    assert "no such file" in capsys.readouterr().err
    listing.write_text("a.md\n")
    assert main(["export", str(listing), "--files-from", str(listing), "--spec", "fixed:800"]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_a_listed_link_leading_out_of_the_corpus_folder_is_skipped_as_the_folder_walk_skips_it(tmp_path, capsys,
                                                                                                  isolated_app):
    corpus, outside = tmp_path / "docs", tmp_path / "private"
    (corpus / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nThe payroll key is 1234.\n", encoding="utf-8")
    (corpus / "kept.md").write_text("# Kept\n\nA sentence.\n", encoding="utf-8")
    (corpus / "inner.md").symlink_to(corpus / "kept.md")  # a link that stays inside is read
    (corpus / "leak.md").symlink_to(outside / "secret.md")
    (corpus / "sub" / "away").symlink_to(outside, target_is_directory=True)
    listing = tmp_path / "files.txt"
    listing.write_text("kept.md\ninner.md\nleak.md\nsub/away/secret.md\n", encoding="utf-8")
    assert main(["export", str(corpus), "--files-from", str(listing), "--spec", "fixed:800"]) == 0
    shown = capsys.readouterr()
    assert {json.loads(line)["doc_id"] for line in shown.out.splitlines()} == {"kept.md", "inner.md"}
    assert "payroll" not in shown.out
    for name in ("leak.md", "sub/away/secret.md"):
        assert f"skipped {name}: symbolic link pointing outside the corpus folder" in shown.err
