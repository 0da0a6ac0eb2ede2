"""Roles: the operator's list parsed, refused with the reason, written back the same; each person
given the highest role a pattern grants, a typed name no more than anyone's; refusals that name
the role an action needs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.access import Access, Action, Identity, Role, RoleRules, parse_roles, roles_from_environment
from inspector.errors import AccessRefused, RolesError
from inspector.views.launch import launch_config

DANA = Identity("sub-1", "dana@acme.com", "Dana", True, True)
RAVI = Identity("sub-2", "ravi@acme.com", "Ravi", True, True)
EVE = Identity("sub-3", "eve@other.org", "Eve", True, True)
TYPED = Identity(name="dana@acme.com")  # anyone can type an address


def test_the_highest_role_a_pattern_grants_is_the_person_s():
    rules = parse_roles("admin=Dana@acme.com; reviewer=@acme.com ;viewer=*")
    assert rules.role_of(DANA) is Role.ADMIN  # addresses compare without case
    assert rules.role_of(RAVI) is Role.REVIEWER
    assert rules.role_of(EVE) is Role.VIEWER
    assert rules.role_of(TYPED) is Role.VIEWER, "a typed name proves nothing"
    assert parse_roles("admin=sub-3").role_of(EVE) is Role.ADMIN, "a provider's subject names a person too"
    assert parse_roles("reviewer=*").role_of(Identity()) is Role.REVIEWER, "* is anyone, signed in or not"
    assert parse_roles("admin=dana@acme.com").role_of(RAVI) is Role.VIEWER, "someone no pattern names reads"
    assert RoleRules().role_of(Identity()) is Role.ADMIN and not RoleRules().listed, "nothing listed: open"


@pytest.mark.parametrize("text, words", [
    ("owner=dana@acme.com", "ROLE one of admin, reviewer, viewer"),
    ("admin", "expected ROLE=PATTERN"),
    ("admin=a@b.com;admin=c@d.com", "admin is listed twice"),
    ("admin=dana acme", "is not an e-mail address, @domain"),
    ("reviewer=@acme", "is not an e-mail address, @domain"),
])
def test_a_bad_list_is_refused_with_the_reason(text, words):
    with pytest.raises(RolesError, match=words):
        parse_roles(text)


patterns = st.one_of(st.just("*"), st.from_regex(r"@[a-z]{1,8}\.(com|org|io)", fullmatch=True),
                     st.from_regex(r"[a-z]{1,8}@[a-z]{1,8}\.(com|org)", fullmatch=True),
                     st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}", fullmatch=True))


@given(st.lists(patterns, max_size=3), st.lists(patterns, max_size=3), st.lists(patterns, max_size=3))
def test_the_string_form_round_trips(admin, reviewer, viewer):
    rules = RoleRules(tuple(admin), tuple(reviewer), tuple(viewer))
    assert parse_roles(str(rules)) == rules
    assert RoleRules(**{r.word: tuple(getattr(rules, r.word)) for r in Role}).problem() is None


def test_a_toml_file_names_the_roles(tmp_path):
    file = tmp_path / "roles.toml"
    file.write_text('[roles]\nadmin = ["dana@acme.com"]\nreviewer = ["@acme.com"]\n')
    rules = roles_from_environment({"CHUNK_INSPECTOR_ROLES": str(file)})
    assert (rules.admin, rules.reviewer, rules.viewer) == (("dana@acme.com",), ("@acme.com",), ())
    file.write_text('admin = "dana@acme.com"\n')
    with pytest.raises(RolesError, match="admin must be a list of strings"):
        roles_from_environment({"CHUNK_INSPECTOR_ROLES": str(file)})
    file.write_text('owner = ["x@y.com"]\n')
    with pytest.raises(RolesError, match="names owner; the roles are admin, reviewer, viewer"):
        roles_from_environment({"CHUNK_INSPECTOR_ROLES": str(file)})
    with pytest.raises(RolesError, match="cannot read the roles file"):
        roles_from_environment({"CHUNK_INSPECTOR_ROLES": str(tmp_path / "missing.toml")})
    assert not roles_from_environment({}).listed


def test_a_refusal_names_the_role_the_action_needs():
    rules = parse_roles("admin=dana@acme.com;reviewer=@acme.com")
    visitor = Access.of(Identity(), rules, signing_in=True)
    assert visitor.refusal(Action.OPEN_FOLDER) == (
        "To open a folder on this server you need the admin role; you are a viewer (not signed in). "
        "Sign in with an account the operator lists.")
    with pytest.raises(AccessRefused, match="you need the reviewer role"):
        visitor.check(Action.REVIEW)
    ravi = Access.of(RAVI, rules, signing_in=True)
    assert ravi.allows(Action.REVIEW) and ravi.allows(Action.UPLOAD) and not ravi.allows(Action.SPEND)
    assert "Ask the operator to list you in CHUNK_INSPECTOR_ROLES" in ravi.refusal(Action.DELETE)
    dana = Access.of(DANA, rules, signing_in=True)
    assert all(dana.allows(action) for action in Action)
    assert dana.mode == "Signed in as Dana (dana@acme.com): admin."
    assert Access.of(Identity(), RoleRules(), signing_in=False).mode.startswith("Open server")


def test_the_app_reads_the_roles_once_at_start_and_a_bad_list_opens_nothing():
    good = launch_config([], {"CHUNK_INSPECTOR_ROLES": "admin=dana@acme.com"})
    assert good.roles.admin == ("dana@acme.com",) and not good.problems
    bad = launch_config([], {"CHUNK_INSPECTOR_ROLES": "owner=dana@acme.com"})
    assert bad.roles.role_of(DANA) is Role.VIEWER, "a refused list must not leave the server open"
    assert any("until it is mended everyone is a viewer" in p for p in bad.problems)


ADMIN_CLAIMS = {"sub": "mallory", "email": "Dana@acme.com", "name": "Mallory"}


@pytest.mark.parametrize("claim, proven", [
    ({}, False),                                # the provider says nothing of the address
    ({"email_verified": False}, False),
    ({"email_verified": "true"}, False),        # a string is not the JSON value true
    ({"email_verified": 1}, False),
    ({"email_verified": True}, True),
])
def test_an_address_grants_a_role_only_when_the_provider_verified_it(claim, proven):
    rules = parse_roles("admin=dana@acme.com;reviewer=@acme.com;viewer=*")
    identity = Identity.signed_in({**ADMIN_CLAIMS, **claim})
    access = Access.of(identity, rules, signing_in=True)
    assert identity.verified, "the subject is still signed in"
    if proven:
        assert access.role is Role.ADMIN and identity.reviewer == "dana@acme.com"
        assert access.mode == "Signed in as Mallory (dana@acme.com): admin."
        return
    assert access.role is Role.VIEWER, "neither the address nor its domain may grant a role"
    assert identity.reviewer == "mallory", "answers are not recorded under an address nobody verified"
    assert access.mode == ("Signed in as Mallory (mallory, e-mail not verified): viewer. Your provider did not say "
                           "dana@acme.com is verified, so that address grants no role here.")
    assert "did not say dana@acme.com is verified" in access.refusal(Action.REVIEW)
    assert parse_roles("admin=mallory").role_of(identity) is Role.ADMIN, "the subject still names the person"
