"""One human and three computer players through the fake Discord: the human's answer times.

The host opens a table with the real bot and seats three computers of ``--level`` from the
lobby's select, as a user would (``--others humans``: three colleagues join instead, played
by the bench, the baseline; ``--think``: they move at a computer's pace). Computers move at
once (``COMPUTER_DELAY = 0``, the worst case for the event loop). The host plays the first
control on their hand as soon as it is their turn and, all game long, presses "Show my
hand" on the table or clicks a control of an earlier turn (answered "stale"), ``--poke``
seconds apart: what the event loop answers a human while computers think.

Prints the host's answer times (dispatch to the callback the fake Discord receives), p50,
p99 and max, for all their interactions and per kind; the other seats' answer times; the
computers' decision times as the bot saw them (``SeatedCog._think``, wall clock); fallbacks.

    python -m bench.computers_discord                    # Papayoo, three hard computers
    python -m bench.computers_discord --others humans    # the same table, four humans
    python -m bench.computers_discord --others humans --think 0.07
    python -m bench.computers_discord --thinking thread  # as before bot.computers
    python -m bench.computers_discord --level easy
    python -m bench.computers_discord --game speahx --moves 300
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench._latency import percentile
from bot import computers
from bot.ai import LEVELS
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine import new_game
from bot.fakediscord.driver import InteractionResult
from bot.fakediscord.models import FakeMessage, FakeUser
from bot.seated import SeatedCog
from bot.seated.controls import stamp
from bot.settings import Settings
from bot.storage import StoredGame
from tests.fakediscord import FakeDiscord

GAMES = {
    "papayoo": ("cogs.papayoo", "Papayoo"),
    "speahx": ("cogs.speahx", "Speahx"),
}


def figures(seconds: Sequence[float]) -> str:
    """``n, p50, p99, max`` of answer times given in seconds."""
    if not seconds:
        return "none"
    return (
        f"n {len(seconds):4d}  p50 {statistics.median(seconds) * 1000:6.1f} ms"
        f"  p99 {percentile(seconds, 0.99) * 1000:6.1f} ms  max {max(seconds) * 1000:6.1f} ms"
    )


class Fallbacks(logging.Handler):
    """Counts the computers' fallbacks to the timer's move (the bot logs each one)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "fell back" in record.getMessage():
            self.count += 1


def timed_thinking(decisions: list[float]) -> Callable[[], None]:
    """Record how long each computer decision took, as the event loop saw it; returns undo."""
    think = SeatedCog._think

    async def timed(self: SeatedCog, stored: StoredGame, player: str) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            return await think(self, stored, player)
        finally:
            decisions.append(time.perf_counter() - started)

    SeatedCog._think = timed  # type: ignore[method-assign]

    def undo() -> None:
        SeatedCog._think = think  # type: ignore[method-assign]

    return undo


def controls_of(fake: FakeDiscord, user: FakeUser, mark: str) -> FakeMessage | None:
    """The user's hand DM once it shows the controls of the decision ``mark``."""
    for msg in reversed(fake.dms(user)):
        if msg.deleted:
            continue
        for comp in fake.components_of(msg):
            if f":{mark}" in str(comp.get("custom_id")) and not comp.get("disabled"):
                return msg
    return None


def card_button(fake: FakeDiscord, message: FakeMessage) -> str | None:
    """The first button of a move on ``message`` (a pick of cards to pass has none)."""
    for comp in fake.components_of(message):
        custom_id = str(comp.get("custom_id"))
        if comp["type"] == 2 and ":do:" in custom_id and not comp.get("disabled"):
            return custom_id
    return None


