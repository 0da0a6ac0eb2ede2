"""Roles: what the operator lets each person do on a shared server.

The operator lists them once, in ``CHUNK_INSPECTOR_ROLES``: inline, ``admin=dana@acme.com;
reviewer=@acme.com;viewer=*``, or the path of a TOML file with the same three keys, each a list
of patterns. A pattern is an e-mail address (or a provider's subject), ``@domain`` for everyone
whose address ends so, or ``*`` for anyone, signed in or not. A person gets the highest role any
pattern grants them; someone no pattern names is a viewer. With no roles listed, the server is
open: everyone may do everything, as on one person's laptop. A link carries no authority: the
role comes from who is signed in, never from the address. An e-mail address counts only when the
provider says it verified it (the ``email_verified`` claim, the JSON value ``true``): a provider
where anyone registers any address proves only its subject.

``RoleRules`` is a frozen value whose string form round-trips; ``problem()`` says why a list is
refused, and the constructor raises ``RolesError`` with the same words.
"""

from __future__ import annotations

import enum
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import AccessRefused, RolesError

#: Environment variable holding the roles (inline, or a TOML file's path).
ENV_ROLES = "CHUNK_INSPECTOR_ROLES"

_EMAIL = re.compile(r"^[^@\s;,=*]+@[^@\s;,=*]+$")
_DOMAIN = re.compile(r"^@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
_SUBJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:|-]{0,199}$")


