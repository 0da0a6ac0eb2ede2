"""The README is a guide for users and the details live in the docs site, whose generated pages
come from the code (the CLI reference from the parser, the performance page from bench/results)."""

from __future__ import annotations

import importlib.util
import re

from tests.support.paths import ROOT


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "scripts" / "docs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_short_and_its_links_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 250
    assert max(len(line) for line in text.splitlines()) < 400
    assert "python -m inspector" not in text
    for target in re.findall(r"\]\(((?:docs|sample_corpus)[^)#]*)\)", text):
        assert (ROOT / target).exists(), target


def test_every_docs_page_is_in_the_sites_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert [p for p in pages if f": {p}" not in nav] == []


def test_the_cli_reference_is_generated_from_the_parser():
    from inspector.cli import command_parsers

    reference = _hooks().cli_reference()
    _, commands = command_parsers()
    for name, parser in commands.items():
        assert f"## chunk-inspector {name}" in reference
        assert parser.format_usage().split("\n")[0][:40] in reference
    assert "<!-- cli-reference -->" in (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def test_the_performance_page_shows_what_the_benchmarks_wrote():
    results = _hooks().bench_results()
    for path in (ROOT / "bench" / "results").glob("*.json"):
        assert f"### {path.name}" in results
    assert "measured" in results
