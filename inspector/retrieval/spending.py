"""What the app may spend on paid endpoints (embeddings, chat), and what it has spent.

Spending is the operator's decision, read once from the server's environment into a frozen
``SpendPolicy``:

- ``CHUNK_INSPECTOR_SPEND_LIMIT``: allowances such as ``50000 texts/hour; 10000 texts/session``
  (or ``tokens``): server-wide in any rolling hour, and for one browser session;
  default ``DEFAULT_LIMIT``;
- ``CHUNK_INSPECTOR_CONFIRM_ABOVE``: a run estimated above this (``1000 texts``) asks for a click;
- ``CHUNK_INSPECTOR_PRICES``: dollars per million tokens, ``model=input`` or ``model=input/output``,
  separated by ``;``;
- ``CHUNK_INSPECTOR_EMBED_MODELS``: the only embeddings models a link may name (comma-separated);
  a link names no other. No link names a chat model: context lines are written with the server's
  own ``CHUNK_INSPECTOR_CONTEXT_MODEL``, and a link's ``llm=MODEL`` only reads what was kept.

A ``SpendLedger`` (SQLite in the data folder, shared by the server's processes) records every
request before it is sent and refuses one that would go over an allowance (``SpendRefused``).
An admin may raise an allowance from the app (``raise_allowance``): a raise of an hourly
allowance holds for the hour after it, one of the session allowance for every session.
``charge`` is what the clients call: it charges the ledger ``install`` set up in this process,
and does nothing where none was (the command line, run by the operator).
"""

from __future__ import annotations

import contextvars
import os
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..data_folder import use_wal
from ..errors import SpecError, SpendRefused

ENV_LIMIT = "CHUNK_INSPECTOR_SPEND_LIMIT"
ENV_CONFIRM = "CHUNK_INSPECTOR_CONFIRM_ABOVE"
ENV_PRICES = "CHUNK_INSPECTOR_PRICES"
ENV_EMBED_MODELS = "CHUNK_INSPECTOR_EMBED_MODELS"
DEFAULT_LIMIT = "50000 texts/hour; 10000 texts/session"
DEFAULT_CONFIRM = "1000 texts"
UNITS = ("texts", "tokens")
PERIODS = ("hour", "session")
STORE_NAME = "spending.sqlite3"
_ALLOWANCE = re.compile(r"\s*([0-9][0-9_,]{0,14})\s+(texts|tokens)\s*(?:/\s*(hour|session))?\s*\Z")
_MODEL = re.compile(r"[\w.:/@+-]{1,200}\Z")


@dataclass(frozen=True, slots=True)
class Allowance:
    """So many texts (requests' inputs) or tokens (o200k), per hour, per session or per run."""

    amount: int
    unit: str = "texts"
    per: str = ""
    """``hour``, ``session``, or empty: one run (a confirmation threshold)."""

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise SpecError(problem)

    def problem(self) -> str:
        if isinstance(self.amount, bool) or not isinstance(self.amount, int) or self.amount < 0:
            return f"an allowance is a whole number of texts or tokens, not {self.amount!r}"
        if self.unit not in UNITS:
            return f"an allowance counts {' or '.join(UNITS)}, not {self.unit!r}"
        if self.per not in ("", *PERIODS):
            return f"an allowance is per {' or per '.join(PERIODS)}, not per {self.per!r}"
        return ""

    def __str__(self) -> str:
        return f"{self.amount} {self.unit}" + (f"/{self.per}" if self.per else "")

    @classmethod
    def parse(cls, text: str) -> "Allowance":
        match = _ALLOWANCE.match(text)
        if not match:
            raise SpecError(f"cannot read the allowance {text[:60]!r}: write it as 50000 texts/hour, "
                            "10000 tokens/session or 1000 texts")
        return cls(int(match.group(1).replace(",", "").replace("_", "")), match.group(2), match.group(3) or "")

    def of(self, texts: int, tokens: int) -> int:
        """How much of this allowance ``texts`` texts of ``tokens`` tokens take."""
        return texts if self.unit == "texts" else tokens


@dataclass(frozen=True, slots=True)
class Price:
    """Dollars per million tokens."""

    input: float
    output: float = 0.0


