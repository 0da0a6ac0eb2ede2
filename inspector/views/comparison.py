"""What the Compare page draws from its measured rows, computed at once: tables a and b as shown
(each rate beside its interval), a sentence per clicked cell, the verdicts and both charts.

A page keeps the whole of it per setting, so a shared link whose rows are kept draws it without
computing or hashing a frame again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd

from ..model import ATOM_KINDS, ATOM_LABELS
from .charts import probe_chart, survival_chart
from .frames import TABLE_A, TABLE_B, probe_verdict, survival_verdict
from .intervals import bound_columns, interval_notes, with_intervals

#: Table b's rates that carry an interval.
PROBE_RATES: tuple[str, ...] = ("answer@5", "cut")


@dataclass(frozen=True)
class ProbeTable:
    """Table b as shown: its rows with their interval bounds, each rate beside its interval, and
    a sentence per rate."""

    rows: pd.DataFrame
    """The splitters' rows, then any store's that ranked the probe's queries by its own search."""

    shown: pd.DataFrame
    notes: pd.DataFrame

    @classmethod
    def of(cls, rows: pd.DataFrame) -> "ProbeTable":
        return cls(rows, with_intervals(rows, PROBE_RATES),
                   interval_notes(rows, PROBE_RATES, label="splitter", counted="queries",
                                  method="Wilson's, each query one trial"))


@dataclass(frozen=True)
class CompareTables:
    """Tables a and b of one setting, as the Compare page shows them."""

    frame: pd.DataFrame
    """Every measured column, one row per splitter (``compare_frame``'s, titled as shown)."""

    table_a: pd.DataFrame
    notes_a: pd.DataFrame
    survival_said: str
    survival_chart: dict
    probe: ProbeTable
    probe_said: str
    probe_chart: dict

    def with_searched(self, searched: Sequence[pd.DataFrame]) -> "CompareTables":
        """These tables with ``searched`` (rows of stores that ranked the probe's queries by their
        own search) added to table b."""
        if not searched:
            return self
        return replace(self, probe=ProbeTable.of(pd.concat([self.probe.rows, *searched], ignore_index=True)))


def compare_tables(rows: Sequence[pd.DataFrame], specs: Sequence[str], titles: Sequence[str]) -> CompareTables:
    """The tables of ``rows`` (one measured row per splitter, in order), each row's spec as the
    user wrote it (``specs``) and its name as shown (``titles``)."""
    frame = pd.concat(rows, ignore_index=True)
    frame["spec"] = list(specs)
    frame["splitter"] = list(titles)
    shown = with_intervals(frame, ATOM_KINDS)
    table_a = shown[[c for c in shown.columns if c in TABLE_A or c.endswith(" 95%")]]
    notes_a = interval_notes(frame, ATOM_KINDS, label="splitter", counted="atoms", method="documents resampled",
                             names={kind: ATOM_LABELS[kind] + "s" for kind in ATOM_KINDS})[table_a.columns]
    return CompareTables(frame=frame, table_a=table_a, notes_a=notes_a, survival_said=survival_verdict(frame),
                         survival_chart=survival_chart(frame),
                         probe=ProbeTable.of(frame[[*TABLE_B, *bound_columns(PROBE_RATES)]]),
                         probe_said=probe_verdict(frame), probe_chart=probe_chart(frame))
