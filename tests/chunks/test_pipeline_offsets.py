"""Imports that see the text the user's pipeline saw: front matter kept or reported apart, offsets
counted in the raw file, repeated text placed on the copy its offset names, harmless shifts told
apart from misplaced occurrences."""

from __future__ import annotations

import json

import pytest

from inspector import load_corpus
from inspector.chunks.importer import import_chunks
from inspector.cli import main
from tests.support.files import write

FRONT = "---\ntitle: Ports\nversion: 4.2\n---\n"
BODY = ("# Ports\n\nThe admin port is 7440.\n\n```\nhbl status\n```\n\n## Replication\n\n"
        "Replication uses port 7430.\n\n```\nhbl status\n```\n\nDone.\n")


@pytest.fixture
def corpus_folder(tmp_path):
    write(tmp_path, "docs/ports.md", FRONT + BODY)
    write(tmp_path, "docs/plain.md", "# Plain\n\nNo front matter here, 3 lines of text.\n")
    return tmp_path / "docs"


def records(*items) -> bytes:
    return ("\n".join(json.dumps(item) for item in items) + "\n").encode()


def kinds(result) -> list[str]:
    return [p.kind for p in result.problems]


def test_a_document_knows_where_its_text_starts_in_the_file(corpus_folder):
    stripped = load_corpus(corpus_folder).by_id("ports.md")
    kept = load_corpus(corpus_folder, keep_front_matter=True).by_id("ports.md")
    assert (stripped.text, stripped.start_in_file) == (BODY, len(FRONT))
    assert (kept.text, kept.start_in_file) == (FRONT + BODY, 0)
    assert dict(kept.meta)["version"] == "4.2" == dict(stripped.meta)["version"]
    write(corpus_folder, "bom.md", "\ufeff" + FRONT + "x\n")
    assert load_corpus(corpus_folder).by_id("bom.md").start_in_file == 1 + len(FRONT)


def test_a_front_matter_chunk_is_reported_as_such_or_placed_when_kept(corpus_folder):
    data = records({"doc_id": "ports.md", "text": FRONT.rstrip("\n")},
                   {"doc_id": "ports.md", "text": "The admin port is 7440."})
    stripped = import_chunks(data, load_corpus(corpus_folder), name="c.jsonl")
    assert kinds(stripped) == ["front-matter-only"] and stripped.imported == 1
    assert "--keep-front-matter" in stripped.problems[0].message
    kept = import_chunks(data, load_corpus(corpus_folder, keep_front_matter=True), name="c.jsonl")
    assert kinds(kept) == [] and kept.imported == 2


def test_offsets_counted_in_the_raw_file(corpus_folder):
    raw = FRONT + BODY
    spans = [(raw.index("The admin"), raw.index("The admin") + 23), (raw.index("## Replication"), len(raw))]
    data = records(*({"doc_id": "ports.md", "text": raw[a:b], "start": a, "end": b} for a, b in spans))
    corpus = load_corpus(corpus_folder)
    shifted = import_chunks(data, corpus, name="c.jsonl")
    assert kinds(shifted) == ["offset-mismatch", "offset-mismatch"], "placed by text, offsets off by the front matter"
    assert all(f"{len(FRONT)} characters earlier" in p.message for p in shifted.problems)
    exact = import_chunks(data, corpus, name="c.jsonl", raw_offsets=True)
    assert kinds(exact) == [] and exact.placements["offsets"] == 2
    assert [(c.start, c.end) for c in exact.chunks["ports.md"]] == [(a - len(FRONT), b - len(FRONT)) for a, b in spans]


def test_repeated_text_goes_on_the_copy_its_offset_names_and_says_so(corpus_folder):
    raw = FRONT + BODY
    fence = "```\nhbl status\n```"
    second = raw.rindex(fence)
    title = raw.index("# Ports")
    data = records({"doc_id": "ports.md", "text": "# Ports", "start": title, "end": title + 7},
                   {"doc_id": "ports.md", "text": fence, "start": second, "end": second + len(fence)})
    result = import_chunks(data, load_corpus(corpus_folder), name="c.jsonl")
    assert kinds(result) == ["offset-mismatch", "other-occurrence"]
    placed = [(c.start, c.end) for c in result.chunks["ports.md"]]
    assert placed[1] == (BODY.rindex(fence), BODY.rindex(fence) + len(fence)), "the second copy, as its offset says"
    message = result.problems[1].message
    assert "occurs 2 times" in message and f"not at {BODY.index(fence)}" in message


def test_the_command_line_summarises_harmless_shifts(corpus_folder, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path / "data"))
    raw = FRONT + BODY
    lines = [line for line in raw.split("\n") if line.strip() and line != "---" and ":" not in line]
    items, at = [], 0
    for line in lines:
        at = raw.index(line, at)
        items.append({"doc_id": "ports.md", "text": line, "start": at, "end": at + len(line)})
        at += 1
    fence = "```\nhbl status\n```"
    first = raw.index(fence)  # named by its offset after the chunks between the two copies
    between = next(n for n, item in enumerate(items) if item["text"].startswith("Replication uses")) + 1
    items.insert(between, {"doc_id": "ports.md", "text": fence, "start": first, "end": first + len(fence)})
    (tmp_path / "chunks.jsonl").write_bytes(records(*items))
    status = main(["check", str(corpus_folder), "--chunks", str(tmp_path / "chunks.jsonl")])
    err = capsys.readouterr().err
    assert status == 0
    shown = [line for line in err.splitlines() if ": offset-mismatch:" in line]
    assert len(shown) == 3 and "more chunks placed by their text" in err
    assert ": other-occurrence:" in err, "the repeated fence lines stand apart from the shifts"
    main(["check", str(corpus_folder), "--chunks", str(tmp_path / "chunks.jsonl"), "--raw-offsets"])
    assert "offset-mismatch" not in capsys.readouterr().err


