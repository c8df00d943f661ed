"""The CSV of ``/config export`` (:mod:`bot.export`): formula cells neutralised, parts cut
to size with the header on each, an export too large refused."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.export import FORMULA_START, HEADER, TooLarge, csv_parts, export_row, safe_cell
from bot.storage.records import ExportLine

WHEN = datetime(2025, 3, 14, 10, 30, tzinfo=UTC)


def line(user_id: int = 111, name: str | None = "Ana", kind: str = "papayoo") -> ExportLine:
    return ExportLine(
        game_id=1,
        kind="papayoo",
        result_kind=kind,
        number=4,
        finished_at=WHEN,
        user_id=user_id,
        name=name,
        rank=1,
        points=12,
        won=True,
    )


@given(st.text())
def test_no_cell_starts_a_formula(text: str) -> None:
    cell = safe_cell(text)
    assert not cell.startswith(FORMULA_START)
    assert cell == text or cell == "'" + text


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"])
def test_formula_starts_get_a_quote(text: str) -> None:
    assert safe_cell(text) == "'" + text


def test_a_row_says_the_game_and_a_forgotten_member_has_no_id() -> None:
    assert export_row(line(), "Former member") == [
        "papayoo", "4", "2025-03-14T10:30:00+00:00", "111", "Ana", "1", "12", "1", "0", "",
    ]  # fmt: skip
    former = export_row(line(-5, None, "papayoo.computers"), "Former member")
    assert former[3:5] == ["", "Former member"] and former[-2] == "1"
    from dataclasses import replace

    assert export_row(replace(line(), rated=False), "F")[-1] == "0"
    assert export_row(replace(line(), rated=True), "F")[-1] == "1"


async def chunks(lines: Sequence[ExportLine], size: int) -> AsyncIterator[list[ExportLine]]:
    for start in range(0, len(lines), size):
        yield list(lines[start : start + size])


async def test_parts_hold_whole_rows_and_the_header_each() -> None:
    lines = [line(100 + i, f'P{i},"x"') for i in range(25)]
    whole = await csv_parts(chunks(lines, 7), former="F", part_bytes=10_000, max_parts=5)
    assert whole.rows == 25 and len(whole.parts) == 1
    small = await csv_parts(chunks(lines, 7), former="F", part_bytes=400, max_parts=10)
    assert len(small.parts) > 1 and all(len(p) <= 400 for p in small.parts)
    rows = []
    for part in small.parts:
        read = list(csv.reader(io.StringIO(part.decode("utf-8-sig"))))
        assert tuple(read[0]) == HEADER
        rows += read[1:]
    assert [r[4] for r in rows] == [f'P{i},"x"' for i in range(25)]
    with pytest.raises(TooLarge):
        await csv_parts(chunks(lines, 7), former="F", part_bytes=400, max_parts=2)
    with pytest.raises(TooLarge):
        await csv_parts(chunks(lines, 7), former="F", part_bytes=100, max_parts=99)
