"""``inspector.corpus.conversions``: conversions and refusals kept by content, converter and
limits; an entry damaged or moved to another file's name is dropped and the file converted
again; the folder stays bounded."""

from __future__ import annotations

import json
import os

import pytest

from inspector.corpus.conversions import ConversionCache, trim
from inspector.errors import UnreadableFile
from tests.support.paths import SAMPLE

HTML = (SAMPLE / "formats" / "rotating-the-admin-certificate.html").read_bytes()


def entries(folder):
    return sorted(p for p in folder.rglob("*.json"))


def test_a_refusal_is_kept_like_a_conversion_and_never_converted_twice(tmp_path, monkeypatch):
    cache = ConversionCache(tmp_path)
    binary = b"<p>\0</p>"
    with pytest.raises(UnreadableFile, match="NUL bytes"):
        cache.convert(binary, "html")
    monkeypatch.setattr("inspector.corpus.conversions.to_markdown", None)  # a second time must not convert
    again = ConversionCache(tmp_path)
    assert again.holds(binary, "html")
    with pytest.raises(UnreadableFile, match="NUL bytes"):
        again.convert(binary, "html")
    assert [p.name.endswith(".refused.json") for p in entries(tmp_path)] == [True]


def test_an_entry_moved_to_another_files_name_is_dropped_and_converted_again(tmp_path):
    cache = ConversionCache(tmp_path)
    first = cache.convert(HTML, "html")
    other = HTML.replace(b"certificate", b"certificates")
    cache.convert(other, "html")
    one, two = entries(tmp_path)
    two.write_bytes(one.read_bytes())  # the first file's conversion under the second one's name
    fresh = ConversionCache(tmp_path)
    assert fresh.convert(other, "html").text != first.text and fresh.dropped == 1 and fresh.converted == 1
    data = json.loads(two.read_text())
    data["text"] = data["text"].replace("certificate", "CERTIFICATE")  # damaged, seal kept
    two.write_text(json.dumps(data))
    assert "CERTIFICATE" not in ConversionCache(tmp_path).convert(other, "html").text


def test_the_folder_is_trimmed_oldest_first(tmp_path):
    for n in range(8):
        path = tmp_path / "ab" / f"{n}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"x" * 1000)
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
    trim(tmp_path, most=8000)
    assert len(entries(tmp_path)) == 8, "under the bound: nothing goes"
    trim(tmp_path, most=4000)
    assert [p.name for p in entries(tmp_path)] == ["5.json", "6.json", "7.json"]
