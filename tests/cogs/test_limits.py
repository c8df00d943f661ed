"""Limits per member, channel and server (:mod:`bot.limits`) through the fake Discord: open
tables, live games, commands and clicks per few seconds, ``/config limits``, and abandoned
tables purged with their rows."""

from __future__ import annotations

import asyncio

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.fakediscord.result import InteractionResult
from bot.limits import CLICKS, COMMANDS, MOVES, RateLimiter, RateRule
from bot.seated.lobby import CLOSED_LOBBY_KEPT
from bot.ui import ActionRouter
from tests.cogs.conftest import MakeBot, Office

pytestmark = pytest.mark.e2e

COGS = ["cogs.config", "cogs.papayoo"]


async def open_lobbies(bot: GamenightBot) -> list[int]:
    return [g.id for g in await bot.store.games.find(kind="lobby")]


async def lobby_rows(bot: GamenightBot) -> int:
    return int(await bot.db.fetchval("SELECT count(*) FROM games WHERE kind = 'lobby'"))


async def pending_timers(bot: GamenightBot) -> int:
    return len(await bot.timers.pending())


def refused(answer: InteractionResult, *needles: str) -> None:
    assert answer.ephemeral, answer
    for needle in needles:
        assert needle in answer.text, answer.text


async def test_a_fourth_open_table_is_refused_in_both_languages_and_nothing_is_made(
    office: Office, make_bot: MakeBot
) -> None:
    fake, ana, bob = office.fake, office.ana, office.bob
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        for _ in range(3):
            made = await fake.slash(bob, office.general, "papayoo begin")
            assert not made.ephemeral, made.text
        before = (
            await lobby_rows(bot),
            await pending_timers(bot),
            len(fake.channel_messages(office.general)),
        )
        fourth = await fake.slash(bob, office.general, "papayoo begin")
        refused(fourth, "You already host 3 open tables", "the limit per member", "Nothing")
        after = (await lobby_rows(bot), await pending_timers(bot))
        assert (*after, len(fake.channel_messages(office.general))) == before
        # Ana (in French) has her own three, then the same refusal in her language.
        for _ in range(3):
            assert not (await fake.slash(ana, office.general, "papayoo begin")).ephemeral
        hers = await fake.slash(ana, office.general, "papayoo begin")
        refused(hers, "Vous avez déjà 3 tables ouvertes", "la limite par membre", "Rien")
        assert len(await open_lobbies(bot)) == 6


async def test_the_channel_and_server_limits_count_everyone(
    office: Office, make_bot: MakeBot
) -> None:
    fake, owner = office.fake, office.owner
    bot = make_bot(COGS)
    other = fake.add_text_channel(office.guild, "games")
    async with fake.run_client(bot):
        changed = await fake.slash(
            owner,
            office.general,
            "config limits",
            {"lobbies-per-channel": 2, "lobbies-per-server": 3},
        )
        assert changed.ephemeral and "Open tables per channel: **2**" in changed.text
        assert not (await fake.slash(office.bob, office.general, "papayoo begin")).ephemeral
        assert not (await fake.slash(office.cid, office.general, "papayoo begin")).ephemeral
        full = await fake.slash(office.dan, office.general, "papayoo begin")
        refused(full, "This channel already has 2 open tables", "the limit per channel")
        assert not (await fake.slash(office.dan, other, "papayoo begin")).ephemeral
        server = await fake.slash(office.eve, other, "papayoo begin")
        refused(server, "This server already has 3 open tables", "the limit per server")
        assert len(await open_lobbies(bot)) == 3


