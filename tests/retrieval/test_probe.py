"""``inspector.retrieval.probe``: the article's queries, and the vectorised probe against a plain,
chunk-by-chunk implementation of the same recipe."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import Document, SplitterSpec, analyze, split_document
from inspector.atoms.seed import analyze_seed
from inspector.retrieval.probe import make_queries, run_probe, script_words
from inspector.retrieval.scripts import BIGRAM_CHARACTERS
from inspector.retrieval.terms import TermTable
from tests.support import reference_seed as plain
from tests.support.strategies import FAST, markdown_document, seed_text

TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")


def plain_probe(queries, chunks, texts, k=5):
    """Slice every chunk, tokenise it, score with BM25, judge the top k by span."""
    bodies = [c.prefix + texts[c.doc_id][c.start:c.end] for c in chunks]
    index, lens, df = defaultdict(list), [], Counter()
    for i, body in enumerate(bodies):
        tf = Counter(w.lower() for w in TERM.findall(body))
        lens.append(sum(tf.values()))
        for w, c in tf.items():
            index[w].append((i, c))
            df[w] += 1
    avg, n = sum(lens) / len(lens), len(bodies)
    hit = cut = 0
    context = 0
    for q in queries:
        scores = Counter()
        for w in q.words:
            if w in index:
                idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                for j, c in index[w]:
                    scores[j] += idf * c * 2.2 / (c + 1.2 * (1 - 0.75 + 0.75 * lens[j] / avg))
        top = [j for j, _ in scores.most_common(k)]
        context += sum(len(bodies[j]) for j in top)
        s0, s1 = q.evidence
        whole = any(chunks[j].doc_id == q.doc_id and chunks[j].start <= s0 and s1 <= chunks[j].end for j in top)
        touch = any(chunks[j].doc_id == q.doc_id and not (chunks[j].end <= s0 or chunks[j].start >= s1) for j in top)
        hit += whole
        cut += (not whole) and touch
    return hit, cut, context / len(queries)


@FAST
@given(texts=st.lists(st.one_of(seed_text(), markdown_document()), min_size=1, max_size=4))
def test_queries_are_the_plain_recipe(texts):
    docs = [Document(f"d{i}.md", t) for i, t in enumerate(texts)]
    figures = [analyze_seed(d.text).atoms["num"] for d in docs]
    ours = make_queries(docs, figures, count=10**6)
    assert [(q.doc_id, q.evidence, q.words) for q in ours] == \
           plain.queries([(d.id, d.text) for d in docs], count=10**6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(markdown_document(), min_size=1, max_size=4), budget=st.integers(15, 200),
       kind=st.sampled_from(["fixed", "recursive", "structured", "heading"]), overlap=st.integers(0, 10),
       prefixed=st.booleans())
def test_vectorised_probe_equals_plain_probe(texts, budget, kind, overlap, prefixed):
    documents = [Document(f"d{i}.md", t) for i, t in enumerate(texts)]
    spec = SplitterSpec(kind, budget, overlap=min(overlap, budget - 1), heading_prefix=prefixed)
    chunks = [c for d in documents for c in split_document(d, spec).chunks]
    figures = [analyze(d.text, "markdown").atoms["num"] for d in documents]
    queries = make_queries(documents, figures)
    if not queries or not chunks:
        return
    table = TermTable((d.id, d.text) for d in documents)
    result = run_probe(queries, chunks, table)
    hit, cut, context = plain_probe(queries, chunks, {d.id: d.text for d in documents})
    assert (result.answered, result.cut) == (hit, cut)
    assert result.context_chars == context


def test_cut_and_rank_miss_partition_the_queries():
    text = ("The cluster served 4200 requests per second during the replication benchmark run. " * 3
            + "\n\nUnrelated words about lunch menus and office plants grow here quietly.\n")
    doc = Document("a.md", text)
    figures = [analyze(text).atoms["num"]]
    queries = make_queries([doc], figures)
    chunks = list(split_document(doc, "fixed:40").chunks)
    result = run_probe(queries, chunks, TermTable([(doc.id, doc.text)]))
    assert result.answered == 0, "no 40-character window can hold an 80-character sentence"
    assert result.cut == len(queries)
    assert abs(result.answer_rate + result.cut_rate + result.miss_rate - 1) < 1e-12


def test_queries_follow_the_recipe():
    text = "Harborline replicated 3 partitions across the Rotterdam datacenter [within](https://x) seconds.\n"
    doc = Document("a.md", text)
    queries = make_queries([doc], [analyze(text, "seed").atoms["num"]])
    assert len(queries) == 1
    assert queries[0].words == ("datacenter", "harborline", "partitions")  # longest first, then a-z


#: The query words of any script, as the probe defines them: letters outside the bigram scripts.
_LETTER = rf"(?![{BIGRAM_CHARACTERS}])[^\W\d_]"
_SCRIPT_WORD = re.compile(rf"{_LETTER}(?:{_LETTER}|[.+\-]){{5,}}")


@given(st.text(alphabet=st.sampled_from("abcXYZ.+-_9 ,é日本語한글ｶ\u00a0") | st.characters(), max_size=80))
def test_a_sentences_query_words_on_ascii_are_found_without_the_script_pattern_and_are_the_same(text):
    ascii_only = text.encode("ascii", "ignore").decode()
    assert script_words(text) == _SCRIPT_WORD.findall(text)
    assert script_words(ascii_only) == _SCRIPT_WORD.findall(ascii_only)
