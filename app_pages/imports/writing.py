"""The Import page's golden set written from the corpus: by the server's chat model (what it
sends shown and priced first, sent on a click the server's roles allow) or, free, from the probe's
figure sentences; the set written is used on the page at once and offered as a CSV. Not a page.
"""

import streamlit as st

from app_pages.imports.files import take_golden_file
from app_pages.parts.paid import PaidRun, offer
from inspector.context import ChatEndpoint, golden_store, plan_of, write_golden
from inspector.errors import ContextLineError
from inspector.retrieval import chroma_csv, probe_questions
from inspector.views import markdown_escape as md

#: The expander's key: its state says whether it is open.
SECTION = "golden_writing"


def write_golden_section(ctx) -> None:
    """An expander that, once opened, plans, offers and writes a golden set from the corpus."""
    section = st.expander("No golden set? Write one from this corpus", key=SECTION, on_change="rerun")
    if not section.open:
        return
    with section:
        documents = ctx.workspace.documents
        st.caption("A chat model reads each document a stretch at a time and writes a question the stretch "
                   "answers, with the sentences that answer it copied word for word. An excerpt not found "
                   "verbatim is left out, and questions that give their answer away or repeat another; every "
                   "answer is kept, so nothing is asked twice. The set is Chroma's CSV format.")
        per_document = int(st.number_input("Questions per document", min_value=1, max_value=20, value=2,
                                           key="golden_per_document"))
        try:
            endpoint = ChatEndpoint.from_settings()
        except ContextLineError as exc:
            endpoint = None
            st.caption(md(f"No chat model on this server: {exc}."))
        if endpoint is not None:
            store = golden_store(ctx.launch.data_path)
            written = write_golden(documents, endpoint.model, store, per_document=per_document)  # sends nothing
            plan = plan_of(written, endpoint.model)
            if plan.prompts:
                sent = offer(ctx, PaidRun(
                    endpoint.model, plan.summary, plan.prompts, plan.input_tokens,
                    f"Write it with {endpoint.model}", "golden_write", f"Asking {endpoint.model}…",
                    lambda progress: write_golden(documents, endpoint.model, store, per_document=per_document,
                                                  endpoint=endpoint, progress=progress),
                    lambda run: {"questions": len(run.questions), "failures": len(run.failures)}))
                if sent is not None:
                    for doc_id, reason in sent.failures[:20]:
                        st.warning(md(f"{doc_id}: {reason}"))
                    written = sent
            if written.questions:
                left_out = "".join(f"; left out: {count:,} × {reason}"
                                   for reason, count in sorted(written.dropped.items()))
                _use(f"golden-{endpoint.model}.csv", chroma_csv(written.questions, documents),
                     f"{len(written.questions):,} questions written by {endpoint.model}"
                     + (f" ({written.waiting:,} prompts still to send)" if written.waiting else "") + left_out)
        if st.button("Write the probe's figure-sentence questions instead", key="golden_write_probe",
                     help="No model: each question is the three longest words of a sentence carrying a figure, "
                          "answered by that sentence, marked so in the written_by column."):
            questions = probe_questions(documents, ctx.workspace.queries())
            take_golden_file("golden-probe.csv", chroma_csv(questions, documents).encode("utf-8"))
            st.rerun()


def _use(name: str, text: str, said: str) -> None:
    st.markdown(md(said + "."))
    data = text.encode("utf-8")
    left, right = st.columns(2)
    left.button("Use this set below", key="golden_write_use", on_click=take_golden_file, args=(name, data))
    right.download_button("Download it (CSV)", data=data, file_name=name, mime="text/csv", key="golden_write_download",
                          on_click="ignore")
