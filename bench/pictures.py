"""Pictures of the bot for the README, taken from the sandbox (``python -m bot --sandbox``).

Starts a sandbox on a new, throw-away database (the cards as the application's emojis, as
on Discord), plays into three moments through the page's own routes, as colleagues clicking
would, and takes element screenshots of the messages in Chromium:

- ``papayoo-table.png``: a Papayoo table of four (Ana and three computer seats) mid-trick;
- ``papayoo-hand.png``: Ana's hand at that moment (her DM), the cards she may play enabled;
- ``spit-board.png``: a Spit board (Ana against a computer) once both have spat;
- ``spit-panel.png``: Ana's own Spit panel at that moment (**My controls**, hers alone).

Re-run it after any change to how the games look (it overwrites the pictures)::

    python -m bench.pictures [--out docs/pictures] [--width 700]

Needs Playwright and a Chromium (``/usr/bin/chromium`` or ``CHROMIUM``), as the browser tests,
and a colour emoji font (Debian: ``fonts-noto-color-emoji``) for the bot's Unicode emojis.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import logging
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from PIL import Image

from bot.engine.lobby import is_computer
from bot.fakediscord.models import FakeMessage
from tests.sandbox.browser import chromium, missing_browser
from tests.sandbox.conftest import Sandbox, run_sandbox

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "pictures"
T = TypeVar("T")

PICTURES_READY = """article => {
    const pictures = Array.from(article.querySelectorAll('img'));
    return pictures.every(img => img.complete && img.naturalWidth > 0);
}"""


class Stuck(RuntimeError):
    """The game did not reach the moment to picture."""


# -- reading messages -------------------------------------------------------------------------


def components(msg: FakeMessage) -> Iterator[Mapping[str, Any]]:
    """Every component of a message, nested ones too (rows, containers, sections)."""
    stack: list[Mapping[str, Any]] = list(msg.components or [])
    while stack:
        comp = stack.pop(0)
        yield comp
        stack.extend(comp.get("components") or [])
        if comp.get("accessory"):
            stack.append(comp["accessory"])


def controls_of(msg: FakeMessage, marker: str) -> list[Mapping[str, Any]]:
    return [c for c in components(msg) if marker in str(c.get("custom_id") or "")]


async def until(what: str, check: Callable[[], Awaitable[T | None]], timeout: float = 60) -> T:
    """Poll ``check`` until it returns something (the moment waited for)."""
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise Stuck(f"waited {timeout:.0f} s for {what}")
        await asyncio.sleep(0.1)


class Player:
    """One colleague of the sandbox, acting through the page's ``/api/act``."""

    def __init__(self, box: Sandbox, name: str) -> None:
        self.box = box
        self.fake = box.page.fake
        self.id = box.user(name)
        self.user = self.fake.users[int(self.id)]

    async def act(self, kind: str, **body: Any) -> dict[str, Any]:
        status, answer = await self.box.act(self.id, kind, **body)
        if status != 200 or not answer.get("ok"):
            raise Stuck(f"{kind} {body}: {status} {answer}")
        return answer

    async def slash(self, command: str, **options: str) -> FakeMessage:
        channel = self.fake.general()
        answer = await self.act("slash", channel=str(channel.id), command=command, options=options)
        return self.fake.messages[int(answer["message"])]

    async def click(self, msg: FakeMessage, custom_id: str) -> None:
        await self.act("click", message=str(msg.id), custom_id=custom_id)

    async def select(self, msg: FakeMessage, custom_id: str, values: list[str]) -> None:
        await self.act("select", message=str(msg.id), custom_id=custom_id, values=values)

    def latest(self, marker: str, *, dm: bool) -> FakeMessage | None:
        """The newest message of the bot with a control whose custom id holds ``marker``: in
        this colleague's DMs, or in #general."""
        channel = self.fake.get_dm_channel(self.user) if dm else self.fake.general()
        for msg in sorted(self.fake.messages.values(), key=lambda m: -m.id):
            if msg.deleted or msg.channel is not channel or not msg.author.bot:
                continue
            if msg.visible_to not in (None, self.user):
                continue
            if controls_of(msg, marker):
                return msg
        return None


async def open_table(ana: Player, kind: str, computers: int, level: str, **options: str) -> int:
    """``/<kind> begin``, computer seats, Start; the new game's id."""
    lobby = await ana.slash(f"{kind} begin", **options)
    for _ in range(computers):
        lobby = ana.fake.messages[lobby.id]
        (add,) = [c for c in controls_of(lobby, ":add_computer") if c.get("type") == 3]
        await ana.select(lobby, str(add["custom_id"]), [level])
    lobby = ana.fake.messages[lobby.id]
    (start,) = [c for c in controls_of(lobby, ":start") if c.get("type") == 2]
    await ana.click(lobby, str(start["custom_id"]))
    games = ana.box.page.bot.store.games

    async def started() -> int | None:
        found = [g for g in await games.find(kind=kind, status=None) if g.is_active]
        return max(g.id for g in found) if found else None

    return await until(f"the {kind} game to start", started)


