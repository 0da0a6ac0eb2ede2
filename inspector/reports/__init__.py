"""What the command line prints: the article's four tables and the CI gate.

``article`` builds and formats the tables of *The chunk boundary is the bug* (survival,
probe, budget sweep, header carry); ``gate`` holds one chunking's measures to floors,
ceilings and a baseline.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "article": ["build_report", "format_report"],
    "gate": ["MEASURES", "GateResult", "check_gate", "format_check", "measure", "measure_info", "parse_limit",
             "read_baseline", "write_baseline"],
})
