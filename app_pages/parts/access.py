"""Who is using the app and what they may do: the sidebar's sign-in line, refusals that name the
role an action needs, and the audit trail's entries and table. Not a page.

Sign-in is Streamlit's (``st.login``, an OpenID Connect provider set up in
``.streamlit/secrets.toml``'s ``[auth]``); the roles are the server's (``CHUNK_INSPECTOR_ROLES``,
read at start into ``LaunchConfig.roles``). A link carries no authority.
"""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAuthError

from inspector.access import Access, Action, Identity, open_audit_trail
from inspector.errors import ReviewStoreError
from inspector.views import markdown_escape as md

AUDITED = "_audited"


def signing_in() -> bool:
    """Whether this server signs people in (Streamlit sets ``is_logged_in`` only then)."""
    return "is_logged_in" in st.user.to_dict()


def current(ctx) -> Access:
    """This visitor's access: the signed-in person, or nobody the server can vouch for."""
    user = st.user.to_dict()
    identity = Identity.signed_in(user) if user.get("is_logged_in") else Identity()
    return Access.of(identity, ctx.launch.roles, signing_in())


def access_widgets(ctx) -> None:
    """The sidebar's line on who is here and what they may do, with sign-in and sign-out."""
    access = current(ctx)
    if access.signing_in and access.identity.verified:
        st.caption(md(access.mode))
        st.button("Sign out", key="sign_out", on_click=st.logout)
    elif access.signing_in:
        st.caption(md(access.mode))
        if st.button("Sign in", key="sign_in", type="primary"):
            try:
                st.login()
            except StreamlitAuthError as exc:  # no Authlib, or an [auth] section it cannot use
                st.error(md(f"Signing in is set up on this server but does not work: {exc}"))
    elif access.listed:
        st.caption(md(access.mode))


def audit_widgets(ctx) -> None:
    """The audit trail, for admins of a server that lists roles (drawn last, after what this run
    opened was recorded)."""
    access = current(ctx)
    if access.allows(Action.AUDIT) and access.listed:
        with st.expander("Audit trail"):
            audit_table(ctx)


def allowance_widgets(ctx, session: str) -> None:
    """What is left of each spending allowance, and a raise of one, for admins of a server that
    lists roles (an open server lets no visitor raise what the operator set)."""
    from inspector.errors import SpecError
    from inspector.retrieval import installed

    access = current(ctx)
    ledger = installed()
    if ledger is None or not ledger.policy.limits or not (access.listed and access.allows(Action.RAISE)):
        return
    with st.expander("Spending allowances"):
        standing = st.container()  # filled after a raise this run made
        with st.form("raise_allowance", border=False):
            chosen = st.selectbox("Allowance", ledger.policy.limits, format_func=str, key="raise_which")
            amount = st.number_input("Raise by", min_value=1, value=int(chosen.amount), step=1, key="raise_by",
                                     help="An hourly allowance is raised for the hour to come; the session "
                                          "allowance for every session.")
            if st.form_submit_button("Raise"):
                try:
                    ledger.raise_allowance(chosen, int(amount), access.identity.label)
                except SpecError as exc:
                    st.error(md(f"Not raised: {exc}"))
                else:
                    audit(ctx, "raise allowance", allowance=str(chosen), by=int(amount))
                    st.success(md(f"{chosen} raised by {int(amount):,}."))
        for allowance, left in ledger.left(session):
            raised = ledger.raised(allowance)
            standing.caption(md(f"{allowance}: {left:,} left" + (f" (raised by {raised:,})" if raised else "")))


def refused(ctx, action: Action) -> str | None:
    """Why this visitor may not do ``action`` (the role it needs), or None."""
    return current(ctx).refusal(action)


def upload_closed(ctx, container=st) -> str:
    """Why this visitor may not upload (said in ``container``), or empty: for an uploader's
    ``disabled``."""
    refusal = refused(ctx, Action.UPLOAD) or ""
    if refusal:
        container.caption(md(refusal))
    return refusal


def audit(ctx, action: str, once: str = "", **detail) -> None:
    """Record ``action`` for this visitor (once per session for the same ``once`` key); a store
    that cannot be written is said, and the action goes on."""
    if once:
        done = st.session_state.setdefault(AUDITED, set())
        if (action, once) in done:
            return
        done.add((action, once))
    try:
        _trail(ctx).record(current(ctx), action, **detail)
    except ReviewStoreError as exc:
        st.warning(md(f"The audit trail could not record this: {exc}"))


def audit_table(ctx) -> None:
    """The latest entries, newest first."""
    from app_pages.parts.tables import data_table

    try:
        entries = _trail(ctx).recent(200)
    except ReviewStoreError as exc:
        st.warning(md(f"The audit trail cannot be read: {exc}"))
        return
    if not entries:
        st.caption("Nothing recorded yet.")
        return
    import pandas as pd

    data_table(pd.DataFrame([e.as_row() for e in entries]), key="audit_table")


def _trail(ctx):
    return open_audit_trail(ctx.launch.data_path)
