"""``python -m bot --sandbox``: the real bot against the in-process Discord, driven through the
page's own HTTP and WebSocket routes (no browser)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.sandbox import bind, lock, reset
from bot.sandbox.page import timer_what
from tests.sandbox.conftest import Sandbox, run_sandbox

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]


async def frames_until(
    ws: aiohttp.ClientWebSocketResponse, wanted: Any, timeout: float = 5
) -> list[dict[str, Any]]:
    """Frames received until ``wanted(frame)`` is true (batches flattened into their items)."""
    seen: list[dict[str, Any]] = []
    async with asyncio.timeout(timeout):
        while True:
            frame = json.loads((await ws.receive()).data)
            items = frame["items"] if frame["t"] == "batch" else [frame]
            seen.extend(items)
            if any(wanted(i) for i in items):
                return seen


async def test_the_page_and_its_files_are_served(sandbox: Sandbox) -> None:
    async with sandbox.http.get(sandbox.url + "/") as res:
        assert res.status == 200 and "Gamenight sandbox" in await res.text()
    for name in ("app.js", "style.css"):
        async with sandbox.http.get(f"{sandbox.url}/static/{name}") as res:
            assert res.status == 200
    async with sandbox.http.get(sandbox.url + "/static/..%2Fpage.py") as res:
        assert res.status == 404
    async with sandbox.http.get(sandbox.url + "/api/state") as res:
        state = await res.json()
    assert [u["name"] for u in state["users"]] == ["Ana", "Bob", "Cid", "Dan"]
    assert [u["owner"] for u in state["users"]] == [True, False, False, False]


async def test_a_view_knows_the_channels_and_the_synced_commands(sandbox: Sandbox) -> None:
    fake = sandbox.page.fake
    synced = {c["name"] for c in fake.global_commands.values() if c["type"] == 1}
    assert "help" in synced
    hellos = {}
    for name in ("Ana", "Bob"):
        async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={sandbox.user(name)}") as ws:
            hellos[name] = json.loads((await ws.receive()).data)
    ana, bob = hellos["Ana"], hellos["Bob"]
    assert [c["kind"] for c in ana["channels"]] == ["text", "text", "dm"]
    assert {c["path"].split()[0] for c in ana["commands"]["text"]} == synced
    # /config needs Manage Server: only the owner sees it, as in Discord's picker.
    assert any(c["path"].startswith("config") for c in ana["commands"]["text"])
    assert not any(c["path"].startswith("config") for c in bob["commands"]["text"])


async def test_a_language_switch_reaches_every_view_of_that_colleague_at_once(
    sandbox: Sandbox,
) -> None:
    """Bob side by side with Ana, and Bob in a second view: his switch to French renames his
    commands in both of his views over their open sockets (no reload); Ana's stay English."""
    ana, bob = sandbox.user("Ana"), sandbox.user("Bob")
    connect = sandbox.http.ws_connect
    async with (
        connect(f"{sandbox.url}/ws?user={ana}") as ana_ws,
        connect(f"{sandbox.url}/ws?user={bob}") as bob_ws,
        connect(f"{sandbox.url}/ws?user={bob}") as bob_again,
    ):
        hellos = {}
        for name, ws in (("Ana", ana_ws), ("Bob", bob_ws), ("Bob again", bob_again)):
            hellos[name] = (await frames_until(ws, lambda f: f["t"] == "hello"))[-1]
        assert {h["locale"] for h in hellos.values()} == {"en-US"}
        assert "help" in {c["label"] for c in hellos["Bob"]["commands"]["text"]}

        async with sandbox.http.post(
            f"{sandbox.url}/api/user", json={"user": bob, "locale": "fr"}
        ) as res:
            assert res.status == 200
        for ws in (bob_ws, bob_again):
            seen = await frames_until(ws, lambda f: f["t"] == "locale")
            switched = seen[-1]
            assert switched["locale"] == "fr"
            for where in ("text", "dm"):
                labels = {c["label"] for c in switched["commands"][where]}
                assert "aide" in labels and "help" not in labels
        # Ana's view hears that Bob changed (the pickers), and nothing else: her next frame
        # after it is the one her own change sends.
        async with sandbox.http.post(
            f"{sandbox.url}/api/user", json={"user": ana, "dms_open": False}
        ) as res:
            assert res.status == 200
        seen = await frames_until(
            ana_ws,
            lambda f: (
                f["t"] == "users" and not next(u for u in f["users"] if u["id"] == ana)["dms_open"]
            ),
        )
        assert [f["t"] for f in seen if f["t"] in ("users", "locale")] == ["users", "users"]


