"""The Mastäye and Tikäo bonuses on Discord, end to end (docs/rules/spaye.md, "Bonuses").

A bonus button shows only on an exercise its holder may use it on, only the holder gets its
menu, the holder keeps the points at stake (the others earn nothing from it), the title's
bonus is marked spent with the move, and a voided day gives it back.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.clock import FakeClock
from bot.engine.spaye import SpayeGame
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_spaye_support import COGS, NK, SpayeDriver
from tests.fakediscord.models import FakeMessage

pytestmark = pytest.mark.e2e

LAST_MONTH = "2025-02"


def labels(p: SpayeDriver, message: FakeMessage) -> list[str]:
    return [b.label or "" for b in p.fake.buttons(message)]


async def title_row(p: SpayeDriver, title: str) -> Any:
    titles = await p.bot.store.titles.of_month(p.guild.id, LAST_MONTH)
    return next(x for x in titles if x.title == title)


# -- Mastäye: the lazy tyrant ----------------------------------------------------------------

TYRANT_TABLE = [
    *("KH", "2S"),  # däye 1, Cid v Dan: Cid wins
    *("3H", NK),  # däye 2, Bob v Cid: Cid is nikäyé (3), no bonus of his
    *(NK, "8D"),  # däye 3, Ana v Bob: Ana is nikäyé (8) and hands it all over
    *(NK, "4C", "5C"),  # the final, Ana Bob Dan: Ana is nikäyé again, no bonus there
]


async def test_the_mastaye_hands_the_whole_exercise_to_todays_spayins(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    ana, bob, cid, dan, _ = office.colleagues
    a, b, c, d = (str(u.id) for u in (ana, bob, cid, dan))
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await bot.store.titles.award(office.guild.id, LAST_MONTH, "mastaye", ana.id)
        await bot.store.titles.award(office.guild.id, LAST_MONTH, "tikao", bob.id)
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(TYRANT_TABLE, bonuses={"mastaye": a, "tikao": b})

        await p.daye([cid, dan])
        await p.daye([bob, cid])
        assert "Bonus" not in labels(p, await p.exercise_message(1))  # Cid holds no bonus
        await p.daye([ana, bob])
        ex = await p.exercise_message(2)
        assert "Bonus" in labels(p, ex)

        # another holder (Bob, Tikäo) and a non-holder (Cid) are turned away, nothing changes
        state = (
            await p.stored()
        ).game.dumps()  # the day, not the row: a message id may be saved late
        for other in (bob, cid):
            refused = await p.click(other, ex, p.cid("bonus", 2))
            assert refused.ephemeral and f"Only <@{a}> may use a bonus" in refused.text
        assert (await p.stored()).game.dumps() == state

        menu = await p.click(ana, ex, p.cid("bonus", 2))
        assert menu.ephemeral and menu.response is not None
        assert "Mastäye" in menu.text
        assert labels(p, menu.response) == ["Mastäye : tout refiler"]  # Ana reads French
        used = await p.click(ana, menu.response, p.cid("tyrant", 2))
        assert used.callback_type == 7 and "Bonus utilisé" in used.text

        def said() -> str:
            return "\n".join(m.text for m in fake.channel_messages(office.general)[-4:])

        assert await fake.wait_for(lambda: "lazy tyrant" in said())
        assert all(f"<@{x}>" in said() for x in (b, c, d))
        view = await p.view()
        assert "mastaye" not in view["bonuses"] and view["bonuses_used"] == {"mastaye": a}
        assert view["points"][a]["reps"] == 8  # the stake, at once
        assert {e["player"]: e["reps"] for e in view["exercises"] if e["origin"] == "tyrant"} == {
            b: 8,
            c: 8,
            d: 8,
        }
        assert (await title_row(p, "mastaye")).bonus_used_game_id == p.game_id
        assert (await title_row(p, "tikao")).bonus_available
        for eid in (3, 4, 5):
            handed = await p.exercise_message(eid)
            assert "Bonus" not in labels(p, handed) and "no points" in handed.text

        assert "Bonus" not in labels(p, ex)  # the record lost her exercise's buttons
        ex.components = ex.versions[0].components  # a client still showing them
        gone = await p.click(ana, ex, p.cid("done", 2))  # her own exercise is gone
        assert gone.ephemeral
        again = await p.click(ana, ex, p.cid("bonus", 2))
        assert again.ephemeral
        assert (await p.view())["bonuses_used"] == {"mastaye": a}

        await p.exercise(cid, 1)
        await p.exercise(cid, 3)
        await p.exercise(dan, 4)
        await p.exercise(bob, 5, "giveup")
        await p.daye([ana, bob, dan])
        assert "Bonus" not in labels(p, await p.exercise_message(6))  # used, and not in a final
        await p.exercise(ana, 6)

        stored = await p.stored()
        assert stored.status == "over"
        points = stored.game.result()["points"]
        assert points[a]["reps"] == 8 + 9  # the handed-over stake and the final's
        assert points[c]["reps"] == 3  # his own exercise only
        assert points[d]["reps"] == 0 and points[b]["reps"] == 0
        assert (await title_row(p, "mastaye")).bonus_used_game_id == stored.id
        assert (await title_row(p, "tikao")).bonus_available
    assert p.results and all(r.answered for r in p.results)


async def test_a_voided_day_gives_the_mastaye_bonus_back(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    ana, bob = office.ana, office.bob
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await bot.store.titles.award(office.guild.id, LAST_MONTH, "mastaye", ana.id)
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day([NK, "8D", "KH", "2S", NK, "4C", "5C"], bonuses={"mastaye": str(ana.id)})
        await p.daye([ana, bob])
        menu = await p.click(ana, await p.exercise_message(1), p.cid("bonus", 1))
        assert menu.response is not None
        await p.click(ana, menu.response, p.cid("tyrant", 1))
        assert (await title_row(p, "mastaye")).bonus_used_game_id == p.game_id

        closing = await bot.store.timers.get(f"spaye:{p.game_id}:close")
        assert closing is not None
        clock.set(closing.due_at)
        assert await bot.timers.run_due() == 2  # the reminder (cards remain), the closing
        assert (await p.stored()).status == "voided"
        assert (await title_row(p, "mastaye")).bonus_available


# -- Tikäo: double or nothing ----------------------------------------------------------------

TIKAO_TABLE = [
    *(NK, "8D"),  # däye 1, Ana v Bob: Ana is nikäyé (8) outside the final: no Tikäo there
    *(NK, "4C", "5C"),  # the final, Ana Bob Cid: Ana is nikäyé, 9 reps and 3 victory at stake
]


def tikao_seed(a: str, b: str, c: str, *, double: bool) -> int:
    """A seed whose Tikäo redraw gives Ana the nikäye again (``double``) or not."""
    for seed in range(100):
        game = SpayeGame.with_table(TIKAO_TABLE, seed=seed, options={"bonuses": {"tikao": a}})
        for player, action in [
            (a, {"type": "challenge", "target": b}),
            (b, {"type": "accept"}),
            (a, {"type": "draw"}),
            (b, {"type": "draw"}),
            (a, {"type": "exercise_done", "id": 1}),
            (a, {"type": "challenge", "targets": [b, c]}),
            (b, {"type": "accept"}),
            (c, {"type": "accept"}),
            (a, {"type": "draw"}),
            (b, {"type": "draw"}),
            (c, {"type": "draw"}),
        ]:
            game.apply(player, action)
        used = game.apply(a, {"type": "bonus_double", "id": 2})[0]
        if used["double"] is double:
            return seed
    raise AssertionError("no such seed")


@pytest.mark.parametrize("double", [False, True], ids=["exempt", "double"])
async def test_the_tikao_draws_again_for_their_own_fate_only(
    office: Office, make_bot: MakeBot, clock: FakeClock, double: bool
) -> None:
    fake = office.fake
    ana, bob, cid, _, _ = office.colleagues
    a, b, c = (str(u.id) for u in (ana, bob, cid))
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await bot.store.titles.award(office.guild.id, LAST_MONTH, "tikao", ana.id)
        p = SpayeDriver(fake, bot, office.guild, office.general)
        seed = tikao_seed(a, b, c, double=double)
        await p.store_day(TIKAO_TABLE, seed=seed, bonuses={"tikao": a})

        await p.daye([ana, bob])
        assert "Bonus" not in labels(p, await p.exercise_message(1))  # not a final
        await p.exercise(ana, 1)
        await p.daye([ana, bob, cid])
        ex = await p.exercise_message(2)
        assert "Bonus" in labels(p, ex)
        refused = await p.click(bob, ex, p.cid("bonus", 2))
        assert refused.ephemeral and f"<@{a}>" in refused.text
        menu = await p.click(ana, ex, p.cid("bonus", 2))
        assert menu.ephemeral and menu.response is not None
        assert labels(p, menu.response) == ["Tikäo : quitte ou double"]
        used = await p.click(ana, menu.response, p.cid("double", 2))
        assert used.callback_type == 7
        assert (await title_row(p, "tikao")).bonus_used_game_id == p.game_id
        assert await fake.wait_for(
            lambda: any(
                "double or nothing" in m.text for m in fake.channel_messages(office.general)[-3:]
            )
        )
        said = "\n".join(m.text for m in fake.channel_messages(office.general)[-3:])

        view = await p.view()
        assert view["bonuses_used"] == {"tikao": a}
        if double:
            assert "twice" in said
            assert [(e["id"], e["sets"]) for e in view["exercises"]] == [(2, 2)]
            assert view["points"][a]["reps"] == 8  # nothing yet: earned on confirming
            await p.exercise(ana, 2)
        else:
            assert "exempted" in said and view["exercises"] == []
        assert await fake.wait_for(
            lambda: "finished" in fake.channel_messages(office.general)[-1].text
        )

        stored = await p.stored()
        assert stored.status == "over"
        points = stored.game.result()["points"]
        assert points[a] == {"daye": 1 + 3, "victory": 3, "reps": 8 + 9}  # the stake, no more
        assert points[b] == {"daye": 1 + 3, "victory": 0, "reps": 0}
        assert points[c] == {"daye": 3, "victory": 0, "reps": 0}  # everyone else's stands
        assert (await title_row(p, "tikao")).bonus_used_game_id == stored.id
    assert p.results and all(r.answered for r in p.results)