async def test_a_sixth_live_game_is_refused_and_a_start_over_the_limit_too(
    office: Office, make_bot: MakeBot
) -> None:
    fake, ana = office.fake, office.ana
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        hosts = [office.bob, office.bob, office.bob, office.cid, office.cid, office.dan]
        lobbies = [await fake.slash(host, office.general, "papayoo begin") for host in hosts]
        for lobby in lobbies[:5]:
            joined = await fake.click(ana, lobby, label="Join")
            assert joined.callback_type == 7, joined.text
        sixth_id = (await ids(bot))[5]
        version = (await bot.store.games.require(sixth_id)).version
        answer = await fake.click(ana, lobbies[5], label="Join")
        refused(answer, "Vous êtes déjà assis à 5 parties", "la limite de parties en cours")
        stored = await bot.store.games.require(sixth_id)
        assert stored.version == version
        assert str(ana.id) not in stored.game.public_view()["players"]
        # Opening her own table would seat her a sixth time too.
        own = await fake.slash(ana, office.general, "papayoo begin")
        refused(own, "Vous êtes déjà assis à 5 parties")

        # Starting counts: with the limit lowered to 3, Bob's table (Ana at it) cannot start.
        lowered = await fake.slash(
            office.owner, office.general, "config limits", {"live-games-per-member": 3}
        )
        assert "Live games per member: **3**" in lowered.text
        first = lobbies[0]
        assert (await fake.click(office.eve, first, label="Join")).callback_type == 7
        start = await fake.click(office.bob, first, label="Start")
        refused(start, f"<@{ana.id}> already sits in 3 games", "cannot start")
        assert await bot.store.games.find(kind="papayoo") == []
        assert (await bot.store.games.require((await ids(bot))[0])).is_active


async def ids(bot: GamenightBot) -> list[int]:
    """The open lobbies' ids, oldest first."""
    return sorted(await open_lobbies(bot))


@pytest.mark.member_limits
async def test_a_flood_of_new_tables_makes_at_most_the_limit(
    office: Office, make_bot: MakeBot
) -> None:
    fake, bob = office.fake, office.bob
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        # The flood comes within one window whatever the machine's speed: time stands still.
        bot.actions.limiter = RateLimiter(now=lambda: 100.0)
        answers = await asyncio.gather(
            *(fake.slash(bob, office.general, "papayoo begin") for _ in range(20))
        )
        made = [a for a in answers if not a.ephemeral]
        assert len(made) == 3
        too_fast = [a for a in answers if "at most 8 commands every 5 seconds" in a.text]
        over = [a for a in answers if "You already host 3 open tables" in a.text]
        assert len(too_fast) == 12 and len(over) == 5
        assert all(a.ephemeral for a in too_fast + over)
        assert await lobby_rows(bot) == 3 and await pending_timers(bot) == 3
        # Bob's clicks on a lobby are held too (30 in the window); Ana in French is told so.
        lobby = made[0]
        clicks = [await fake.click(office.ana, lobby, label="Leave") for _ in range(31)]
        refused(clicks[-1], "Pas si vite : au plus 30 clics toutes les 5 secondes")
        assert all("Pas si vite" not in c.text for c in clicks[:-1])


def test_game_moves_are_never_held_and_idle_members_are_forgotten() -> None:
    now = [0.0]
    limiter = RateLimiter({COMMANDS: RateRule(2, 5.0), CLICKS: RateRule(3, 5.0)}, lambda: now[0])
    router = ActionRouter(limiter)

    async def handler(*_: object) -> None:
        return None

    router.register("papayoo", handler, moves=True)
    router.register("papayoo_lobby", handler)
    assert all(router.throttle(1, "papayoo") is None for _ in range(500))
    assert [router.throttle(1, "papayoo_lobby") for _ in range(4)][-1] == RateRule(3, 5.0)
    assert limiter.allow(1, COMMANDS) is None and limiter.allow(1, COMMANDS) is None
    assert limiter.allow(1, COMMANDS) == RateRule(2, 5.0)
    assert limiter.allow(2, COMMANDS) is None  # another member has their own
    now[0] = 4.9
    assert limiter.allow(1, COMMANDS) == RateRule(2, 5.0)  # a refusal is not counted
    now[0] = 5.0
    assert limiter.allow(1, COMMANDS) is None
    now[0] = 60.0
    limiter.allow(3, MOVES)  # a move sweeps too: once tables run, moves are all that comes
    assert len(limiter) == 0
    assert limiter.allow(3, COMMANDS) is None
    assert len(limiter) == 1  # only the member active now


