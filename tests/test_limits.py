"""``inspector.limits``: files from outside are read no further than their limit, however they arrive."""

from __future__ import annotations

import os
import threading

import pytest

from inspector.errors import InputTooLarge
from inspector.limits import MAX_CHUNK_FILE_BYTES, human_size, read_limited


def test_a_file_within_its_limit_is_read_whole(tmp_path):
    path = tmp_path / "chunks.jsonl"
    path.write_bytes(b"x" * 1000)
    assert read_limited(path, 1000, "chunk file") == b"x" * 1000
    with pytest.raises(InputTooLarge, match="chunks.jsonl is larger than the 999 bytes limit for a chunk file"):
        read_limited(path, 999, "chunk file")


def test_an_endless_device_is_refused_after_its_limit():
    with pytest.raises(InputTooLarge, match="zero is larger than the 20 MB limit"):
        read_limited("/dev/zero", MAX_CHUNK_FILE_BYTES, "chunk file")


def test_a_pipe_is_read_as_it_arrives_and_refused_past_its_limit(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write(size: int) -> None:
        try:
            with open(fifo, "wb") as stream:
                stream.write(b"y" * size)
        except BrokenPipeError:
            pass  # the reader stopped at its limit, as it should

    for size, refused in ((500, False), (5_000_000, True)):
        writer = threading.Thread(target=write, args=(size,))
        writer.start()
        if refused:
            with pytest.raises(InputTooLarge):
                read_limited(fifo, 1_000_000, "golden set")
        else:
            assert read_limited(fifo, 1_000_000, "golden set") == b"y" * 500
        writer.join(timeout=10)
        assert not writer.is_alive()


def test_a_nul_character_is_no_path_and_a_missing_file_an_os_error(tmp_path):
    with pytest.raises(InputTooLarge, match="NUL character"):
        read_limited("a\x00b", 10, "baseline")
    with pytest.raises(FileNotFoundError):
        read_limited(tmp_path / "absent", 10, "baseline")
    assert (human_size(20_000_000), human_size(1_500_000), human_size(2_500)) == ("20 MB", "1.5 MB", "2.5 kB")