async def test_the_page_refuses_a_colleague_who_does_not_exist(sandbox: Sandbox) -> None:
    async with sandbox.http.get(f"{sandbox.url}/ws?user=123") as res:
        assert res.status == 404
    status, answer = await sandbox.act("123", "slash", channel="1", command="help")
    assert status == 404 and "no colleague" in answer["error"]
    status, answer = await sandbox.act(str(sandbox.page.fake.bot_user.id), "slash", command="help")
    assert status == 403
    assert not sandbox.page.fake.interactions


async def test_an_ephemeral_answer_reaches_only_its_colleague(sandbox: Sandbox) -> None:
    fake = sandbox.page.fake
    general = str(fake.general().id)
    ana, bob = sandbox.user("Ana"), sandbox.user("Bob")
    async with (
        sandbox.http.ws_connect(f"{sandbox.url}/ws?user={ana}") as ana_ws,
        sandbox.http.ws_connect(f"{sandbox.url}/ws?user={bob}") as bob_ws,
    ):
        for ws in (ana_ws, bob_ws):
            assert json.loads((await ws.receive()).data)["t"] == "hello"
            assert json.loads((await ws.receive()).data) == {"t": "batch", "items": []}
        status, answer = await sandbox.act(ana, "slash", channel=general, command="help")
        assert status == 200 and answer["ok"]
        msg = fake.message(answer["message"])
        assert msg.ephemeral and msg.visible_to is fake.users[int(ana)]
        assert msg.to_json()["interaction_metadata"]["name"] == "help"
        seen = await frames_until(ana_ws, lambda f: f.get("id") == answer["message"])
        assert "Only you can see this" in next(
            f["html"] for f in seen if f.get("id") == answer["message"]
        )
        # Bob's view gets nothing of it; a click on it as Bob is refused.
        await sandbox.act(bob, "slash", channel=general, command="help")
        bob_seen = await frames_until(
            bob_ws, lambda f: f.get("t") == "msg" and f["id"] != answer["message"]
        )
        assert all(f.get("id") != answer["message"] for f in bob_seen)
        status, answer = await sandbox.act(bob, "click", message=answer["message"], custom_id="x")
        assert status == 403 and "cannot see" in answer["error"]


async def test_what_discord_refuses_never_reaches_the_bot(sandbox: Sandbox) -> None:
    fake = sandbox.page.fake
    general = str(fake.general().id)
    ana, bob = sandbox.user("Ana"), sandbox.user("Bob")
    refused = [
        (ana, "help", {"game": "chess"}, "pick one of the choices"),
        (ana, "config challenge-expiry", {}, "the option minutes is required"),
        (ana, "config challenge-expiry", {"minutes": "0"}, "greater than or equal to 1"),
        (ana, "config challenge-expiry", {"minutes": "1441"}, "less than or equal to 1440"),
        (ana, "config challenge-expiry", {"minutes": "ten"}, "not a whole number"),
        (ana, "config", {}, "needs a subcommand"),
        (ana, "fly", {}, "not a command"),
        (bob, "config challenge-expiry", {"minutes": "5"}, "lacks the permissions"),
    ]
    for user, command, options, message in refused:
        status, answer = await sandbox.act(
            user, "slash", channel=general, command=command, options=options
        )
        assert status == 400 and message in answer["error"], (command, options, answer)
    assert not fake.interactions
    status, answer = await sandbox.act(
        ana, "slash", channel=general, command="config challenge-expiry", options={"minutes": "5"}
    )
    assert status == 200 and answer["ok"]
    used = fake.message(answer["message"]).to_json()["interaction_metadata"]["name"]
    assert used == "config challenge-expiry"  # "Ana used /config challenge-expiry"


