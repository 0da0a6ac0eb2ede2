"""The library's architecture holds: rooms layered along the data flow, no cycle among a room's
modules, and an app that reaches the library only through its surfaces.

The contracts live in ``pyproject.toml`` (import-linter); ``docs/architecture.md`` draws them."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

SUBPACKAGES = {"corpus", "atoms", "split", "chunks", "retrieval", "context", "measure", "review", "reports", "tune",
               "views", "access",
               "integrations", "kinds"}


SHARED = {"model", "spec", "lengths", "errors", "data_folder", "limits", "csv_cells", "scratch"}


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
               "--no-cache", str(root / "pyproject.toml")]
    environment = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(command, cwd=root, capture_output=True, text=True, env=environment)


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def test_the_layers_and_acyclic_rooms_hold():
    shown = lint_imports(ROOT)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert shown.stdout.count("KEPT") == 3 and "BROKEN" not in shown.stdout


def with_import(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess:
    """The contracts checked on a copy of the library where ``module`` also imports ``line``."""
    shutil.copytree(ROOT / "inspector", tmp_path / "inspector", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    path = tmp_path / "inspector" / module
    path.write_text(path.read_text() + f"\n{line}  # noqa: E402,F401\n")
    return lint_imports(tmp_path)


def test_an_import_against_the_data_flow_breaks_the_contract(tmp_path):
    shown = with_import(tmp_path, "atoms/detect.py", "from ..views import render")
    assert shown.returncode == 1
    assert "rooms are layered along the data flow BROKEN" in shown.stdout
    assert "inspector.atoms.detect -> inspector.views.render" in shown.stdout


def test_argparse_below_the_command_line_breaks_the_contract(tmp_path):
    shown = with_import(tmp_path, "measure/sizes.py", "import argparse")
    assert shown.returncode == 1
    assert "Only the command line parses argv (and the app's launch, its own) BROKEN" in shown.stdout
    assert "inspector.measure.sizes -> argparse" in shown.stdout


def test_a_cycle_between_two_modules_of_a_room_breaks_the_contract(tmp_path):
    shown = with_import(tmp_path, "chunks/records.py", "from . import importer")
    assert shown.returncode == 1
    assert "imports its siblings in a cycle BROKEN" in shown.stdout


def test_the_app_imports_the_library_only_through_its_surfaces():
    files = [ROOT / "app.py", *sorted((ROOT / "app_pages").rglob("*.py"))]
    wrong = []
    for path in files:
        for line, module in _imports(path):
            top, _, rest = module.partition(".")
            if top in ("tests", "bench"):
                wrong.append(f"{path.name}:{line} imports {module}")
            elif top == "inspector" and rest and rest not in SUBPACKAGES | SHARED:
                wrong.append(f"{path.name}:{line} imports {module}, not a surface")
    assert wrong == []
    assert len(files) > 10


def test_no_module_imports_a_private_name_of_another():
    wrong = []
    for path in sorted((ROOT / "inspector").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                wrong += [f"{path.relative_to(ROOT)}:{node.lineno} {alias.name}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert wrong == []


#: What an engine is built with (``measure.services.OpenedServices`` and the served stores' search).
SERVICE_ATTRIBUTES = {"services", "chunk_set_store", "vector_folder", "embeddings_url", "rerank_url",
                      "question_store", "context_store", "split_answers", "analysis_store", "kept", "index_search",
                      "data"}


def _service_writes(path: Path, base: Path = ROOT) -> list[str]:
    """Assignments of a service attribute to an object other than ``self`` in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in (t for each in targets for t in ast.walk(each)):
            if isinstance(target, ast.Attribute) and target.attr in SERVICE_ATTRIBUTES and \
                    not (isinstance(target.value, ast.Name) and target.value.id == "self"):
                found.append(f"{path.relative_to(base)}:{node.lineno} .{target.attr}")
    return found