# -- Papayoo ----------------------------------------------------------------------------------


def rank(card: str) -> int:
    """1..20 of a Papayoo card code (``7H``, ``P13``)."""
    digits = card[1:] if card.startswith("P") else card[:-1]
    return int(digits) if digits.isdigit() else 0


async def papayoo_mid_trick(ana: Player) -> tuple[FakeMessage, FakeMessage]:
    """A table of four mid-trick, Ana to play: (the table, Ana's hand)."""
    gid = await open_table(ana, "papayoo", 3, "normal", rounds="1", turn_seconds="0")
    games = ana.box.page.bot.store.games
    marker = f":papayoo:{gid}:"
    tricks_seen = 0
    while True:

        async def ana_to_act() -> Any:
            stored = await games.require(gid)
            if not stored.is_active:
                raise Stuck("the Papayoo game ended before a picture")
            return stored if ana.id in stored.game.to_act() else None

        stored = await until("Ana's turn at Papayoo", ana_to_act)
        view = stored.game.view(ana.id)
        legal = list(view["you"]["legal_actions"])

        async def live_hand() -> FakeMessage | None:
            msg = ana.latest(marker, dm=True)
            if msg is None:
                return None
            live = [c for c in controls_of(msg, marker) if not c.get("disabled")]
            return msg if live else None

        hand = await until("Ana's hand", live_hand)
        if view["phase"] != "play":  # the pass: the suggested cards ("Pass these")
            (accept,) = [
                c
                for c in controls_of(hand, marker)
                if c.get("type") == 2 and ":pick:" in str(c["custom_id"]) and not c.get("disabled")
            ]
            await ana.click(hand, str(accept["custom_id"]))
            await until("the pass to be taken", moved(games, gid, stored.version))
            continue
        trick = view["trick"]
        if len(trick) >= 2 or (tricks_seen >= 6 and trick):
            await asyncio.sleep(0.5)  # the last edits reach the page
            table = ana.latest(marker, dm=False)
            if table is None:
                raise Stuck("no Papayoo table in #general")
            return table, ana.fake.messages[hand.id]
        # Ana plays her lowest card, so she rarely takes the trick and leads the next one.
        best = min(range(len(legal)), key=lambda i: rank(str(legal[i]["card"])))
        buttons = [
            c
            for c in controls_of(hand, marker)
            if c.get("type") == 2 and not c.get("disabled") and ":do:" in str(c["custom_id"])
        ]
        exact = [c for c in buttons if str(c["custom_id"]).endswith(f".{best}")]
        if not (exact or buttons):
            raise Stuck("no card to click in Ana's hand")
        await ana.click(hand, str((exact or buttons)[0]["custom_id"]))
        tricks_seen += 1
        try:
            await until("Ana's card to be played", moved(games, gid, stored.version), 10)
        except Stuck:
            continue  # a hand not yet redrawn for this turn: look again


def moved(games: Any, gid: int, version: int) -> Callable[[], Awaitable[bool | None]]:
    """A check for :func:`until`: the game moved past ``version``."""

    async def check() -> bool | None:
        stored = await games.require(gid)
        return True if stored.version > version else None

    return check


# -- Spit -------------------------------------------------------------------------------------


async def spit_board(ana: Player) -> tuple[FakeMessage, FakeMessage]:
    """A Spit board against a computer, both spat and a few cards played, and Ana's own
    panel (**My controls**, shown to her alone) at that moment: (the board, the panel)."""
    gid = await open_table(ana, "spit", 1, "easy")
    games = ana.box.page.bot.store.games
    marker = f":spit:{gid}:"
    board = await until("the Spit board", lambda: _found(ana.latest(f"{marker}panel", dm=False)))
    await ana.click(board, f"gn{marker}panel")
    panel = await until("Ana's panel", lambda: _found(_panel(ana, marker)))
    played = 0
    while True:
        stored = await games.require(gid)
        view = stored.game.view(ana.id)
        players = list(view["players"])
        seat = players.index(ana.id)
        legal = list(view.get("you", {}).get("legal_actions") or [])
        moves = [a for a in legal if a["type"] == "spit"] or [
            a for a in legal if a["type"] == "play"
        ]
        spat = bool(view["spit_piles"]) and all(pile["top"] for pile in view["spit_piles"])
        if spat and (played >= 2 or not moves):
            await asyncio.sleep(0.5)
            return ana.fake.messages[board.id], ana.fake.messages[panel.id]
        if not moves:
            await asyncio.sleep(0.2)
            continue
        panel = ana.fake.messages[panel.id]
        buttons = [
            c
            for c in controls_of(panel, marker)
            if c.get("type") == 2
            and not c.get("disabled")
            and f":do:{seat}." in str(c["custom_id"])
            and ".x" not in str(c["custom_id"])
        ]
        wanted = [c for c in buttons if _names(str(c["custom_id"]), moves[0])]
        if not (wanted or buttons):
            await asyncio.sleep(0.2)
            continue
        try:
            await ana.click(panel, str((wanted or buttons)[0]["custom_id"]))
        except Stuck:
            continue  # the computer was faster: the panel changed
        if moves[0]["type"] == "play":
            played += 1
        await until("the Spit move", moved(games, gid, stored.version), timeout=20)
        if any(is_computer(p) for p in players):
            await asyncio.sleep(0.3)


