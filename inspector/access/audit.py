"""The audit trail: who opened which folder or store, who started which paid run (its calls,
tokens and price) and who deleted what, kept in the review store's file in the data folder
(the ``audit`` table) and read back by admins."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..review.database import ReviewDatabase, store_path
from ..review.postgres import PostgresDatabase, database_url
from .roles import Access


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One thing someone did that the operator may need to account for."""

    at: str
    """When, in UTC (ISO 8601, seconds)."""

    who: str
    """The person as the app names them (``Identity.label``)."""

    verified: bool
    """Whether they were signed in (else the name is what they typed, or nobody)."""

    role: str
    action: str
    """``open folder``, ``open store``, ``paid run``, ``delete round``, ..."""

    detail: dict = field(default_factory=dict)
    """What exactly: the folder, the store, the calls, tokens and price."""

    def as_row(self) -> dict:
        """A flat row for a table: the detail as ``key: value`` text."""
        return {"at": self.at, "who": self.who, "signed in": self.verified, "role": self.role,
                "action": self.action, "detail": "; ".join(f"{k}: {v}" for k, v in self.detail.items())}


class AuditQueries:
    """The ``audit`` table, asked of the review store's database through its ``_write`` and ``_read``."""

    def record(self, access: Access, action: str, **detail) -> AuditEntry:
        """Append one entry for ``access``'s person."""
        entry = AuditEntry(datetime.now(timezone.utc).isoformat(timespec="seconds"), access.identity.label,
                           access.identity.verified, access.role.word, action, detail)
        with self._write() as connection:
            connection.execute("INSERT INTO audit (at, who, verified, role, action, detail) VALUES (?, ?, ?, ?, ?, ?)",
                               (entry.at, entry.who, int(entry.verified), entry.role, entry.action,
                                json.dumps(detail, sort_keys=True, default=str)))
        return entry

    def recent(self, limit: int = 200) -> list[AuditEntry]:
        """The latest entries, newest first."""
        rows = self._read(f"SELECT at, who, verified, role, action, detail FROM audit ORDER BY {self.order} DESC "
                          "LIMIT ?", (int(limit),))
        return [AuditEntry(at, who, bool(verified), role, action, json.loads(detail))
                for at, who, verified, role, action, detail in rows]


class AuditTrail(AuditQueries, ReviewDatabase):
    """The ``audit`` table of the review store's SQLite file; share the object, never a connection."""


class PostgresAuditTrail(AuditQueries, PostgresDatabase):
    """The ``audit`` table of the review store's PostgreSQL database."""


def open_audit_trail(data: str | os.PathLike, environ: Mapping[str, str] | None = None) -> AuditQueries:
    """The server's audit trail, where its review store is (``review.open_review_store``)."""
    if database_url(environ):
        return PostgresAuditTrail.from_environment(environ)
    return AuditTrail(store_path(data))
