"""``inspector.views.launch``: start-up settings, and folders outside the allowed roots refused."""

from __future__ import annotations

import os

from inspector.views.launch import ENV_CORPUS, ENV_ROOTS, SAMPLE_CORPUS, corpus_folder_problem, launch_config
from inspector.views.state import SAMPLE


def test_launch_config_reads_arguments_and_environment(tmp_path):
    a, b, c = (tmp_path / n for n in "abc")
    for folder in (a, b, c):
        folder.mkdir()
    config = launch_config(["--server.port=1", "--corpus", str(a), "--allow-root", str(b)],
                           {ENV_ROOTS: os.pathsep.join([str(c), str(tmp_path / "missing")])})
    assert config.default_corpus == str(a)
    assert set(config.roots) == {os.path.realpath(p) for p in (a, b, c)}
    assert len(config.problems) == 1 and "missing" in config.problems[0]
    assert config.default_state().corpus == str(a)


def test_launch_config_defaults_and_bad_corpus(tmp_path):
    assert launch_config([], {}) == launch_config(["-q", "tests"], {})
    assert launch_config([], {}).default_corpus == SAMPLE
    config = launch_config([], {ENV_CORPUS: str(tmp_path / "nope")})
    assert config.default_corpus == SAMPLE and "not a folder" in config.problems[0]


def test_folders_outside_the_allowed_roots_are_refused(tmp_path):
    inside, outside = tmp_path / "root" / "docs", tmp_path / "elsewhere"
    inside.mkdir(parents=True)
    outside.mkdir()
    roots = [os.path.realpath(tmp_path / "root")]
    assert corpus_folder_problem(str(inside), roots) is None
    assert corpus_folder_problem(str(SAMPLE_CORPUS), []) is None
    assert "outside the folders" in corpus_folder_problem(str(outside), roots)
    # "root2" shares a prefix with "root" but is not inside it.
    (tmp_path / "root2").mkdir()
    assert "outside" in corpus_folder_problem(str(tmp_path / "root2"), roots)
    assert "outside" in corpus_folder_problem(str(inside / ".." / ".." / "elsewhere"), roots)
    assert "not a folder" in corpus_folder_problem(str(inside / "missing"), roots)
    assert corpus_folder_problem("  ", roots) == "no folder given"


def test_symbolic_link_out_of_a_root_is_refused(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "escape").symlink_to(outside)
    assert "outside" in corpus_folder_problem(str(root / "escape"), [os.path.realpath(root)])


def test_a_folder_with_a_nul_character_is_refused_with_the_reason():
    assert corpus_folder_problem("docs\x00/../etc", []) == "a folder name cannot contain a NUL character"