def _panel(ana: Player, marker: str) -> FakeMessage | None:
    """Ana's panel: the newest message only she sees with the game's moves."""
    msg = ana.latest(f"{marker}do:", dm=False)
    return msg if msg is not None and msg.visible_to is ana.user else None


async def _found(msg: FakeMessage | None) -> FakeMessage | None:
    return msg


def _names(custom_id: str, action: Mapping[str, Any]) -> bool:
    """Whether a Spit control's argument names ``action`` (``<seat>.s``, ``<seat>.p.<pile>...``)."""
    arg = custom_id.rsplit(":", 1)[-1].split(".", 1)[-1]
    if action["type"] == "spit":
        return arg == "s" or arg.startswith("s.")
    if action["type"] == "play":
        return arg.startswith(f"p.{action['pile']}.{action['card']}.{action['spit']}")
    return False


# -- pictures ---------------------------------------------------------------------------------


async def shoot(page: Any, box: Sandbox, viewer: Player, msg: FakeMessage, path: Path) -> None:
    """An element screenshot of one message as ``viewer`` sees it, kept small."""
    await page.goto(f"{box.url}/#as={viewer.id}")
    view = page.locator(f'.view[data-user="{viewer.id}"]')
    tab = "@" if msg.channel.is_dm else "# general"
    await view.locator(".tab").filter(has_text=tab).first.click()
    article = view.locator(f"#m-{msg.id}")
    await article.wait_for()
    await article.scroll_into_view_if_needed()
    await page.mouse.move(0, 0)  # no hover on a button
    await page.wait_for_function(PICTURES_READY, arg=await article.element_handle())
    await asyncio.sleep(0.3)
    png = await article.screenshot(animations="disabled", caret="hide")
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    small = picture.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    path.parent.mkdir(parents=True, exist_ok=True)
    small.save(path, optimize=True)


async def take(out: Path, width: int) -> list[Path]:
    with tempfile.TemporaryDirectory(prefix="gamenight-pictures-") as tmp:
        folder = Path(tmp)
        async with (
            run_sandbox(folder / "data" / "sandbox.sqlite3", users=4) as box,
            chromium(folder / "profile") as context,
        ):
            emojis = box.page.bot.card_emojis
            await asyncio.wait_for(emojis.done.wait(), 120)
            if not emojis.emojis:
                raise Stuck(f"the card emojis were not uploaded: {emojis.report}")
            page = context.pages[0] if context.pages else await context.new_page()
            page.set_default_timeout(30_000)
            # One view as wide as the picture: a message is as wide as its view.
            await page.set_viewport_size({"width": width, "height": 1400})
            ana = Player(box, "Ana")
            table, hand = await papayoo_mid_trick(ana)
            paths = [out / "papayoo-table.png", out / "papayoo-hand.png"]
            await shoot(page, box, ana, table, paths[0])
            await shoot(page, box, ana, hand, paths[1])
            board, panel = await spit_board(ana)
            paths += [out / "spit-board.png", out / "spit-panel.png"]
            await shoot(page, box, ana, board, paths[2])
            await shoot(page, box, ana, panel, paths[3])
            return paths


def emoji_font() -> bool:
    """Whether Chromium has a colour emoji font to draw the bot's Unicode emojis with."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return True  # cannot tell: say nothing
    try:
        found = subprocess.run(  # noqa: S603
            [fc_list, ":charset=1f916"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return True  # cannot tell: say nothing
    return bool(found.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the pictures")
    parser.add_argument("--width", type=int, default=700, help="picture width in px (700)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    reason = missing_browser()
    if reason:
        print(f"bench.pictures: {reason}", file=sys.stderr)
        return 1
    if not emoji_font():
        print(
            "bench.pictures: warning: no colour emoji font (apt-get install "
            "fonts-noto-color-emoji): the bot's emojis (🤖, the sides' colours) show as their "
            "names (:robot_face:)",
            file=sys.stderr,
        )
    with contextlib.redirect_stdout(io.StringIO()):  # the sandbox's own address line
        paths = asyncio.run(take(args.out, args.width))
    for path in paths:
        with Image.open(path) as im:
            size = f"{im.width}x{im.height}"
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"{shown}  {size} px  {path.stat().st_size / 1024:.1f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
