"""The boards in the sandbox: after a few rated games, ``/leaderboard`` and ``/profile`` are
among the page's commands by themselves, and their answers show on the page (members by
name, the profile's chart inline), only to the colleague who asked."""

from __future__ import annotations

import json
from pathlib import Path

from bot.engine import SYSTEM
from tests.cogs.boards_support import RankedPapayoo, ranked_papayoo  # noqa: F401
from tests.sandbox.conftest import run_sandbox
from tests.sandbox.test_sandbox import frames_until


async def test_a_leaderboard_and_a_profile_after_a_few_games(
    sandbox_db: Path,
    ranked_papayoo: None,  # noqa: F811
) -> None:
    async with run_sandbox(sandbox_db) as sandbox:
        fake, bot = sandbox.page.fake, sandbox.page.bot
        general = fake.general()
        people = {name: sandbox.user(name) for name in ("Ana", "Bob", "Cid", "Dan")}
        names = {i: name for name, i in people.items()}
        order = list(people.values())
        for turn in range(6):  # six Papayoo games, each finished as a real one ends
            seats = order[turn % 4 :] + order[: turn % 4]
            game_id = await bot.store.games.create(
                "papayoo", general.guild.id, general.id, RankedPapayoo(seats, 99),
                meta={"names": {p: names[p] for p in seats}},
            )  # fmt: skip
            await bot.store.games.act(
                game_id, SYSTEM, {"type": "finish", "ranking": [[p] for p in seats]}
            )
        ana = people["Ana"]
        async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={ana}") as ws:
            hello = json.loads((await ws.receive()).data)
            commands = json.dumps(hello["commands"]["text"])
            assert '"leaderboard"' in commands and '"profile"' in commands
            status, answer = await sandbox.act(
                ana, "slash", channel=str(general.id), command="leaderboard"
            )
            assert status == 200 and answer["ok"], answer
            seen = await frames_until(ws, lambda f: f.get("id") == answer["message"])
            html = next(f["html"] for f in seen if f.get("id") == answer["message"])
            assert "Only you can see this" in html and "Leaderboard" in html
            assert "@Bob" in html and "🔰" in html

            status, answer = await sandbox.act(
                ana, "slash", channel=str(general.id), command="profile",
                options={"colleague": people["Bob"]},
            )  # fmt: skip
            assert status == 200 and answer["ok"], answer
            seen = await frames_until(ws, lambda f: f.get("id") == answer["message"])
            html = next(f["html"] for f in seen if f.get("id") == answer["message"])
            assert "Bob's profile" in html and "rating.png" in html and "<img" in html
