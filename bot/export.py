"""A server's results as CSV (``/config export``): one row per seat of a finished game.

Columns: ``game`` (its kind), ``number`` (as players know it: Papayoo #4), ``finished_at``
(UTC, ISO 8601), ``user_id``, ``display_name`` (the one the member had at the table, when
the game kept it), ``rank`` (1 wins; tied players share one), ``points``, ``won`` (1/0),
``with_computers`` (1 when computer seats played: those games are filed apart), ``rated``
(1 when the game rated this member, 0 for a casual game, one with computers, or a member
who kept out of the ratings; empty when the ratings never judged it). A member
the bot forgot (``/forget-me``) has no id and the name "Former member".

Safe to open in a spreadsheet: a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or
a carriage return (what a spreadsheet reads as a formula) gets a leading ``'``.

Sized for Discord: the rows are cut into parts of at most ``part_bytes`` each (the header
on every part), and an export that would need more than ``max_parts`` is refused
(:class:`TooLarge`) rather than sent in pieces nobody can use.
"""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC
from typing import Final

from bot.present import is_former
from bot.storage.records import ExportLine

__all__ = [
    "FORMULA_START",
    "HEADER",
    "CsvParts",
    "TooLarge",
    "csv_parts",
    "export_row",
    "safe_cell",
]

HEADER: Final = (
    "game",
    "number",
    "finished_at",
    "user_id",
    "display_name",
    "rank",
    "points",
    "won",
    "with_computers",
    "rated",
)
FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet may read as the start of a formula (CSV injection)."""
COMPUTERS_SUFFIX: Final = ".computers"
"""Result lines of games with computer seats are filed under ``<kind>.computers``."""


class TooLarge(ValueError):
    """The export would need more parts than allowed."""

    def __init__(self, rows: int, parts: int) -> None:
        super().__init__(f"{rows}+ rows need more than {parts} parts")
        self.rows = rows
        self.parts = parts


def safe_cell(value: object) -> str:
    """A cell as text, with a ``'`` before what would start a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def export_row(line: ExportLine, former: str) -> list[str]:
    """One result line as CSV cells (``former``: the name of a forgotten member)."""
    forgotten = is_former(line.user_id)
    cells: Sequence[object] = (
        line.kind,
        line.number,
        line.finished_at.astimezone(UTC).isoformat(timespec="seconds"),
        "" if forgotten else line.user_id,
        former if forgotten else (line.name or ""),
        "" if line.rank is None else line.rank,
        line.points,
        int(line.won),
        int(line.result_kind.endswith(COMPUTERS_SUFFIX)),
        "" if line.rated is None else int(line.rated),
    )
    return [safe_cell(cell) for cell in cells]


class _Rows:
    """One CSV writer for every row, each row handed back as its UTF-8 bytes."""

    def __init__(self) -> None:
        self._out = io.StringIO()
        self._writer = csv.writer(self._out, lineterminator="\r\n")

    def encoded(self, cells: Sequence[str]) -> bytes:
        self._out.seek(0)
        self._out.truncate()
        self._writer.writerow(cells)
        return self._out.getvalue().encode("utf-8")


@dataclass
class CsvParts:
    """The CSV files of one export, each within the size given."""

    parts: list[bytes] = field(default_factory=list)
    rows: int = 0


async def csv_parts(
    lines: AsyncIterable[Sequence[ExportLine]],
    *,
    former: str,
    part_bytes: int,
    max_parts: int,
) -> CsvParts:
    """Every line as CSV, cut into parts of at most ``part_bytes`` (UTF-8, with a byte
    order mark so that spreadsheets read the names right, and the header on each);
    :class:`TooLarge` as soon as more than ``max_parts`` would be needed."""
    rows = _Rows()
    head = b"\xef\xbb\xbf" + rows.encoded(HEADER)
    done = CsvParts()
    current = bytearray(head)
    async for chunk in lines:
        for line in chunk:
            row = rows.encoded(export_row(line, former))
            if len(head) + len(row) > part_bytes:
                raise TooLarge(done.rows, max_parts)  # one row alone cannot fit
            if len(current) + len(row) > part_bytes:
                done.parts.append(bytes(current))
                if len(done.parts) >= max_parts:
                    raise TooLarge(done.rows, max_parts)
                current = bytearray(head)
            current += row
            done.rows += 1
    done.parts.append(bytes(current))
    return done