async def test_autocomplete_asks_the_bot(sandbox: Sandbox) -> None:
    status, answer = await sandbox.act(
        sandbox.user("Ana"),
        "autocomplete",
        channel=str(sandbox.page.fake.general().id),
        command="config timezone",
        options={"zone": "Europe/Pa"},
        focused="zone",
    )
    assert status == 200, answer
    assert "Europe/Paris" in [c["value"] for c in answer["choices"]]


async def test_the_clock_moves_forward_and_runs_what_fell_due(sandbox: Sandbox) -> None:
    bot, clock = sandbox.page.bot, sandbox.page.clock
    ran: list[dict[str, Any]] = []

    async def handler(payload: dict[str, Any]) -> None:
        ran.append(payload)

    bot.timers.register("sandbox.test", handler)
    before = clock.now()
    await bot.timers.schedule("sandbox.test", before + timedelta(hours=5), {"n": 1}, key="t1")
    async with sandbox.http.post(sandbox.url + "/api/clock", json={"to": "next_timer"}) as res:
        moved = await res.json()
    assert ran == [{"n": 1}]
    assert timedelta(hours=5) <= clock.now() - before < timedelta(hours=5, minutes=1)
    assert moved["clock"]["offset_seconds"] >= 5 * 3600
    async with sandbox.http.post(sandbox.url + "/api/clock", json={"to": "month_end"}) as res:
        clock_json = (await res.json())["clock"]
    assert clock.now().day == 1 and clock_json["label"].startswith(clock.now().strftime("%a %d"))
    async with sandbox.http.post(sandbox.url + "/api/clock", json={"to": "backwards"}) as res:
        assert res.status == 400


async def test_the_world_survives_a_restart(sandbox_db: Path) -> None:
    async with run_sandbox(sandbox_db) as box:
        ana = box.user("Ana")
        status, answer = await box.act(
            ana, "slash", channel=str(box.page.fake.general().id), command="help"
        )
        assert status == 200
        first = answer["message"]
        async with box.http.post(box.url + "/api/clock", json={"to": "day"}) as res:
            offset = (await res.json())["clock"]["offset_seconds"]
        # No wait for the message's save: stopping the sandbox saves every message.
    async with run_sandbox(sandbox_db, users=5) as box:
        assert box.user("Ana") == ana and box.user("Eve")  # one more colleague asked for
        assert int(first) in box.page.fake.messages
        assert box.page.clock.offset.total_seconds() >= offset
        async with box.http.ws_connect(f"{box.url}/ws?user={ana}") as ws:
            seen = await frames_until(ws, lambda f: f.get("id") == first)
        assert any(f.get("id") == first for f in seen)
        status, answer = await box.act(
            ana, "slash", channel=str(box.page.fake.general().id), command="help"
        )
        assert status == 200 and int(answer["message"]) > int(first)


