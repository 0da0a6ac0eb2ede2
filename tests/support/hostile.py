"""Documents that once took the server down: a wide table cut into thousands of chunks, a log
of several megabytes in one fence."""

from __future__ import annotations


def wide_table(columns: int = 300, size: int = 450_000) -> str:
    """A markdown table of ``columns`` columns and about ``size`` characters."""
    head = "| " + " | ".join(f"c{i}" for i in range(columns)) + " |\n"
    lines = ["# A wide table\n\n", head, "|" + "---|" * columns + "\n"]
    total, row = sum(map(len, lines)), 0
    while total < size:
        line = "| " + " | ".join(f"{row}.{i}" for i in range(columns)) + " |\n"
        lines.append(line)
        total += len(line)
        row += 1
    return "".join(lines)


def fenced_log(size: int = 4_000_000) -> str:
    """A log of about ``size`` characters in one fenced block."""
    lines = ["# A log\n\n```text\n"]
    total, i = len(lines[0]), 0
    while total < size:
        line = f"2026-12-01T08:{i % 60:02d}:00Z INFO worker-{i % 17} processed batch {i} in {i % 997} ms\n"
        lines.append(line)
        total += len(line)
        i += 1
    return "".join(lines) + "```\n"
