"""A game night survives a real ``kill -9``: the bot runs in its own OS process
(``tests.procbot``) against the fake Discord of this test, and is killed with SIGKILL at
the worst moments. At the seating: Discord has created a table's thread and the bot has not
read the reply (nor saved the thread's id); a new process on the same database takes the
night over, every table opens once, in one thread each, and every attendee is pinged once.
At the close: Discord has taken the board's closing edit and the night is not yet marked
closed; the next process closes it, with one board."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.clock import SystemClock
from bot.fakediscord.models import FakeUser, RecordedCall
from bot.settings import Settings
from bot.storage import Store, make_database
from bot.storage.models import Night, NightTable
from cogs.gamenight._plan import START, timer_key
from cogs.gamenight._run import load_seating
from tests.cogs.conftest import Office
from tests.cogs.test_gamenight_run import pings

pytestmark = pytest.mark.e2e

COGS = ("cogs.gamenight", "cogs.spit", "cogs.papayoo")
ROOT = Path(__file__).resolve().parents[2]


@contextlib.asynccontextmanager
async def store_at(db_file: Path) -> AsyncIterator[Store]:
    """The database the bot processes use, opened by the test (SQLite takes both)."""
    store = Store(make_database(Settings(database_path=db_file)), SystemClock())
    await store.open()
    try:
        yield store
    finally:
        await store.close()


async def spawn(office: Office, db_file: Path, log: Path) -> asyncio.subprocess.Process:
    """A bot process, once it is ready (connected, guilds received, caught up)."""
    fake = office.fake
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.procbot",
        fake.api_base,
        fake.gateway_url,
        str(db_file),
        *COGS,
        cwd=ROOT,
        # the database given, whatever the environment says (DATABASE_URL: PostgreSQL)
        env={k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        stdout=asyncio.subprocess.PIPE,
        stderr=log.open("ab"),
    )
    assert proc.stdout is not None
    try:
        line = await asyncio.wait_for(proc.stdout.readline(), timeout=60)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert line.strip() == b"ready", (line, log.read_text(errors="replace")[-3000:])
    return proc


async def stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), timeout=20)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def plan_night(office: Office, db_file: Path, people: list[FakeUser]) -> int:
    """A night of ``people`` (Ana and Bob for Spit only), planned as ``/gamenight plan``
    stores one, its hour a second away: the bot's sweep of the timers finds it."""
    async with store_at(db_file) as store:
        starts = SystemClock().now() + timedelta(seconds=1)
        night = await store.nights.create(
            guild_id=office.guild.id,
            channel_id=office.general.id,
            title="Friday",
            starts_at=starts,
            planner_id=office.owner.id,
            games=["spit", "papayoo"],
        )
        wishes = {office.ana: ["spit"], office.bob: ["spit"]}
        for user in people:
            await store.nights.set_rsvp(night.id, user.id, "in", wishes.get(user, []))
        await store.timers.put(START, starts, {"night_id": night.id}, timer_key(night.id, START))
        return night.id


async def playing(db_file: Path, night_id: int, log: Path) -> tuple[Night, list[NightTable]]:
    """The night once seated and playing, every table's game started."""
    async with store_at(db_file) as store:
        for _ in range(300):
            night = await store.nights.get(night_id)
            assert night is not None
            rows = await store.nights.tables(night_id)
            if night.status == "playing" and rows and all(r.game_id for r in rows):
                return night, rows
            await asyncio.sleep(0.1)
    raise AssertionError(f"the night is {night.status}: {rows}\n{log.read_text()[-4000:]}")


