"""``inspector.chunks.matching``: which document a record names, and whitespace-blind matches
mapped back to exact offsets."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import Document
from inspector.chunks.matching import DocumentMatcher, NormalisedText


def test_document_matcher_prefers_the_longest_tail():
    docs = [Document("index.md", "a"), Document("blog/index.md", "b")]
    matcher = DocumentMatcher(docs)
    assert matcher.resolve("/srv/corpus/blog/index.md").id == "blog/index.md"
    assert matcher.resolve("C:\\corpus\\index.md").id == "index.md"
    assert matcher.resolve("./blog/index.md").id == "blog/index.md"
    assert "no document" in matcher.resolve("other.md")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab \n\t", min_size=1, max_size=60), st.data())
def test_normalised_matches_map_back_exactly(text, data):
    starts = [i for i, ch in enumerate(text) if not ch.isspace()]
    if not starts:
        return
    a = data.draw(st.sampled_from(starts))
    b = data.draw(st.sampled_from([i + 1 for i in starts if i >= a]))
    spaces = data.draw(st.sampled_from([" ", "  ", "\n", " \t "]))
    needle = re.sub(r"\s+", spaces, text[a:b])
    found = NormalisedText(text).find(needle)
    assert found is not None
    x, y = found
    assert x <= a, "the first match is found"
    assert not text[x].isspace() and not text[y - 1].isspace()
    assert text[x:y].split() == text[a:b].split()
