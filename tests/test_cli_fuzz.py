"""The command line under random and hostile arguments: every run ends with exit status 0, 1 or
2 and one readable line for a refusal, never a traceback.

Each example is run in this process (``main``), so an exception that would reach the user as a
traceback fails the example. ``FUZZ_EXAMPLES=2000`` runs many more examples than CI does.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.cli import main
from tests.support.strategies import hostile_text

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """A small corpus, a chunk file, a golden set and a baseline to point arguments at."""
    root = tmp_path_factory.mktemp("cli-fuzz")
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Alpha\n\nAlpha keeps 3 replicas of every partition in each of the regions.\n\n"
                                 "| k | v |\n|---|---|\n| port | 7420 |\n", encoding="utf-8")
    (corpus / "b.md").write_text("See [the docs](https://x.example) for all 12 keys and their defaults.\n",
                                 encoding="utf-8")
    (root / "chunks.jsonl").write_text(json.dumps({"doc_id": "a.md", "text": "Alpha keeps 3 replicas"}) + "\n{bad\n",
                                       encoding="utf-8")
    (root / "golden.jsonl").write_text(json.dumps({"question": "how many replicas?", "evidence": "3 replicas"})
                                       + "\n", encoding="utf-8")
    (root / "baseline.json").write_text('{"format": "chunk-inspector-baseline", "measures": {"code": 2}}',
                                        encoding="utf-8")
    (root / "empty").mkdir()
    return root


def _good(places) -> dict[str, list[str]]:
    """Plausible values of each flag; the fuzz mixes in hostile ones."""
    return {
        "corpus": [str(places / "corpus")],
        "--atoms": ["markdown", "seed", "plain"],
        "--spec": ["structured:200", "fixed:50/10", "heading:64t", "sentence:80+path", "recursive:100;seps=%0A",
                   "ext-langchain:300", "imported:0123456789abcdef", "paragraph:60-header"],
        "--sweep": ["structured:200", "fixed:100/20"],
        "--budgets": ["100,200", "50", "400,100,400"],
        "--jobs": ["1", "2"],
        "--chunks": [str(places / "chunks.jsonl")],
        "--golden": [str(places / "golden.jsonl")],
        "--baseline": [str(places / "baseline.json")],
        "--budget": ["100", "20"],
        "--unit": ["chars", "o200k", "cl100k_base"],
        "--default-doc": ["a.md", "b"],
        "--min": ["code=0.5", "recall@2000=0.1", "unplaced=0", "cut=0.2", "code=95%", "chunks=1", "table=1"],
        "--max": ["cut=0.5", "oversized=3", "unplaced=2"],
        "--tolerance": ["0.01", "0"],
        "--count-tolerance": ["0.1"],
    }


HOSTILE_PLACES = ["/dev/zero", "/dev/null", "", "-", "absent.md", "fixed:" + "9" * 5000, "nosuch:1", "9" * 40,
                  "code=", "=1", "bogus=1", "-5", "1e999"]


def value(places, flag: str):
    good = st.sampled_from(_good(places).get(flag, ["x"]))
    # Mostly plausible, so that runs get past the first refusal and exercise what follows.
    return st.one_of(*[good] * 8, st.sampled_from(HOSTILE_PLACES), hostile_text())


FLAGS = {
    "report": ["--atoms", "--json", "--spec", "--sweep", "--budgets", "--quiet", "--jobs"],
    "check": ["--atoms", "--spec", "--chunks", "--budget", "--unit", "--default-doc", "--min", "--max", "--golden",
              "--baseline", "--tolerance", "--count-tolerance", "--json"],
    "export": ["--atoms", "--spec"],
}
SWITCHES = {"--json", "--quiet"}


@st.composite
def argv(draw, places):
    command = draw(st.sampled_from([*FLAGS, *FLAGS, "explode"]))
    args = [command, draw(value(places, "corpus"))]
    if command == "check":
        which = draw(st.sampled_from(["--spec", "--spec", "--chunks"]))
        args += [which, draw(value(places, which))]
    elif command == "export":
        args += ["--spec", draw(value(places, "--spec")), "-o", str(places / "out.jsonl")]
    for flag in draw(st.lists(st.sampled_from(FLAGS.get(command, ["--spec"])), max_size=4)):
        args.append(flag)
        if flag not in SWITCHES:
            args.append(draw(value(places, flag)))
    if command == "report" and "--quiet" not in args:
        args.append("--quiet")
    return args


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 60, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_argument_ends_in_a_traceback(data, places):
    args = data.draw(argv(places))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as exit_:  # argparse's own refusals and --help
            status = exit_.code
    assert status in (0, 1, 2), (args, status, err.getvalue()[-500:])
    if status == 2:
        last = [line for line in err.getvalue().splitlines() if line.strip()][-1]
        assert "error" in last and len(last) < 2_000, (args, last[:300])
    assert "Traceback" not in err.getvalue()
    STATUSES[status] += 1


STATUSES: Counter = Counter()


def test_the_fuzzed_runs_reach_every_exit_status(places):
    # The arguments explore past argparse's refusals. The fuzz test counts its runs when it runs in
    # this process first; under xdist (`make test`) it may run in another worker, or after: then
    # it is run here.
    if sum(STATUSES.values()) < 30:
        test_no_argument_ends_in_a_traceback(places)
    assert STATUSES[0] and STATUSES[2], STATUSES