async def test_a_kill_9_between_a_thread_and_its_record_seats_everyone_once(
    office: Office, db_file: Path, tmp_path: Path
) -> None:
    fake = office.fake
    db_file.parent.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "bot.log"
    people = [office.ana, office.bob, office.cid, office.dan, office.eve, office.owner]
    first = await spawn(office, db_file, log)
    killed: list[RecordedCall] = []

    async def kill_at_the_second_thread(call: RecordedCall) -> None:
        """Discord made the second table's thread; the bot dies before it hears so."""
        made = [c for c in fake.calls if c.route.endswith("/threads") and c.status < 300]
        if killed or call.method != "POST" or call not in made or len(made) < 2:
            return
        killed.append(call)
        os.kill(first.pid, signal.SIGKILL)

    fake.before_reply.append(kill_at_the_second_thread)
    night_id = await plan_night(office, db_file, people)
    try:
        await asyncio.wait_for(first.wait(), timeout=60)
    except TimeoutError:
        calls = [str(c) for c in fake.calls]  # the bot never reached a second thread
        raise AssertionError(f"{calls}\n{log.read_text()[-4000:]}") from None
    finally:
        fake.before_reply.clear()
        if first.returncode is None:
            first.kill()
            await first.wait()
    assert killed and first.returncode == -signal.SIGKILL

    second = await spawn(office, db_file, log)
    try:
        now, rows = await playing(db_file, night_id, log)
        async with store_at(db_file) as store:
            seating = load_seating(now.meta["seating"])
            assert len(rows) == len(seating.tables) >= 2
            games = [g for g in await store.games.find(status=None) if g.kind != "lobby"]
            assert len(games) == len(seating.tables)  # none lost, none made twice
        threads = office.guild.active_threads()
        assert sorted(t.id for t in threads) == sorted(r.thread_id for r in rows)
        # the thread made as the first process died was found again, not made a second time
        made = [c for c in fake.calls if c.route.endswith("/threads") and c.status < 300]
        assert len(made) == len(rows) and killed[0] in made
        assert len({t.name for t in threads}) == len(threads)

        def everyone_told() -> bool:
            told = pings(fake)
            return all(told[uid] >= 1 for uid in seating.seated())

        assert await fake.wait_for(everyone_told, timeout=30)
        await asyncio.sleep(0.5)  # nothing more on its way
        told = pings(fake)
        assert all(told[uid] == 1 for uid in seating.seated()), told
        assert Counter(u.id for u in people) == Counter([*seating.seated(), *seating.waiting_ids()])
    finally:
        await stop(second)


async def test_a_kill_9_at_the_close_closes_the_night_once(
    office: Office, db_file: Path, tmp_path: Path
) -> None:
    """Each table's host ends their game; the last end closes the night, and the bot is
    killed when Discord has taken the board's closing edit (its picture) and the night is
    not yet marked closed. The next process closes it: one board, edited to the close."""
    fake = office.fake
    db_file.parent.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "bot.log"
    people = [office.ana, office.bob, office.cid, office.dan, office.eve, office.owner]
    first = await spawn(office, db_file, log)
    night_id = await plan_night(office, db_file, people)
    _, rows = await playing(db_file, night_id, log)
    killed: list[RecordedCall] = []

    async def kill_at_the_closing_edit(call: RecordedCall) -> None:
        """The board edited with the night's picture: the close. The bot dies there."""
        if killed or call.method != "PATCH" or not call.files or call.status >= 300:
            return
        if call.path.startswith(f"/channels/{office.general.id}/messages/"):
            killed.append(call)
            os.kill(first.pid, signal.SIGKILL)

    fake.before_reply.append(kill_at_the_closing_edit)
    try:
        async with store_at(db_file) as store:
            for row in rows:
                stored = await store.games.require(row.game_id)
                host = fake.users[int(stored.meta["host"])]
                assert row.thread_id is not None
                where = fake.channels[row.thread_id]
                asked = await fake.slash(host, where, f"{stored.kind} end", {})
                assert asked.response is not None, asked.text
                ended = await fake.click(
                    host, asked.response, f"gn:{stored.kind}:{stored.id}:abandon"
                )
                assert ended.answered, ended.text
        await asyncio.wait_for(first.wait(), timeout=60)
    finally:
        fake.before_reply.clear()
        if first.returncode is None:
            first.kill()
            await first.wait()
    assert killed and first.returncode == -signal.SIGKILL
    async with store_at(db_file) as store:
        left = await store.nights.get(night_id)
        assert left is not None and left.status == "playing"  # killed before it was marked

    second = await spawn(office, db_file, log)
    try:
        async with store_at(db_file) as store:
            for _ in range(300):
                closed = await store.nights.get(night_id)
                assert closed is not None
                if closed.status == "closed":
                    break
                await asyncio.sleep(0.1)
            assert closed.status == "closed", log.read_text()[-4000:]
        board = fake.message(int(killed[0].path.rsplit("/", 1)[1]))
        mine = [m for m in fake.channel_messages(office.general) if m.author is fake.bot_user]
        assert mine == [board]  # one board, never posted again
        closing = [
            c for c in fake.calls if c.method == "PATCH" and c.files and c.path == killed[0].path
        ]
        assert len(closing) == 2  # the edit the first process died on, and the next's
        assert board.attachments and board.embeds and board.embeds[0].get("image")
    finally:
        await stop(second)