@dataclass(frozen=True, slots=True)
class SpendPolicy:
    """What the server may spend, read once from its environment (``from_environment``)."""

    limits: tuple[Allowance, ...] = field(default_factory=lambda: tuple(
        Allowance.parse(part) for part in DEFAULT_LIMIT.split(";")))
    confirm_above: Allowance = field(default_factory=lambda: Allowance.parse(DEFAULT_CONFIRM))
    prices: tuple[tuple[str, Price], ...] = ()
    embed_models: tuple[str, ...] = ()

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> "SpendPolicy":
        """The policy the environment sets; ``SpecError`` naming the variable when one cannot be read."""
        environ = os.environ if environ is None else environ
        try:
            limits = tuple(Allowance.parse(part) for part in (environ.get(ENV_LIMIT) or DEFAULT_LIMIT).split(";")
                           if part.strip())
            if any(not a.per for a in limits):
                raise SpecError("each allowance is per hour or per session, e.g. 50000 texts/hour")
        except SpecError as exc:
            raise SpecError(f"{ENV_LIMIT}: {exc}") from None
        try:
            confirm = Allowance.parse(environ.get(ENV_CONFIRM) or DEFAULT_CONFIRM)
        except SpecError as exc:
            raise SpecError(f"{ENV_CONFIRM}: {exc}") from None
        return cls(limits, confirm, _prices(environ.get(ENV_PRICES, "")), _models(environ, ENV_EMBED_MODELS))

    def price(self, model: str) -> Price | None:
        """What ``model`` costs, when the operator said."""
        return dict(self.prices).get(model)

    def cost(self, model: str, tokens_in: int, tokens_out: int = 0) -> float | None:
        """Dollars for so many tokens of ``model``; None without its price."""
        price = self.price(model)
        if price is None:
            return None
        return (tokens_in * price.input + tokens_out * price.output) / 1_000_000

    def model_problem(self, model: str) -> str:
        """Why a link may not name the embeddings model ``model``, or empty."""
        allowed = self.embed_models
        if model in allowed:
            return ""
        if not allowed:
            return f"this server names no embeddings model a link may use (set {ENV_EMBED_MODELS})"
        return f"this server allows the embeddings models {', '.join(allowed)}; a link cannot name {model!r}"


def _prices(text: str) -> tuple[tuple[str, Price], ...]:
    found = []
    for part in filter(str.strip, text.split(";")):
        model, _, values = part.partition("=")
        numbers = values.split("/")
        try:
            amounts = [float(n) for n in numbers]
            ok = 1 <= len(amounts) <= 2 and all(0 <= a <= 1_000_000 for a in amounts) and _MODEL.match(model.strip())
        except ValueError:
            ok = False
        if not ok:
            raise SpecError(f"{ENV_PRICES}: cannot read {part.strip()[:60]!r}: write model=input or "
                            "model=input/output, dollars per million tokens")
        found.append((model.strip(), Price(*amounts)))
    return tuple(found)


def _models(environ: Mapping[str, str], variable: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in environ.get(variable, "").split(",") if name.strip())
    for name in names:
        if not _MODEL.match(name):
            raise SpecError(f"{variable}: {name[:60]!r} is not a model name")
    return names


