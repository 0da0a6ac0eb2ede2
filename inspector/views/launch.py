"""Which corpus the app opens, which folders it may read, what it may spend and which of the
user's vector stores it offers, from how it was started.

The command line (``chunk-inspector app PATH --allow-root PATH``, which hands Streamlit's
``-- --corpus PATH --allow-root PATH`` to the app) and the
environment (``CHUNK_INSPECTOR_CORPUS``, ``CHUNK_INSPECTOR_ROOTS``) name them; a link may open
only a folder under one of those roots or the bundled sample corpus. The spending policy
(``retrieval.spending``) comes from the environment too.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..access.roles import RoleRules, roles_from_environment
from ..corpus.sample import SAMPLE_CORPUS
from ..data_folder import data_folder
from ..errors import RolesError, SpecError
from ..measure.services import Services
from ..retrieval.remote import ENV_BASE_URL
from ..retrieval.rerank import ENV_URL as ENV_RERANK_URL
from ..retrieval.spending import SpendPolicy
from ..stores.address import StoreCredentials
from ..stores.served import ServedStore, served_stores
from .state import SAMPLE, AppState
from .stores import IndexSearch, index_search

#: Environment variables the app reads at start (AppTest sets these).
ENV_ROOTS, ENV_CORPUS = "CHUNK_INSPECTOR_ROOTS", "CHUNK_INSPECTOR_CORPUS"


@dataclass(frozen=True, slots=True)
class LaunchConfig:
    """What the app was started with: the default corpus and the folders it may read."""

    default_corpus: str = SAMPLE
    """The corpus shown when a link names none: ``sample`` or a folder."""

    roots: tuple[str, ...] = field(default=())
    """Folders (resolved) under which any folder may be opened as a corpus."""

    problems: tuple[str, ...] = ()
    """Start-up settings that were refused, to show in the app."""

    spend: SpendPolicy = field(default_factory=SpendPolicy)
    """What the app may spend on paid endpoints (the default allowances when the setting was refused)."""

    stores: tuple[ServedStore, ...] = ()
    """The user's own vector stores a visitor may read by name ("Your index")."""

    store_credentials: StoreCredentials = field(default_factory=StoreCredentials)
    """What the stores' clients are let in with (``CHUNK_INSPECTOR_STORE_KEY`` / ``_PASSWORD``)."""

    rerank_url: str = ""
    """The rerank server (``CHUNK_INSPECTOR_RERANK_URL``; empty: the service's own address)."""

    embeddings_url: str = ""
    """The OpenAI-compatible embeddings server (``OPENAI_BASE_URL``; empty: OpenAI's)."""

    roles: RoleRules = field(default_factory=RoleRules)
    """Who may do what (``CHUNK_INSPECTOR_ROLES``); none listed: everyone may do everything."""

    data: str = ""
    """The data folder (``CHUNK_INSPECTOR_DATA``, else the user's data directory): reviews, kept
    results, vectors."""

    @property
    def data_path(self) -> Path:
        """The data folder, as a path."""
        return Path(self.data)

    @property
    def services(self) -> Services:
        """What a corpus's workspace keeps and asks in this server."""
        return Services.in_folder(self.data, self.embeddings_url, self.rerank_url, stores=self.stores,
                                  spend=self.spend)

    @property
    def store_search(self) -> IndexSearch | None:
        """The stores it offers asked themselves (one per process and settings; None: it offers none)."""
        return index_search(self.stores, self.store_credentials, self.spend)

    def default_state(self) -> AppState:
        """The opening view under this configuration."""
        return AppState(corpus=self.default_corpus)


def launch_config(argv: Sequence[str], environ: Mapping[str, str]) -> LaunchConfig:
    """Read ``--corpus PATH`` and ``--allow-root PATH`` (repeatable) from the arguments after
    ``streamlit run app.py --``, and ``CHUNK_INSPECTOR_CORPUS`` / ``CHUNK_INSPECTOR_ROOTS``
    (``os.pathsep``-separated) from the environment; the command line wins for the corpus."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--corpus")
    parser.add_argument("--allow-root", action="append", default=[])
    parser.add_argument("--store", action="append", default=[])
    known, _ = parser.parse_known_args(list(argv))
    problems = []
    candidates = [r for r in environ.get(ENV_ROOTS, "").split(os.pathsep) if r.strip()] + known.allow_root
    corpus = known.corpus or environ.get(ENV_CORPUS, "").strip() or SAMPLE
    if corpus != SAMPLE:
        candidates.append(corpus)  # the folder the app was started on is allowed by that act
    roots = []
    for root in candidates:
        if os.path.isdir(root):
            roots.append(os.path.realpath(root))
        else:
            problems.append(f"Allowed root {root!r} is not a folder; ignored.")
    if corpus != SAMPLE and not os.path.isdir(corpus):
        problems.append(f"Corpus {corpus!r} given at start is not a folder; using the sample corpus.")
        corpus = SAMPLE
    try:
        spend = SpendPolicy.from_environment(environ)
    except SpecError as exc:
        problems.append(f"{exc}; the default allowances hold and no paid model may be named.")
        spend = SpendPolicy()
    stores, refused = served_stores(known.store, environ)
    problems += refused
    try:
        roles = roles_from_environment(environ)
    except RolesError as exc:
        # Refused roles must not open the server to everyone: nobody may do more than read.
        problems.append(f"{exc}; until it is mended everyone is a viewer.")
        roles = RoleRules(viewer=("*",))
    return LaunchConfig(corpus, tuple(dict.fromkeys(roots)), tuple(problems), spend, stores,
                        StoreCredentials.from_environment(environ), environ.get(ENV_RERANK_URL, "").strip(),
                        environ.get(ENV_BASE_URL, "").strip(), roles, str(data_folder(environ)))


def corpus_folder_problem(path: str, roots: Sequence[str]) -> str | None:
    """Why the folder ``path`` may not be opened (outside every allowed root, or not a folder)."""
    if not path.strip():
        return "no folder given"
    if "\x00" in path:
        return "a folder name cannot contain a NUL character"
    real = os.path.realpath(path)
    allowed = [os.path.realpath(SAMPLE_CORPUS), *roots]
    if not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in allowed):
        return (f"{path!r} is outside the folders this app may read. To allow it, start the app with "
                "chunk-inspector app --allow-root FOLDER, or set CHUNK_INSPECTOR_ROOTS.")
    if not os.path.isdir(real):
        return f"{path!r} is not a folder"
    return None