async def play_first_control(fake: FakeDiscord, user: FakeUser, mark: str) -> InteractionResult:
    """The user plays the first control their hand offers for the decision ``mark`` (a card
    button, an entry of a select, the first cards of a pick)."""
    message = await fake.wait_for(lambda: controls_of(fake, user, mark), timeout=10)
    for comp in fake.components_of(message):
        custom_id = str(comp.get("custom_id"))
        if f":{mark}" not in custom_id or comp.get("disabled") or ":page:" in custom_id:
            continue
        if comp["type"] == 2:
            result = await fake.click(user, message, custom_id, settle=0.0)
        else:
            values = [o["value"] for o in comp["options"]][: comp.get("min_values") or 1]
            result = await fake.select(user, message, custom_id, values, settle=0.0)
        assert result.callback_type == 7, result.text
        return result
    raise AssertionError(f"{user.name} has no control for {mark}")


async def run(
    game: str,
    others: str,
    level: str,
    rounds: int,
    moves: int,
    poke: float,
    think: float,
) -> None:
    extension, cog_name = GAMES[game]
    fake = FakeDiscord()
    await fake.start()
    decisions: list[float] = []
    undo = timed_thinking(decisions)
    fallbacks = Fallbacks()
    logging.getLogger("bot").addHandler(fallbacks)
    times: dict[str, list[float]] = defaultdict(list)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            bot = GamenightBot(
                Settings(database_path=Path(tmp) / "bench.sqlite3"),
                FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC)),
                [extension],
            )
            guild = fake.add_guild("Office")
            channel = fake.add_text_channel(guild, "games")
            users = []
            for name in ("Ana", "Bob", "Cyd", "Dee"):
                user = fake.add_user(name)
                fake.add_member(guild, user)
                users.append(user)
            host = users[0]
            humans = {str(u.id): u for u in (users if others == "humans" else [host])}
            async with fake.run_client(bot):
                # A bot that played before: its worker processes have started (the first
                # decision of a bot's life waits for them; here, a worker imports this bench).
                warm_from = time.perf_counter()
                sample = new_game("papayoo", ["1", "2", "3", "cpu1"], 1, {"rounds": 1})
                await computers.think(sample, "cpu1", level="easy", seed=1, budget_ms=5, timeout=60)
                warm_up = time.perf_counter() - warm_from
                options: dict[str, Any] = {"turn_seconds": 90}
                if game == "papayoo":
                    options["rounds"] = rounds
                lobby = await fake.slash(host, channel, f"{game} begin", options)
                assert lobby.response is not None, lobby.text
                if others == "humans":
                    for user in users[1:]:
                        joined = await fake.click(user, lobby, label="Join", settle=0.0)
                        assert joined.callback_type == 7, joined.text
                else:
                    add = next(
                        s["custom_id"]
                        for s in fake.selects(lobby)
                        if s["custom_id"].endswith(":add_computer")
                    )
                    for _ in range(3):
                        seated = await fake.select(host, lobby, add, [level], settle=0.0)
                        assert seated.callback_type == 7, seated.text
                started = await fake.click(host, lobby, label="Start", settle=0.0)
                assert started.callback_type == 7, started.text
                cog = bot.get_cog(cog_name)
                assert isinstance(cog, SeatedCog)
                await cog.settle()
                [stored] = await bot.store.games.find(kind=game)
                game_id = stored.id
                table = fake.message(stored.meta["table_id"])
                stale: list[FakeMessage] = []
                """Hands the host was shown on their turn and no longer watches: a click on
                one of their controls is answered "stale"."""
                playing = True

                async def show_hand() -> FakeMessage:
                    shown = await fake.click(host, table, f"gn:{game}:{game_id}:hand", settle=0)
                    assert shown.callback_type == 4 and shown.response is not None, shown.text
                    times["show my hand"].append(shown.latency or 0.0)
                    return shown.response

                async def pester() -> None:
                    """While the game lasts, the host looks at their hand, or clicks a control
                    of an earlier turn, ``poke`` seconds apart."""
                    while playing:
                        source = stale.pop(0) if stale else None
                        control = source and card_button(fake, source)
                        if source is None or not control:
                            await show_hand()
                        else:
                            result = await fake.click(host, source, control, settle=0.0)
                            assert result.callback_type == 7, result.text
                            times["stale control"].append(result.latency or 0.0)
                        await asyncio.sleep(poke)

                poker = asyncio.create_task(pester())
                clock_started = time.perf_counter()
                first = stored.version
                try:
                    while True:
                        stored = await bot.store.games.require(game_id)
                        if not stored.is_active or stored.version - first >= moves:
                            break
                        waiting = [p for p in stored.game.to_act() if p in humans]
                        if not waiting:
                            await asyncio.sleep(0.005)
                            continue
                        for player in waiting:
                            mark = stamp(stored.game.legal_actions(player))
                            user = humans[player]
                            if user is not host:
                                await asyncio.sleep(think)
                            if user is host:
                                # The first copy is left behind (the second is kept current).
                                earlier = await show_hand()
                                await show_hand()
                            result = await play_first_control(fake, user, mark)
                            if user is host:
                                times["move"].append(result.latency or 0.0)
                                stale.append(earlier)
                            else:
                                times["others"].append(result.latency or 0.0)
                finally:
                    playing = False
                    await poker
                elapsed = time.perf_counter() - clock_started
                await cog.settle()
                made = stored.version - first
                problems = fake.problems()
    finally:
        undo()
        logging.getLogger("bot").removeHandler(fallbacks)
        await fake.stop()
    where = "a process" if computers.IN_PROCESS else "a thread"
    seats = (
        f"4 humans (think {think} s)"
        if others == "humans"
        else f"1 human + 3 {level} computers thinking in {where}"
    )
    print(
        f"{game}, {seats}, computer delay {SeatedCog.COMPUTER_DELAY} s, table edits at most"
        f" every {SeatedCog.TABLE_EDIT_INTERVAL} s, poke every {poke} s:"
        f" {made} moves in {elapsed:.1f} s"
    )
    if computers.IN_PROCESS:
        print(f"  (the worker processes started before the game, in {warm_up:.1f} s)")
    host_times = times["move"] + times["show my hand"] + times["stale control"]
    print(f"  host, every interaction  {figures(host_times)}")
    for kind in ("move", "show my hand", "stale control"):
        print(f"    {kind:21s}  {figures(times[kind])}")
    if others == "humans":
        print(f"  other humans' moves      {figures(times['others'])}")
    else:
        print(f"  computers' decisions     {figures(decisions)}  (budget {LEVELS[level]} ms)")
        print(f"  fallbacks to the timer's move: {fallbacks.count}")
    if problems:
        print("fake Discord problems:", *problems, sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="papayoo")
    parser.add_argument(
        "--others",
        choices=("computers", "humans"),
        default="computers",
        help="who takes the three other seats (humans: the baseline)",
    )
    parser.add_argument("--level", choices=list(LEVELS), default="hard")
    parser.add_argument(
        "--thinking",
        choices=("process", "thread"),
        default="process",
        help="where computers decide (thread: as the bot did before bot.computers)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="Papayoo rounds (1..20)")
    parser.add_argument("--moves", type=int, default=400, help="stop after this many moves")
    parser.add_argument(
        "--poke", type=float, default=0.02, help="seconds between two of the host's pokes"
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds the other humans wait before each move (a computer's pace)",
    )
    parser.add_argument(
        "--table-interval", type=float, default=0.1, help="seconds between two table edits"
    )
    args = parser.parse_args()
    SeatedCog.TABLE_EDIT_INTERVAL = args.table_interval
    SeatedCog.COMPUTER_DELAY = 0.0
    computers.IN_PROCESS = args.thinking == "process"
    SeatedCog.NOTICE_DELAY = 3600.0
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(
        run(args.game, args.others, args.level, args.rounds, args.moves, args.poke, args.think)
    )


if __name__ == "__main__":
    main()