def test_a_file_without_document_ids(corpus_folder, tmp_path):
    data = records({"text": "The admin port is 7440."})
    one = import_chunks(data, [load_corpus(corpus_folder).by_id("ports.md")], name="chonkie.jsonl")
    assert one.imported == 1 and kinds(one) == []
    many = import_chunks(data, load_corpus(corpus_folder), name="chonkie.jsonl")
    assert kinds(many) == ["no-document"] and "add a 'doc_id' field" in many.problems[0].message


def test_a_langchain_dump_of_raw_files_places_every_chunk_when_front_matter_is_kept(corpus_folder):
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    dump = []
    for path in sorted(corpus_folder.glob("*.md")):
        raw = path.read_text(encoding="utf-8")
        sections = MarkdownHeaderTextSplitter([("#", "h1"), ("##", "h2")], strip_headers=False).split_text(raw)
        pieces = RecursiveCharacterTextSplitter(chunk_size=60, chunk_overlap=0).split_documents(sections)
        dump += [{"page_content": d.page_content, "metadata": {**d.metadata, "source": path.name}} for d in pieces]
    data = records(*dump)
    kept = import_chunks(data, load_corpus(corpus_folder, keep_front_matter=True), name="langchain.jsonl")
    assert "not-found" not in kinds(kept) and "front-matter-only" not in kinds(kept)
    stripped = import_chunks(data, load_corpus(corpus_folder), name="langchain.jsonl")
    assert "not-found" not in kinds(stripped)
    assert stripped.imported + kinds(stripped).count("front-matter-only") + len(stripped.duplicates) == len(dump)


def test_oversized_is_judged_on_the_text_the_tool_emitted(corpus_folder, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path / "data"))
    wide = "Replication   uses\n\n\n   port 7430."  # the document holds it with whitespace the tool dropped
    write(corpus_folder, "wide.md", f"# Wide\n\n{wide}\n")
    emitted = "Replication uses port 7430."
    (tmp_path / "c.jsonl").write_bytes(records({"doc_id": "wide.md", "text": emitted}))
    status = main(["check", str(corpus_folder), "--chunks", str(tmp_path / "c.jsonl"), "--budget",
                   str(len(emitted)), "--max", "oversized=0", "--json"])
    verdict = json.loads(capsys.readouterr().out)
    assert status == 0 and verdict["measures"]["oversized"] == 0
    assert any("judged on the text c.jsonl emitted: 0 chunks over 27 chars (1 by their span" in n
               for n in verdict["notes"])


def _langchain_export(corpus, path, widened: bool) -> None:
    """Chunks of LangChain's splitter as it runs by default (each chunk's whitespace stripped), or
    the same chunks ``widened`` over the whitespace that follows each of them."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=400, chunk_overlap=0, add_start_index=True)
    with open(path, "w", encoding="utf-8") as stream:
        for document in corpus:
            text = document.text
            for piece in splitter.create_documents([text]):
                start = piece.metadata["start_index"]
                end = start + len(piece.page_content)
                while widened and end < len(text) and text[end].isspace():
                    end += 1
                stream.write(json.dumps({"doc_id": document.id, "text": text[start:end], "start_index": start}) + "\n")


def test_a_trimmed_langchain_export_passes_the_floors_its_widened_twin_passes(tmp_path, capsys, isolated_app):
    # LangChain's splitters strip each chunk's whitespace by default: the newline after a table or
    # a fence is left out, which must not count as cutting the atom.
    pytest.importorskip("langchain_text_splitters")
    from tests.support.paths import SAMPLE

    folder = tmp_path / "docs"
    for name in ("blog/designing-tiered-storage.md", "blog/inside-harborline-replication.md",
                 "handbook/benefits-by-country.md", "product/reference/cli-hbl.md"):
        write(folder, name, (SAMPLE / name).read_text(encoding="utf-8"))
    corpus = load_corpus(folder)
    measured = {}
    for widened in (True, False):
        chunks = tmp_path / f"chunks-{widened}.jsonl"
        _langchain_export(corpus, chunks, widened)
        assert main(["check", str(folder), "--chunks", str(chunks), "--budget", "400", "--json"]) == 0
        measured[widened] = json.loads(capsys.readouterr().out)["measures"]
    assert measured[False]["unplaced"] == 0
    assert measured[False]["code.all"] < 1 and measured[False]["table.all"] < 1  # some atoms really are cut
    assert measured[False] == measured[True]
    floors = [f"--min={name}={measured[True][name]}" for name in ("code.all", "table.all", "row.all", "num.all")]
    chunks = tmp_path / "chunks-False.jsonl"
    assert main(["check", str(folder), "--chunks", str(chunks), "--budget", "400", *floors]) == 0