class SpendLedger:
    """Every request the server's processes sent to a paid endpoint, in ``folder/spending.sqlite3``."""

    def __init__(self, folder: str | os.PathLike, policy: SpendPolicy) -> None:
        self.path = Path(folder) / STORE_NAME
        self.policy = policy
        self._local = threading.local()

    def _connection(self):
        import sqlite3

        held = getattr(self._local, "held", None)
        if held is None or held[0] != os.getpid():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            use_wal(connection)
            connection.execute("CREATE TABLE IF NOT EXISTS spent (at REAL NOT NULL, service TEXT NOT NULL, "
                               "model TEXT NOT NULL, texts INTEGER NOT NULL, tokens INTEGER NOT NULL, "
                               "session TEXT NOT NULL)")
            connection.execute("CREATE TABLE IF NOT EXISTS raised (at REAL NOT NULL, allowance TEXT NOT NULL, "
                               "amount INTEGER NOT NULL, who TEXT NOT NULL)")
            held = self._local.held = (os.getpid(), connection)
        return held[1]

    def spent(self, session: str = "", now: float | None = None) -> tuple[tuple[int, int], tuple[int, int]]:
        """``(texts, tokens)`` sent in the last hour by the server, and by ``session`` ever."""
        connection = self._connection()
        now = time.time() if now is None else now
        hour = connection.execute("SELECT COALESCE(SUM(texts), 0), COALESCE(SUM(tokens), 0) FROM spent "
                                  "WHERE at > ?", (now - 3600,)).fetchone()
        mine = connection.execute("SELECT COALESCE(SUM(texts), 0), COALESCE(SUM(tokens), 0) FROM spent "
                                  "WHERE session = ?", (session,)).fetchone() if session else (0, 0)
        return tuple(hour), tuple(mine)

    def raise_allowance(self, allowance: Allowance, amount: int, who: str, now: float | None = None) -> None:
        """Add ``amount`` to one of the policy's allowances (for the hour to come, or for every
        session), recorded with ``who`` raised it; ``SpecError`` for an allowance the policy does
        not hold or an amount that is not a positive whole number of at most a million times it."""
        if allowance not in self.policy.limits:
            raise SpecError(f"this server has no allowance {allowance}; it has "
                            f"{'; '.join(map(str, self.policy.limits)) or 'none'}")
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= allowance.amount * 1_000_000:
            raise SpecError(f"a raise is a whole number of {allowance.unit} from 1 to a million times the allowance, "
                            f"not {amount!r}")
        self._connection().execute("INSERT INTO raised VALUES (?, ?, ?, ?)",
                                   (time.time() if now is None else now, str(allowance), amount, who))

    def raised(self, allowance: Allowance, now: float | None = None) -> int:
        """What admins added to ``allowance``: in the last hour for an hourly one, ever for the
        session allowance."""
        now = time.time() if now is None else now
        since = now - 3600 if allowance.per == "hour" else float("-inf")
        return self._connection().execute("SELECT COALESCE(SUM(amount), 0) FROM raised WHERE allowance = ? "
                                          "AND at > ?", (str(allowance), since)).fetchone()[0]

    def amount(self, allowance: Allowance, now: float | None = None) -> int:
        """``allowance``'s amount now, with what admins raised it by."""
        return allowance.amount + self.raised(allowance, now)

    def left(self, session: str = "") -> list[tuple[Allowance, int]]:
        """Each allowance with what is left of it now."""
        hour, mine = self.spent(session)
        out = []
        for allowance in self.policy.limits:
            used = hour if allowance.per == "hour" else mine if session else (0, 0)
            out.append((allowance, max(0, self.amount(allowance) - allowance.of(*used))))
        return out

    def over(self, texts: int, tokens: int, session: str = "") -> str:
        """Why a run of ``texts`` texts of ``tokens`` tokens would go over what is left of an
        allowance now (empty: it would not): said before a run starts."""
        for allowance, remaining in self.left(session):
            needed = allowance.of(texts, tokens)
            if needed > remaining:
                whose = "this server" if allowance.per == "hour" else "this session"
                return (f"it would send {needed:,} {allowance.unit} and {whose} has {remaining:,} left of "
                        f"its {allowance}")
        return ""

    def charge(self, service: str, model: str, texts: int, tokens: int, session: str = "") -> None:
        """Record a request about to be sent; ``SpendRefused`` (nothing recorded) when it would
        go over an allowance."""
        connection = self._connection()
        connection.execute("BEGIN IMMEDIATE")
        try:
            hour, mine = self.spent(session)
            for allowance in self.policy.limits:
                if allowance.per == "session" and not session:
                    continue
                used = allowance.of(*(hour if allowance.per == "hour" else mine))
                raised = self.raised(allowance)
                if used + allowance.of(texts, tokens) > allowance.amount + raised:
                    whose = "this server's" if allowance.per == "hour" else "this session's"
                    more = f", raised by {raised:,}," if raised else ""
                    raise SpendRefused(f"{whose} allowance of {allowance}{more} is spent ({used:,} {allowance.unit} "
                                       f"used; this request needs {allowance.of(texts, tokens):,}): nothing was sent "
                                       f"to {model}; the operator sets {ENV_LIMIT}, and an admin may raise it")
            connection.execute("INSERT INTO spent VALUES (?, ?, ?, ?, ?, ?)",
                               (time.time(), service, model, texts, tokens, session))
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise


_LEDGER: SpendLedger | None = None
#: The browser session a page's requests are charged to (set by the page's thread).
PAYER: contextvars.ContextVar[str] = contextvars.ContextVar("payer", default="")


def install(folder: str | os.PathLike, policy: SpendPolicy) -> SpendLedger:
    """Charge this process's paid requests to the ledger in ``folder`` under ``policy`` (the
    app's server and its worker processes)."""
    global _LEDGER
    _LEDGER = SpendLedger(folder, policy)
    return _LEDGER


def ensure(folder: str | os.PathLike, policy: SpendPolicy) -> SpendLedger:
    """``install``, unless this process charges that folder's ledger under that policy already."""
    if _LEDGER is None or _LEDGER.policy != policy or _LEDGER.path.parent != Path(folder):
        return install(folder, policy)
    return _LEDGER


def uninstall() -> None:
    """Charge nothing in this process any more."""
    global _LEDGER
    _LEDGER = None


def installed() -> SpendLedger | None:
    """The ledger this process charges, if any."""
    return _LEDGER


def charge(service: str, model: str, texts: Sequence[str]) -> None:
    """Charge one request of ``texts`` to ``model`` before it is sent (nothing where no ledger
    is installed); ``SpendRefused`` when it would go over an allowance."""
    if _LEDGER is None:
        return
    tokens = 0
    if any(a.unit == "tokens" for a in _LEDGER.policy.limits):
        from ..lengths import get_length

        tokens = sum(get_length("o200k").count_many(list(texts)))
    _LEDGER.charge(service, model, len(texts), tokens, PAYER.get())
