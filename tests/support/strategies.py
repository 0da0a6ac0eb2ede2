"""Hypothesis strategies for markdown-like documents with every kind of atom."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

WORDS = ["alpha", "beta", "Harborline", "latency", "42", "17%", "v4.2", "e.g.", "the", "It", "This",
         "[docs](https://x.example/a1)", "`code`", "émigré", "🙂", "<b>", "&amp;", "x" * 30]


@st.composite
def sentence(draw) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=18))
    text = " ".join(words)
    return text[0].upper() + text[1:] + draw(st.sampled_from([".", "!", "?", ""]))


@st.composite
def block(draw) -> str:
    kind = draw(st.sampled_from(["para", "para", "fence", "table", "heading", "list", "quote", "indented"]))
    if kind == "para":
        return " ".join(draw(st.lists(sentence(), min_size=1, max_size=6)))
    if kind == "fence":
        fence = draw(st.sampled_from(["```", "~~~", "````"]))
        lines = draw(st.lists(st.sampled_from(["x = 1", "| a | b |", "|---|---|", "print(42)", "", "y" * 50]),
                              max_size=12))
        return fence + "python\n" + "\n".join(lines) + "\n" + fence
    if kind == "table":
        rows = draw(st.integers(0, 14))
        width = draw(st.integers(1, 40))
        return "\n".join(["| key | value |", "|---|---:|"]
                         + [f"| k{i} | {'v' * (i % width)} {i} |" for i in range(rows)])
    if kind == "heading":
        return "#" * draw(st.integers(1, 4)) + " " + draw(sentence())
    if kind == "list":
        return "\n".join("- " + draw(sentence()) for _ in range(draw(st.integers(1, 4))))
    if kind == "quote":
        return "> " + draw(sentence())
    return "    indented = 1\n    more = 2"


@st.composite
def markdown_document(draw) -> str:
    blocks = draw(st.lists(block(), max_size=14))
    seps = draw(st.lists(st.sampled_from(["\n\n", "\n", "\n\n\n", "\n \n"]), min_size=len(blocks),
                         max_size=len(blocks)))
    return "".join(b + s for b, s in zip(blocks, seps))


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# Line ends the article's line scanner knows but the regexes do not, stray pipes, fences,
# blank lines made of spaces and tabs, links and figures.
PIECES = ["Alpha beta.", " Gamma 42 delta epsilon zeta eta theta iota kappa lambda.", "\n", "\n\n", "\n \t\n",
          "\r\n", "\r", "\u2028", "\x0c", "\x85", "| a | b |", "|---|---|", "|x|  ", "not | a row", "```",
          "  ```py", "# Head", "## Sub #", "#NoSpace", "see [docs](https://x.example/a1).", "(Paren) ",
          '"Quote" ', "e.g. v4.2 ", "émigré 🙂 ", "  ", "\t", "?", "!", "Replication latency throughput 17%."]


@st.composite
def seed_text(draw) -> str:
    return "".join(draw(st.lists(st.sampled_from(PIECES), max_size=40)))


#: Values that broke or nearly broke the app or the command line once: long runs of digits, NUL
#: and other control characters, path tricks, markup, very long text, and the empty string.
HOSTILE_VALUES = ["", " ", "\x00", "a\x00b", "../../etc/passwd", "/etc", "~", "C:\\Windows", "%00", "9" * 5000,
                  "-1", "0", "1e9", "nan", "<script>alert(1)</script>", "javascript:alert(1)", "x" * 10_000,
                  "\u202e\u0000\ufeff", "🙂" * 50, "'; DROP TABLE answers; --", "${HOME}", "$(reboot)"]


def hostile_text():
    """One hostile value, or random text."""
    return st.one_of(st.sampled_from(HOSTILE_VALUES), st.text(max_size=40))
