"""What the command line prints: the article's four tables, the fixes table, the CI gate and
MLflow runs.

``article`` builds the tables of *The chunk boundary is the bug* (survival, probe, budget
sweep, header carry) and ``printed`` prints them, with each rate's interval and each table's
verdict (``decide``: which rows differ beyond noise); ``fixes_table`` measures the five fixes of *The Orphan
Test* one by one; ``gate`` holds one chunking's measures to floors, ceilings and a baseline;
``tracking`` logs one MLflow run per configuration; ``snippets`` is the code that runs a
configuration elsewhere (this library, LangChain, LlamaIndex, Chonkie, the command line).
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "article": ["ReportPlan", "build_report"],
    "printed": ["format_report"],
    "snippets": ["Snippet", "check_floors", "snippets_for"],
    "fixes_table": ["STEPS", "FixRow", "FixStep", "FixesTable", "fix_specs", "fix_steps", "format_fixes",
                    "measure_fixes", "measure_step"],
    "tracking": ["TrackedRun", "log_runs", "report_runs"],
    "gate": ["MEASURES", "GateResult", "check_gate", "format_check", "measure", "measure_info", "parse_limit",
             "read_baseline", "write_baseline"],
})
