"""Who may do what, in the app: a visitor not signed in reads; a signed-in reviewer reviews under
the provider's identity; an admin opens folders and sees the audit trail of what was opened. The
roles come from the server's environment, the identity from ``st.user``; a link carries none."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from inspector.access import AuditTrail
from inspector.review import ReviewStore
from inspector.views.launch import ENV_ROOTS
from tests.support.app import assert_clean, plain, write_corpus
from tests.support.paths import ROOT

ROLES = "admin=dana@acme.com;reviewer=@acme.com"
SIGNED_OUT = {"is_logged_in": False}
DANA = {"is_logged_in": True, "email": "dana@acme.com", "name": "Dana", "sub": "sub-dana", "email_verified": True}
RAVI = {"is_logged_in": True, "email": "Ravi@Acme.com", "name": "Ravi", "sub": "sub-ravi", "email_verified": True}


@pytest.fixture
def folder(isolated_app, tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNK_INSPECTOR_ROLES", ROLES)
    monkeypatch.setenv(ENV_ROOTS, str(tmp_path))
    return write_corpus(tmp_path / "docs", {"a.md": b"# A\n\nReplication uses port 7430.\n"})


def opened(user: dict, params: dict, page: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.user = dict(user)
    at.query_params.update(params)
    at.run()
    if page:
        at.switch_page(page).run()
    assert_clean(at)
    return at


def texts(elements) -> list[str]:
    return [plain(e.value) for e in elements]


def test_a_visitor_with_a_link_reads_but_cannot_open_a_folder_upload_or_review(folder, isolated_app):
    at = opened(SIGNED_OUT, {"corpus": str(folder)})
    assert any(e.startswith("Cannot open this folder: To open a folder on this server you need the admin role; "
                            "you are a viewer (not signed in). Sign in with an account the operator lists.")
               for e in texts(at.error))
    assert "Not signed in: viewer. Sign in to do more." in texts(at.caption)
    assert [b.label for b in at.button if b.key == "sign_in"] == ["Sign in"]
    assert not AuditTrail(isolated_app / "reviews.sqlite3").recent(), "nothing was opened"
    at.radio(key="corpus_source").set_value("upload").run()
    assert_clean(at)
    assert at.get("file_uploader")[0].proto.disabled
    assert any("To upload files you need the reviewer role" in c for c in texts(at.caption))
    imports = opened(SIGNED_OUT, {}, "app_pages/import_chunks.py")
    uploaders = imports.get("file_uploader")
    assert len(uploaders) >= 2 and all(u.proto.disabled for u in uploaders), "chunk file and golden set alike"
    sample = opened(SIGNED_OUT, {"spec": "structured:800"}, "app_pages/orphan_test.py")
    assert any("To save review answers you need the reviewer role" in i for i in texts(sample.info))
    assert "orphan_reviewer" not in [t.key for t in sample.text_input]


def test_an_admin_opens_the_folder_and_it_is_in_the_audit_trail(folder, isolated_app):
    at = opened(DANA, {"corpus": str(folder)})
    assert not at.error, texts(at.error)
    assert "Signed in as Dana (dana@acme.com): admin." in texts(at.caption)
    assert [b.label for b in at.button if b.key == "sign_out"] == ["Sign out"]
    (entry,) = AuditTrail(isolated_app / "reviews.sqlite3").recent()
    assert (entry.who, entry.verified, entry.role, entry.action) == ("Dana (dana@acme.com)", True, "admin",
                                                                     "open folder")
    assert entry.detail["documents"] == 1 and entry.detail["folder"].endswith("docs")
    (table,) = (d.value for d in at.sidebar.dataframe)  # drawn after this run recorded the opening
    at.run()
    assert len(AuditTrail(isolated_app / "reviews.sqlite3").recent()) == 1, "once a session"
    assert list(table["action"]) == ["open folder"] and list(table["who"]) == ["Dana (dana@acme.com)"]


@pytest.mark.parametrize("claim", [{}, {"email_verified": False}, {"email_verified": "true"}])
def test_an_address_the_provider_did_not_verify_opens_nothing_and_the_sidebar_says_why(folder, isolated_app, claim):
    mallory = {"is_logged_in": True, "email": "dana@acme.com", "name": "Mallory", "sub": "sub-mallory", **claim}
    at = opened(mallory, {"corpus": str(folder)})
    assert any("you need the admin role; you are a viewer (Mallory (sub-mallory, e-mail not verified))" in e
               for e in texts(at.error)), texts(at.error)
    assert ("Signed in as Mallory (sub-mallory, e-mail not verified): viewer. Your provider did not say "
            "dana@acme.com is verified, so that address grants no role here.") in texts(at.caption)
    assert not AuditTrail(isolated_app / "reviews.sqlite3").recent(), "nothing was opened"


def test_a_signed_in_reviewer_reviews_as_the_provider_names_them(folder, isolated_app):
    at = opened(RAVI, {"spec": "structured:800"}, "app_pages/orphan_test.py")
    assert "orphan_reviewer" not in [t.key for t in at.text_input], "the identity is not typed"
    assert "Reviewing as Ravi (ravi@acme.com)." in texts(at.caption)
    at.button(key="orphan_completeness_no").click().run()
    at.button(key="orphan_save").click().run()
    assert_clean(at)
    store = ReviewStore(isolated_app / "reviews.sqlite3")
    (stored,) = store.rounds()
    assert store.reviewers(stored.round.id) == ["ravi@acme.com"]
    assert opened(RAVI, {"corpus": str(folder)}).error, "a reviewer opens no folder"


def test_an_open_server_says_nothing_of_roles_and_refuses_nothing(isolated_app, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_ROOTS, str(tmp_path))
    folder = write_corpus(tmp_path / "docs", {"a.md": b"# A\n\nText.\n"})
    at = opened({}, {"corpus": str(folder)})
    assert not at.error and not [b for b in at.button if b.key in ("sign_in", "sign_out")]
    assert not any("viewer" in c or "admin" in c for c in texts(at.caption))


def test_only_an_admin_deletes_a_round_and_the_trail_keeps_it(folder, isolated_app):
    ravi = opened(RAVI, {"spec": "structured:800"}, "app_pages/orphan_test.py")
    ravi.button(key="orphan_save").click().run()  # every question at its first answer, yes
    assert_clean(ravi)
    ravi.session_state["orphan_tab"] = "Results"
    ravi.run()
    assert "orphan_delete" not in [b.key for b in ravi.button], "a reviewer deletes nothing"
    store = ReviewStore(isolated_app / "reviews.sqlite3")
    (stored,) = store.rounds()
    dana = opened(DANA, {"spec": "structured:800", **stored.round.to_query_params()}, "app_pages/orphan_test.py")
    dana.session_state["orphan_tab"] = "Results"
    dana.run()
    assert dana.button(key="orphan_delete").disabled, "not before the box is ticked"
    dana.checkbox(key="orphan_delete_sure").check().run()
    dana.button(key="orphan_delete").click().run()
    assert_clean(dana)
    assert any(f"Deleted round {stored.round.label} and its 1 answers" in s for s in texts(dana.success))
    assert store.answers(stored.round.id) == []
    entry = AuditTrail(isolated_app / "reviews.sqlite3").recent()[0]
    assert (entry.who, entry.action, entry.detail["answers"]) == ("Dana (dana@acme.com)", "delete round", 1)


def test_an_admin_keeps_uploads_on_the_server_and_a_visitor_opens_the_round_s_link(folder, isolated_app):
    at = opened(DANA, {})
    at.radio(key="corpus_source").set_value("upload").run()
    at.file_uploader(key="corpus_uploads").set_value([("notes.md", b"# Notes\n\nThe port is 7430 since 2024.\n",
                                                       "text/markdown")]).run()
    at.switch_page("app_pages/orphan_test.py").run()
    assert_clean(at)
    assert not at.code, "no link while the documents live in this browser session"
    at.button(key="orphan_keep_uploads").click().run()
    assert_clean(at)
    kept = at.session_state["corpus_path"]
    assert at.session_state["corpus_source"] == "folder" and kept.startswith(str(isolated_app / "uploads"))
    (link,) = [c.value for c in at.code]
    assert "corpus=" in link and "round=" in link
    entry = AuditTrail(isolated_app / "reviews.sqlite3").recent()[0]
    assert (entry.action, entry.detail["documents"]) == ("keep uploads", 1)
    params = dict(part.split("=", 1) for part in link.split("?", 1)[1].split("&"))
    from urllib.parse import unquote_plus

    visitor = opened(SIGNED_OUT, {k: unquote_plus(v) for k, v in params.items()}, "app_pages/orphan_test.py")
    assert not visitor.error, texts(visitor.error)
    assert visitor.query_params["round"] == unquote_plus(params["round"]), "the same round, for a colleague"


def test_a_reviewer_is_not_offered_to_keep_uploads(folder):
    at = opened(RAVI, {})
    at.radio(key="corpus_source").set_value("upload").run()
    at.file_uploader(key="corpus_uploads").set_value([("notes.md", b"# Notes\n\nText.\n", "text/markdown")]).run()
    at.switch_page("app_pages/orphan_test.py").run()
    assert_clean(at)
    assert "orphan_keep_uploads" not in [b.key for b in at.button]
    assert any("an admin can keep the documents on this server" in c for c in texts(at.caption))


def test_only_an_admin_raises_an_allowance_and_the_ledger_and_trail_keep_it(folder, isolated_app, monkeypatch):
    from inspector.retrieval.spending import ENV_LIMIT, Allowance, SpendLedger, SpendPolicy

    monkeypatch.setenv(ENV_LIMIT, "100 texts/hour; 40 texts/session")
    for visitor in (SIGNED_OUT, RAVI):
        assert "raise_which" not in [s.key for s in opened(visitor, {}).selectbox]
    at = opened(DANA, {})
    assert "100 texts/hour: 100 left" in texts(at.caption) and "40 texts/session: 40 left" in texts(at.caption)
    at.selectbox(key="raise_which").set_value(Allowance(40, "texts", "session"))
    at.number_input(key="raise_by").set_value(25)
    at.button(key="FormSubmitter:raise_allowance-Raise").click().run()
    assert_clean(at)
    assert "40 texts/session raised by 25." in texts(at.success)
    assert "40 texts/session: 65 left (raised by 25)" in texts(at.caption)
    ledger = SpendLedger(isolated_app, SpendPolicy.from_environment())
    assert ledger.over(60, 0, "another session") == "", "every session may now send 65"
    assert "65 left" in ledger.over(66, 0, "another session")
    entry = AuditTrail(isolated_app / "reviews.sqlite3").recent()[0]
    assert (entry.who, entry.action, entry.detail) == ("Dana (dana@acme.com)", "raise allowance",
                                                       {"allowance": "40 texts/session", "by": 25})


def test_only_an_admin_asks_the_chat_model_to_review(folder, isolated_app, monkeypatch):
    monkeypatch.setenv("CHUNK_INSPECTOR_CONTEXT_URL", "http://127.0.0.1:9/v1")  # never reached
    monkeypatch.setenv("CHUNK_INSPECTOR_CONTEXT_MODEL", "judge-1")
    for user, asks in ((RAVI, False), (DANA, True)):
        at = opened(user, {"spec": "structured:800"}, "app_pages/orphan_test.py")
        at.session_state["orphan_tab"] = "Results"
        at.run()
        assert_clean(at)
        assert ("orphan_ask_model" in [b.key for b in at.button]) is asks
        if not asks:
            (panel,) = [e for e in at.expander if e.label == "A chat model as one more reviewer"]
            assert any("Not sent" in w and "admin" in w for w in texts(panel.warning))