def test_no_service_is_wired_onto_an_engine_after_it_is_built(tmp_path):
    """An engine gets its services as it is built (``Workspace(corpus, mode, services)``); nothing
    in the library or the app assigns one afterwards."""
    sources = [*sorted((ROOT / "inspector").rglob("*.py")), *sorted((ROOT / "app_pages").rglob("*.py")),
               ROOT / "app.py"]
    assert [w for path in sources for w in _service_writes(path)] == []
    wired = tmp_path / "wired.py"
    wired.write_text("def open_it(workspace, url):\n    workspace.embeddings_url = url\n")
    assert _service_writes(wired, tmp_path) == ["wired.py:2 .embeddings_url"], "the check sees a wiring"


def test_argv_is_read_once_into_a_run_configuration():
    """Only the command line parses argv (and the app's launch, its own argv): argparse is
    imported by ``cli``'s parser, ``cli/config`` and the option groups of ``cli/options``, and its
    namespace is read in those two alone, into a ``RunConfig``; below the command line nothing sees it."""
    package = ROOT / "inspector"
    parsers = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                     if re.search(r"^\s*import argparse|^\s*from argparse", p.read_text(encoding="utf-8"), re.M))
    assert parsers == ["cli/__init__.py", "cli/config.py", "cli/options.py", "views/launch.py"]
    readers = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                     if "Namespace" in p.read_text(encoding="utf-8"))
    assert readers == ["cli/config.py", "cli/options.py"]
    below = [str(p.relative_to(package)) for p in package.rglob("*.py")
             if p.parent.name != "cli" and re.search(r"\bargs\.[a-z]", p.read_text(encoding="utf-8"))]
    assert below == []


def test_a_command_raises_its_refusal_and_the_entry_point_alone_turns_it_into_an_exit_status():
    """Commands and their helpers raise ``ArgumentRefused`` (or any ``InspectorError``); only
    ``cli.main`` prints one and returns 2, so no helper hands an exit status back up for its
    caller to test."""
    cli = ROOT / "inspector" / "cli"
    printing = sorted(p.name for p in cli.glob("*.py") if re.search(r"\bfail\(", p.read_text(encoding="utf-8")))
    assert printing == ["__init__.py", "output.py"]  # the entry point, and where ``fail`` is written
    handed_up = [p.name for p in cli.glob("*.py")
                 if re.search(r"isinstance\(\w+, int\)", p.read_text(encoding="utf-8"))]
    assert handed_up == []


def app_import_cycles(folder: Path) -> list[list[str]]:
    """The cycles among the app's modules (``orphan.rounds``, ``main``), counting imports inside
    functions too."""
    def name(path: Path) -> str:
        return ".".join(path.relative_to(folder).with_suffix("").parts)

    modules = {name(path) for path in folder.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        edges = graph.setdefault(name(path), set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "app_pages":
                inside = node.module.partition(".")[2]
                for alias in node.names:  # a module of the package, or a name from a module
                    edges.add(f"{inside}.{alias.name}".lstrip(".") if f"{inside}.{alias.name}".lstrip(".") in modules
                              else inside)
            elif isinstance(node, ast.Import):
                edges |= {alias.name.partition(".")[2] for alias in node.names if alias.name.startswith("app_pages.")}
        edges.discard("")
    cycles, done = [], set()

    def visit(module: str, trail: list[str]) -> None:
        if module in trail:
            cycles.append(trail[trail.index(module):] + [module])
            return
        if module in done:
            return
        for imported in sorted(graph.get(module, ())):
            visit(imported, [*trail, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    return cycles


def test_the_app_s_modules_import_each_other_in_no_circle(tmp_path):
    assert app_import_cycles(ROOT / "app_pages") == []
    # The check finds one: a helper importing back the module that imports it.
    shutil.copytree(ROOT / "app_pages", tmp_path / "app_pages", ignore=shutil.ignore_patterns("__pycache__"))
    caches = tmp_path / "app_pages" / "imports" / "caches.py"
    caches.write_text(caches.read_text() + "\n\ndef _late():\n    from app_pages.imports.files import GOLDEN_REFUSED\n")
    assert ["imports.caches", "imports.files", "imports.caches"] in app_import_cycles(tmp_path / "app_pages")