def start(*args: str, cwd: Path, **extra: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DISCORD_TOKEN", "LOG_LEVEL"}}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "--sandbox", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def test_the_command_line_prints_the_address_and_stops_cleanly(tmp_path: Path) -> None:
    proc = start("--port", "0", cwd=tmp_path)
    try:
        assert proc.stdout is not None
        line = await asyncio.to_thread(proc.stdout.readline)
        assert line.startswith("Gamenight sandbox: http://127.0.0.1:"), line
        url = line.split()[2]
        async with aiohttp.ClientSession() as http:
            async with http.get(url + "api/state") as res:
                ana = (await res.json())["users"][0]["id"]
            # A page still open does not hold the stop up.
            async with http.ws_connect(f"{url}ws?user={ana}") as ws:
                await ws.receive()
                proc.send_signal(signal.SIGINT)
                _, err = await asyncio.to_thread(proc.communicate, timeout=30)
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert (tmp_path / "data" / "sandbox.sqlite3").exists()


def test_a_second_sandbox_on_the_same_port_says_so(tmp_path: Path) -> None:
    taken = bind("127.0.0.1", 0)
    try:
        port = str(taken.getsockname()[1])
        proc = start("--port", port, cwd=tmp_path)
        _, err = proc.communicate(timeout=60)
    finally:
        taken.close()
    assert proc.returncode == 1
    assert f"127.0.0.1:{port} is already in use" in err and "Traceback" not in err


def test_bad_options_are_refused(tmp_path: Path) -> None:
    users = start("--users", "0", cwd=tmp_path)  # both at once: each start-up takes a while
    log_format = start("--port", "0", cwd=tmp_path, LOG_FORMAT="xml")
    _, err = users.communicate(timeout=60)
    assert users.returncode == 2 and "--users" in err
    _, err = log_format.communicate(timeout=60)
    assert log_format.returncode == 2 and "LOG_FORMAT" in err and "Traceback" not in err
    assert not (tmp_path / "data").exists()


def test_the_page_listens_on_this_machine_only_unless_told() -> None:
    from bot.sandbox import parser

    assert parser().parse_args([]).host == "127.0.0.1"
    sock = bind("127.0.0.1", 0)
    try:
        assert sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()


def test_the_bot_never_imports_the_sandbox_or_the_fake() -> None:
    code = (
        "import sys, bot.__main__, bot.client, bot.engine.games, cogs; "
        "print(sorted(m for m in sys.modules if m.startswith(('bot.sandbox', 'bot.fakediscord'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_a_second_sandbox_on_the_same_database_says_so(tmp_path: Path) -> None:
    database = tmp_path / "data" / "sandbox.sqlite3"
    held = lock(database)
    assert held is not None
    try:
        proc = start("--port", "0", cwd=tmp_path)
        _, err = proc.communicate(timeout=60)
    finally:
        held.close()
    assert proc.returncode == 1
    assert "another sandbox is using data/sandbox.sqlite3" in err and "Traceback" not in err


def test_reset_starts_over(tmp_path: Path) -> None:
    database = tmp_path / "sandbox.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        database.with_name(database.name + suffix).write_text("x")
    (tmp_path / "other.sqlite3").write_text("kept")
    reset(database)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite3"]


async def test_only_the_page_itself_may_act(sandbox: Sandbox) -> None:
    ana = sandbox.user("Ana")
    body = json.dumps({"user": ana, "kind": "slash", "command": "help"})
    async with sandbox.http.post(
        sandbox.url + "/api/act", data=body, headers={"Content-Type": "text/plain"}
    ) as res:
        assert res.status == 415
    async with sandbox.http.post(
        sandbox.url + "/api/act",
        data=body,
        headers={"Content-Type": "application/json", "Origin": "https://elsewhere.example"},
    ) as res:
        assert res.status == 403
    async with sandbox.http.get(
        f"{sandbox.url}/ws?user={ana}", headers={"Origin": "https://elsewhere.example"}
    ) as res:
        assert res.status == 403
    assert not sandbox.page.fake.interactions


async def test_the_next_deadline_says_in_words_what_will_happen(sandbox: Sandbox) -> None:
    """The clock's "next deadline" button names what the timer does, never its raw kind
    (``papayoo.warn`` read like a missing translation)."""
    bot, clock = sandbox.page.bot, sandbox.page.clock
    kinds = list(bot.timers._handlers)
    assert {"papayoo.turn", "papayoo.warn", "spaye.close_day"} <= set(kinds)
    for kind in kinds:
        assert kind not in timer_what(kind), kind
    await bot.timers.schedule("papayoo.warn", clock.now() + timedelta(seconds=1), {}, key="w")
    upcoming = (await sandbox.page._clock_json())["next_timer"]
    assert upcoming["what"] == "Papayoo: a late player is told the turn timer is about to play"
