"""Rated games for the boards' tests: a Papayoo stand-in that the system ends with the
ranking it is given (the ratings store's own), finished through ``bot.store.games.act`` as
a real game, so the ratings update in its result's transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine import GAMES, SYSTEM
from bot.storage import StoredGame
from tests.bot.test_ratings_storage import RankedGame

COGS = ["cogs.config", "cogs.boards"]


class RankedPapayoo(RankedGame):
    """The ratings store's stand-in, with what the Papayoo cog files of a result (no round:
    where the real cog is loaded too, as in the sandbox)."""

    def result(self) -> dict[str, Any]:
        return {**super().result(), "rounds": []}

    def public_view(self) -> dict[str, Any]:
        return {**super().public_view(), "players": list(self.players)}


@pytest.fixture
def ranked_papayoo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Papayoo games are the stand-in for the test (a real one takes hundreds of moves)."""
    monkeypatch.setitem(GAMES, "papayoo", RankedPapayoo)


async def play(
    bot: GamenightBot,
    guild_id: int,
    channel_id: int,
    ranking: Sequence[Sequence[int]],
    *,
    clock: FakeClock | None = None,
    names: Mapping[int, str] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> StoredGame:
    """A Papayoo of the players in ``ranking`` (groups tie), finished with that ranking;
    the clock then moves an hour on (so each game has its own time)."""
    players = [str(p) for group in ranking for p in group]
    shown = {str(p): n for p, n in (names or {}).items() if str(p) in players}
    game_id = await bot.store.games.create(
        "papayoo",
        guild_id,
        channel_id,
        RankedPapayoo(players, 99),
        meta={"names": shown, **(meta or {})},
    )
    outcome = await bot.store.games.act(
        game_id, SYSTEM, {"type": "finish", "ranking": [[str(p) for p in g] for g in ranking]}
    )
    assert outcome.game.status == "over"
    if clock is not None:
        clock.advance(timedelta(hours=1))
    return outcome.game
