"""MkDocs hooks: the pages that are generated, never copied by hand.

- ``<!-- cli-reference -->`` becomes every command's ``--help``, from the argument parser itself.
- ``<!-- bench-results -->`` becomes the figures ``bench/run_all.py`` last wrote to ``bench/results/``.
- ``screenshots/NAME.png`` are the screenshots the browser tests took (``artifacts/screenshots/``);
  the build stops, naming the tests to run, when one a page shows is missing.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "artifacts" / "screenshots"
RESULTS = ROOT / "bench" / "results"
WANTED = re.compile(r"\(screenshots/([a-z0-9-]+\.png)\)")


def on_files(files, config):
    wanted = set()
    for page in Path(config["docs_dir"]).glob("*.md"):
        wanted |= set(WANTED.findall(page.read_text(encoding="utf-8")))
    missing = sorted(name for name in wanted if not (SHOTS / name).is_file())
    if missing:
        raise PluginError(f"screenshots missing from artifacts/screenshots: {', '.join(missing)}; the browser "
                          "tests take them (python -m pytest tests/browser)")
    for name in sorted(wanted):
        files.append(File.generated(config, f"screenshots/{name}", abs_src_path=str(SHOTS / name)))
    return files


def on_page_markdown(markdown, page, config, files):
    if "<!-- cli-reference -->" in markdown:
        markdown = markdown.replace("<!-- cli-reference -->", cli_reference())
    if "<!-- bench-results -->" in markdown:
        markdown = markdown.replace("<!-- bench-results -->", bench_results())
    return markdown


def cli_reference() -> str:
    """Each command's help as its parser prints it, at a fixed width."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from inspector.cli import command_parsers

    width, os.environ["COLUMNS"] = os.environ.get("COLUMNS"), "100"  # argparse wraps at $COLUMNS
    try:
        parser, commands = command_parsers()
        sections = [f"```text\n{parser.format_help()}```"]
        sections += [f"## chunk-inspector {name}\n\n```text\n{command.format_help()}```"
                     for name, command in commands.items()]
    finally:
        if width is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = width
    return "\n\n".join(sections)


def bench_results() -> str:
    """Each result file under its name, as the benchmark wrote it (dated, with the machine)."""
    sections = []
    for path in sorted(RESULTS.iterdir()):
        if path.suffix not in (".txt", ".json"):
            continue
        text = path.read_text(encoding="utf-8").rstrip()
        sections.append(f"### {path.name}\n\n```{'json' if path.suffix == '.json' else 'text'}\n{text}\n```")
    return "\n\n".join(sections)