async def test_config_limits_changes_them_and_show_lists_them(
    office: Office, make_bot: MakeBot
) -> None:
    fake, owner, bob = office.fake, office.owner, office.bob
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        shown = await fake.slash(owner, office.general, "config limits")
        assert shown.ephemeral
        for line in (
            "Open tables per member: 3",
            "Open tables per channel: 10",
            "Open tables per server: 50",
            "Live games per member: 5",
        ):
            assert line in shown.text, shown.text
        changed = await fake.slash(
            owner, office.general, "config limits", {"lobbies-per-member": 1}
        )
        assert "Open tables per member: **1**" in changed.text
        assert "Live games per member: 5" in changed.text
        show = await fake.slash(owner, office.general, "config show")
        assert "Open tables per member" in show.text and "Live games per member" in show.text
        assert not (await fake.slash(bob, office.general, "papayoo begin")).ephemeral
        refused(await fake.slash(bob, office.general, "papayoo begin"), "You already host 1 open")
        saved = await bot.store.game_settings.get(office.guild.id, "limits")
        assert saved["lobbies_per_member"] == 1


async def test_an_abandoned_table_expires_and_its_rows_are_gone(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, bob = office.fake, office.bob
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        stale = await fake.slash(bob, office.general, "papayoo begin")
        cancelled = await fake.slash(bob, office.general, "papayoo begin")
        assert (await fake.click(bob, cancelled, label="Cancel")).callback_type == 7
        assert await lobby_rows(bot) == 2 and await pending_timers(bot) == 1
        clock.advance(minutes=31)
        assert await bot.timers.run_due() == 1
        expired = fake.message(stale.response.id)
        assert "Nobody started this table within 30 minutes" in expired.text
        assert fake.buttons(expired) == []
        # The expired one is gone at once, its timer with it; the cancelled one is kept a while.
        assert await lobby_rows(bot) == 1
        assert await bot.db.fetchval("SELECT count(*) FROM timers WHERE key LIKE '%lobby%'") == 0
        assert await bot.timers.run_cron("papayoo.purge_lobbies")
        assert await lobby_rows(bot) == 1
        clock.advance(CLOSED_LOBBY_KEPT)
        assert await bot.timers.run_cron("papayoo.purge_lobbies")
        assert await lobby_rows(bot) == 0
        # And Bob may open tables again: nothing of the old ones counts.
        assert not (await fake.slash(bob, office.general, "papayoo begin")).ephemeral


async def test_accepting_a_spit_challenge_counts_as_a_live_game(
    office: Office, make_bot: MakeBot
) -> None:
    fake, ana, bob = office.fake, office.ana, office.bob
    bot = make_bot(["cogs.config", "cogs.papayoo", "cogs.spit"])
    async with fake.run_client(bot):
        await fake.slash(
            office.owner, office.general, "config limits", {"live-games-per-member": 1}
        )
        assert not (await fake.slash(bob, office.general, "papayoo begin")).ephemeral
        asked = await fake.slash(ana, office.general, "spit challenge", {"opponent": bob})
        assert not asked.ephemeral, asked.text
        answer = await fake.click(bob, asked, label="Accept")
        refused(answer, "You already sit in 1 game", "the limit of live games per member")
        assert await bot.store.games.find(kind="spit") == []
        challenge = [
            g for g in await bot.store.games.find(kind="lobby") if g.meta.get("challenged")
        ]
        assert challenge[0].is_active
        assert challenge[0].game.public_view()["players"] == [str(ana.id)]
