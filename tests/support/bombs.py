"""Hostile inputs, made when a test or a benchmark asks for them (never kept as files): golden
sets that ask for unbounded work in a few kilobytes."""

from __future__ import annotations

import json


def letter_golden_set(questions: int = 1_000) -> bytes:
    """``questions`` questions whose evidence is the one letter ``e`` (32 KB for 1,000): found
    tens of thousands of times in any English corpus."""
    return "".join(json.dumps({"question": f"q{n}", "evidence": "e"}) + "\n"
                   for n in range(questions)).encode()


def many_quotes_golden_set(quotes: int = 900_000) -> bytes:
    """One question giving ``quotes`` quotes (3.6 MB for 900,000)."""
    return (json.dumps({"question": "Everything?", "evidence": ["e"] * quotes}) + "\n").encode()


def common_quote_golden_set(quote: str, questions: int = 1_000) -> bytes:
    """``questions`` questions quoting a long phrase that many pages share."""
    return "".join(json.dumps({"question": f"Where is it said, {n}?", "evidence": quote}) + "\n"
                   for n in range(questions)).encode()


def deep_json(depth: int = 100_000) -> bytes:
    """A question record nested ``depth`` levels deep (Python's parser recurses once a level)."""
    return ('{"question": "deep", "evidence": ' + "[" * depth + '"x"' + "]" * depth + "}\n").encode()
