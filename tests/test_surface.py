"""The package surfaces (``inspector/__init__`` and each subpackage's): every advertised name
resolves, and importing a surface stays cheap (names load their modules on first use)."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import inspector
from tests.support.paths import ROOT

SUBPACKAGES = ("corpus", "atoms", "split", "chunks", "retrieval", "context", "measure", "review", "reports", "views",
               "integrations")


def test_every_public_name_resolves_and_is_listed():
    assert sorted(inspector.__all__) == sorted(set(inspector.__all__))
    for name in inspector.__all__:
        assert getattr(inspector, name) is not None, name
    assert set(inspector.__all__) <= set(dir(inspector))
    assert 20 <= len(inspector.__all__) <= 30, "the top-level surface stays small and deliberate"
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        inspector.nothing_here  # noqa: B018


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_subpackage_surface_resolves(name):
    package = importlib.import_module(f"inspector.{name}")
    assert package.__doc__ and package.__all__ == sorted(set(package.__all__))
    for public in package.__all__:
        value = getattr(package, public)
        assert value is not None and not public.startswith("_"), public
    with pytest.raises(AttributeError):
        package.nothing_here  # noqa: B018


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_importing_a_subpackage_loads_none_of_its_modules(name):
    code = (f"import sys, inspector.{name} as p; print(sorted(m for m in sys.modules "
            f"if m.startswith('inspector.{name}.')))")
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_importing_the_package_loads_no_heavy_module():
    code = ("import sys, inspector; heavy = {'numpy', 'sqlite3', 'tiktoken', 'tokenizers', 'streamlit', 'pandas'};"
            "print(sorted(heavy & set(sys.modules)))")
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_a_lazy_surface_loads_its_module_on_first_use_only(tmp_path, monkeypatch):
    package = tmp_path / "lazy_demo"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from inspector.surface import lazy_surface\n"
        "__getattr__, __dir__, __all__ = lazy_surface(__name__, {'heavy': ['VALUE']})\n")
    (package / "heavy.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    demo = importlib.import_module("lazy_demo")
    assert demo.__all__ == ["VALUE"] and "lazy_demo.heavy" not in sys.modules
    assert "VALUE" in dir(demo)
    assert demo.VALUE == 42 and "lazy_demo.heavy" in sys.modules
    assert "VALUE" in vars(demo), "found directly the next time"
    with pytest.raises(AttributeError, match="'lazy_demo' has no attribute 'OTHER'"):
        demo.OTHER  # noqa: B018


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_no_public_name_is_also_a_module_of_its_room(name):
    # Importing the module inspector.room.x would replace the surface's name x by the module.
    package = importlib.import_module(f"inspector.{name}")
    modules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert set(package.__all__) & modules == set()