class Role(enum.IntEnum):
    """What a person may do, each role allowing what the ones below it do."""

    VIEWER = 1
    """Reads every page and every round's results."""

    REVIEWER = 2
    """Reviews chunks and uploads files within the server's limits."""

    ADMIN = 3
    """Opens server folders and stores, spends on paid services, deletes rounds, reads the audit trail."""

    @property
    def word(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Identity:
    """Who is asking: the provider's subject and e-mail when signed in (``verified``), else the
    name the person typed, or nobody."""

    subject: str = ""
    email: str = ""
    name: str = ""
    verified: bool = False
    """Signed in: a provider vouches for the subject."""

    email_verified: bool = False
    """The provider also says the e-mail address is the person's (else it proves nothing)."""

    @classmethod
    def signed_in(cls, claims: Mapping[str, object]) -> "Identity":
        """From the provider's claims (``st.user``): ``sub``, ``email``, ``name`` and
        ``email_verified``, which counts only as the JSON value ``true`` (not ``"true"``, not absent)."""
        def text(key: str) -> str:
            value = claims.get(key)
            return value.strip() if isinstance(value, str) else ""

        return cls(text("sub"), text("email").lower(), text("name"), True, claims.get("email_verified") is True)

    @property
    def proven_email(self) -> str:
        """The e-mail address when the provider verified it, else ""."""
        return self.email if self.verified and self.email_verified else ""

    @property
    def unproven_email(self) -> str:
        """An address the provider gave without saying it verified it ("" when none)."""
        return self.email if self.verified and self.email and not self.email_verified else ""

    @property
    def reviewer(self) -> str:
        """The name answers are recorded under: the verified e-mail, else the subject, when signed
        in; else the typed name."""
        return (self.proven_email or self.subject) if self.verified else self.name

    @property
    def label(self) -> str:
        """How the app names this person: ``Dana (dana@acme.com)``, ``Dana (sub-1, e-mail not
        verified)``, or ``Dana (not signed in)``."""
        if self.verified:
            who = self.proven_email or self.subject
            who = f"{who}, e-mail not verified" if self.unproven_email else who
            return f"{self.name} ({who})" if self.name and self.name != who else who
        return f"{self.name} (not signed in)" if self.name else "not signed in"


@dataclass(frozen=True, slots=True)
class RoleRules:
    """The roles the operator listed: for each role, its patterns."""

    admin: tuple[str, ...] = ()
    reviewer: tuple[str, ...] = ()
    viewer: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise RolesError(problem)

    def problem(self) -> str | None:
        """Why this list cannot be used, or None."""
        for role in Role:
            for pattern in getattr(self, role.word):
                if pattern != "*" and not (_EMAIL.match(pattern) or _DOMAIN.match(pattern)
                                           or _SUBJECT.match(pattern)):
                    return (f"{role.word} pattern {pattern[:60]!r} is not an e-mail address, @domain, "
                            "a provider's subject or *")
        return None

    @property
    def listed(self) -> bool:
        """Whether any role is listed (none: the server is open)."""
        return bool(self.admin or self.reviewer or self.viewer)

    def role_of(self, identity: Identity) -> Role:
        """The highest role a pattern grants ``identity`` (admin for everyone when nothing is
        listed; viewer for someone no pattern names)."""
        if not self.listed:
            return Role.ADMIN
        for role in sorted(Role, reverse=True):
            if any(_matches(pattern, identity) for pattern in getattr(self, role.word)):
                return role
        return Role.VIEWER

    def __str__(self) -> str:
        return ";".join(f"{role.word}={','.join(patterns)}" for role in sorted(Role, reverse=True)
                        if (patterns := getattr(self, role.word)))


def _matches(pattern: str, identity: Identity) -> bool:
    if pattern == "*":
        return True
    if not identity.verified:
        return False  # a typed name proves nothing
    email = identity.proven_email  # an address the provider did not verify proves nothing either
    if pattern.startswith("@"):
        return bool(email) and email.endswith(pattern.lower())
    return (bool(email) and pattern.lower() == email) or pattern == identity.subject


def parse_roles(text: str) -> RoleRules:
    """``admin=a@x.com,@ops.x.com;reviewer=@x.com;viewer=*`` as ``RoleRules`` (``RolesError``
    saying why not)."""
    found: dict[str, list[str]] = {}
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        role, equals, patterns = part.partition("=")
        role = role.strip().lower()
        if not equals or role not in {r.word for r in Role}:
            raise RolesError(f"{part[:60]!r}: expected ROLE=PATTERN,... with ROLE one of admin, reviewer, viewer")
        if role in found:
            raise RolesError(f"{role} is listed twice")
        found[role] = [p.strip() for p in patterns.split(",") if p.strip()]
    return RoleRules(**{role: tuple(patterns) for role, patterns in found.items()})


def roles_file(path: str | os.PathLike) -> RoleRules:
    """A TOML file with ``admin``, ``reviewer`` and ``viewer`` lists of patterns."""
    try:
        with open(path, "rb") as stream:
            table = tomllib.load(stream)
    except OSError as exc:
        raise RolesError(f"cannot read the roles file {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RolesError(f"the roles file {path} is not TOML: {exc}") from None
    table = table.get("roles", table)
    unknown = sorted(set(table) - {r.word for r in Role})
    if unknown:
        raise RolesError(f"the roles file {path} names {', '.join(unknown)}; the roles are admin, reviewer, viewer")
    rules = {}
    for role, patterns in table.items():
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            raise RolesError(f"the roles file {path}: {role} must be a list of strings")
        rules[role] = tuple(p.strip() for p in patterns if p.strip())
    return RoleRules(**rules)


def roles_from_environment(environ: Mapping[str, str]) -> RoleRules:
    """``CHUNK_INSPECTOR_ROLES``: inline rules, or a TOML file's path; nothing listed when unset."""
    value = environ.get(ENV_ROLES, "").strip()
    if not value:
        return RoleRules()
    if "=" not in value or Path(value).suffix == ".toml":
        return roles_file(value)
    return parse_roles(value)


class Action(enum.Enum):
    """What a visitor may ask the server to do, each with the role it needs."""

    OPEN_FOLDER = ("open a folder on this server", Role.ADMIN)
    OPEN_STORE = ("open a vector store", Role.ADMIN)
    SPEND = ("start a paid run", Role.ADMIN)
    RAISE = ("raise a spending allowance", Role.ADMIN)
    DELETE = ("delete a round", Role.ADMIN)
    KEEP_UPLOADS = ("keep uploaded documents on this server", Role.ADMIN)
    AUDIT = ("read the audit trail", Role.ADMIN)
    REVIEW = ("save review answers", Role.REVIEWER)
    UPLOAD = ("upload files", Role.REVIEWER)

    @property
    def what(self) -> str:
        return self.value[0]

    @property
    def needs(self) -> Role:
        return self.value[1]


@dataclass(frozen=True, slots=True)
class Access:
    """One visitor's standing on this server: who they are, their role, and whether the server
    signs people in at all."""

    identity: Identity
    role: Role
    signing_in: bool = False
    """Whether the server has a provider to sign in with (``.streamlit/secrets.toml``'s ``[auth]``)."""

    listed: bool = False
    """Whether the operator listed roles (else the server is open to everyone)."""

    @classmethod
    def of(cls, identity: Identity, rules: RoleRules, signing_in: bool) -> "Access":
        return cls(identity, rules.role_of(identity), signing_in, rules.listed)

    def allows(self, action: Action) -> bool:
        return self.role >= action.needs

    def refusal(self, action: Action) -> str | None:
        """Why this visitor may not do ``action`` (naming the role it needs), or None."""
        if self.allows(action):
            return None
        if self.signing_in and not self.identity.verified:
            how = " Sign in with an account the operator lists."
        elif self.identity.unproven_email:
            how = (f" Your provider did not say {self.identity.unproven_email} is verified; verify it there, "
                   "or ask the operator to list your subject in CHUNK_INSPECTOR_ROLES.")
        else:
            how = " Ask the operator to list you in CHUNK_INSPECTOR_ROLES."
        return (f"To {action.what} you need the {action.needs.word} role; you are a {self.role.word} "
                f"({self.identity.label}).{how}")

    def check(self, action: Action) -> None:
        """``AccessRefused`` with ``refusal``'s words when ``action`` is not allowed."""
        refused = self.refusal(action)
        if refused:
            raise AccessRefused(refused)

    @property
    def mode(self) -> str:
        """Which mode the server runs in, in words, for the sidebar."""
        if not self.listed:
            return "Open server: no roles are listed, so everyone may do everything."
        if self.identity.unproven_email:
            return (f"Signed in as {self.identity.label}: {self.role.word}. Your provider did not say "
                    f"{self.identity.unproven_email} is verified, so that address grants no role here.")
        if self.identity.verified:
            return f"Signed in as {self.identity.label}: {self.role.word}."
        if self.signing_in:
            return f"Not signed in: {self.role.word}. Sign in to do more."
        return f"Roles are listed but nobody can sign in here: everyone is a {self.role.word}."
