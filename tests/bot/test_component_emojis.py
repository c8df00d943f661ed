"""Every control the bot shows is one Discord takes: no emoji outside Unicode's emoji list.

Discord refuses a whole message (or interaction answer) whose button or select option
carries an emoji that is not an emoji (400, 50035 ``BUTTON_COMPONENT_INVALID_EMOJI``):
U+1F0A0 🂠, a playing-card character, once did that to the "Show my hand" button. Every
payload here is checked with the fake Discord's own rules
(:func:`bot.fakediscord.validation.emoji_problem` for each emoji, then the whole
:func:`~bot.fakediscord.validation.check_message`: labels, lengths, layout):

- the hand controls (every page) and public boards of every seated game, for every view of
  every player at every step of random playouts, in English and French;
- the lobbies (computer-level select included) at every step of random lobby playouts, the
  tables' "Show my hand" button, the closed-DM hand button, Späye's views, the help pager;
- end to end, every component of every request body the real bot sent to the fake Discord
  while the games are played through it.

And when Discord refuses a payload all the same, the player is told so clearly and the
game stays consistent (the Späye challenge test at the end).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import pkgutil
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import aiohttp
import discord
import pytest

import cogs
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine import GAMES, Game, load_game, new_game
from bot.engine.cards import standard_deck
from bot.engine.lobby import Lobby
from bot.fakediscord.validation import check_message, check_modal, emoji_problem, walk_with_paths
from bot.i18n import Lang, t
from bot.private import HandButton, PrivateMessenger
from bot.seated import HandContext, SeatedCog, SeatedSpec, TableContext
from bot.seated.controls import SELECT_MAX, SELECTS_PER_PAGE, hand_controls
from bot.settings import Settings
from bot.storage import StoredGame
from bot.ui import GameView, report_error
from cogs import help as help_cog
from cogs.spaye import _views as spaye_views
from cogs.spit._render import encode
from tests.bot.fakes import FakeInteraction
from tests.cogs.papayoo_support import Table as PapayooTable
from tests.cogs.papayoo_support import office as papayoo_office
from tests.cogs.test_spaye_support import COGS as SPAYE_COGS
from tests.cogs.test_spaye_support import NK, SpayeDriver, rounds_table
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import walk_components
from tests.seated.driver import Seats

LOCALES: tuple[Lang, ...] = ("en", "fr")
CARD_BACK = "\U0001f0a0"
"""🂠 PLAYING CARD BACK: a character, not an emoji; Discord refuses it on a component."""
PER_PAGE = SELECT_MAX * SELECTS_PER_PAGE
NOW = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
LONG_NAME = "Marie-Bérénice Łukasiewicz-Ørsted"[:32]
"""A display name as long as Discord allows (32): labels show players' names."""


# -- checking payloads -----------------------------------------------------------------------


@dataclass
class Checked:
    """What the checks saw: the emojis met (the checks are not vacuous) and every refusal."""

    payloads: int = 0
    emojis: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)

    def message(self, payload: Mapping[str, Any], where: str, *, creating: bool = True) -> None:
        """One message payload (``content`` / ``embeds`` / ``components``) as Discord would
        check it: each component emoji, then the whole payload (``creating``: a new message,
        which may not be empty; an edit may)."""
        self.payloads += 1
        for path, comp in walk_with_paths(list(payload.get("components") or [])):
            emojis = [(path, comp.get("emoji"))] + [
                (f"{path}.options.{k}", opt.get("emoji"))
                for k, opt in enumerate(comp.get("options") or [])
            ]
            for at, emoji in emojis:
                if emoji is None:
                    continue
                named = emoji.get("name") or emoji.get("id") if isinstance(emoji, dict) else emoji
                self.emojis.add(str(named))
                problem = emoji_problem(emoji)
                if problem is not None:
                    self.problems.append(f"{where}: {at}.emoji.{problem} = {emoji!r}")
        refused = check_message(dict(payload), creating=creating, has_files=False)
        if refused is not None:
            self.problems.append(f"{where}: {json.dumps(refused[1], ensure_ascii=False)}")

    def view(
        self,
        view: discord.ui.View | None,
        where: str,
        *,
        embeds: Sequence[discord.Embed] = (),
        content: str | None = None,
        creating: bool = True,
    ) -> None:
        payload: dict[str, Any] = {
            "content": content,
            "embeds": [e.to_dict() for e in embeds],
            "components": view.to_components() if view is not None else [],
        }
        self.message(payload, where, creating=creating)

    def assert_clean(self) -> None:
        shown = "\n".join(self.problems[:20])
        assert not self.problems, f"{len(self.problems)} payloads Discord would refuse:\n{shown}"


# -- the seated games ------------------------------------------------------------------------


def seated_cogs() -> dict[str, type[SeatedCog]]:
    """Every seated game's cog under ``cogs/`` (a new game is checked without a change here)."""
    for info in pkgutil.walk_packages(cogs.__path__, "cogs."):
        importlib.import_module(info.name)
    found: dict[str, type[SeatedCog]] = {}
    stack = list(SeatedCog.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("cogs.") and "spec" in vars(cls):
            found[cls.spec.kind] = cls
    return found


SEATED = seated_cogs()


def option_sets(kind: str) -> list[dict[str, Any]]:
    """The options of the game's own examples (each once; none: the defaults), each played
    at the fewest and the most seats."""
    found: list[dict[str, Any]] = []
    for _, options in GAMES[kind].examples:
        if dict(options) not in found:
            found.append(dict(options))
    return found or [{}]


SEEDS = (1, 2)
"""Each setup is played once, with the next of these seeds (cycling)."""
MAX_STEPS = 3000


def test_every_seated_game_of_the_cogs_is_found() -> None:
    """Every table game of the engine (more than one seat, the lobby aside) has its seated
    cog here, found without a list; a public board among them is checked as one."""
    tables = {kind for kind, cls in GAMES.items() if cls.max_players > 1 and kind != Lobby.kind}
    assert tables and set(SEATED) == tables
    assert any(cog.spec.public_board for cog in SEATED.values())


def seatings(kind: str) -> list[list[str]]:
    """The fewest and the most seats; a computer seat (``cpu1``) at tables of three or more."""
    cls = GAMES[kind]
    sizes = sorted({cls.min_players, min(cls.max_players, 8)})
    tables = []
    for size in sizes:
        players = [str(111 * (i + 1)) for i in range(size)]
        if size >= 3:
            players[-1] = "cpu1"
        tables.append(players)
    return tables


def names_of(players: Sequence[str]) -> dict[str, str]:
    """What ``meta["names"]`` holds: the colleagues' display names (computers have none)."""
    pool = [LONG_NAME, "Ana", "Bob", "Élodie", "Dan", "Eve", "Fox", "Gus"]
    return {p: pool[i] for i, p in enumerate(players) if not p.startswith("cpu")}


def playout(game: Game, seed: int) -> Iterator[list[dict[str, Any]]]:
    """Random legal moves to the end (or ``MAX_STEPS``); yields the last move's events."""
    rnd = random.Random(seed)
    events: list[dict[str, Any]] = []
    for _ in range(MAX_STEPS):
        yield events
        if game.is_over():
            return
        actor = rnd.choice(game.to_act())
        events = list(game.apply(actor, rnd.choice(game.legal_actions(actor))))


def check_hand(
    checked: Checked,
    spec: SeatedSpec,
    view: dict[str, Any],
    locale: Lang,
    last: Sequence[str],
    status: str,
    where: str,
) -> None:
    """One player's private hand as the kit sends it: the embed and every page of controls."""
    render = spec.renderer
    embed = render.hand(HandContext(7, view, locale, NOW, last, status))
    if status != "active":
        checked.view(GameView(), where, embeds=[embed])
        return
    legal = view["you"]["legal_actions"]
    pages = max(1, -(-len(legal) // PER_PAGE))
    for page in range(pages):
        controls = hand_controls(spec.kind, 7, view, render, locale, page=page)
        checked.view(controls or GameView(), f"{where} page {page + 1}", embeds=[embed])


def check_board(
    checked: Checked,
    spec: SeatedSpec,
    game: Game,
    names: dict[str, str],
    locale: Lang,
    last: Sequence[str],
    status: str,
    where: str,
) -> None:
    """A public board (Spit): the table embed and its controls, and each player's own panel
    (an ephemeral message: the panel's embed and that player's controls)."""
    render = spec.renderer
    public = game.public_view() | {"names": names}
    embed = render.table(TableContext(7, public, locale, NOW, last, status))
    views = {p: game.view(p) | {"names": names} for p in public["players"]}
    controls = (
        render.board_controls(spec.kind, 7, views, locale) if status == "active" else GameView()
    )
    checked.view(controls, where, embeds=[embed])
    panel_controls = getattr(render, "panel_controls", None)
    for player, view in views.items():
        panel = render.hand(HandContext(7, view, locale, None, last, status))
        mine = panel_controls(spec.kind, 7, view, locale) if panel_controls else None
        active = status == "active" and mine is not None
        checked.view(mine if active else GameView(), f"{where} {player}", embeds=[panel])


def big_speahx_hand(seed: int) -> tuple[Game, str]:
    """A Speahx turn with more legal moves than one page shows (two decks in one hand, an
    empty pile): the only way a random playout meets the paged selects."""
    game = new_game("speahx", ["111", "222", "333"], seed, {})
    state = json.loads(game.dumps())
    state["hands"][state["turn"]] = standard_deck() * 2
    state["pile"] = []
    big = load_game(json.dumps(state))
    return big, state["players"][state["turn"]]


def test_every_page_of_a_paged_hand_is_one_discord_takes() -> None:
    spec = SEATED["speahx"].spec
    game, player = big_speahx_hand(1)
    view = game.view(player) | {"names": {player: LONG_NAME}}
    assert len(view["you"]["legal_actions"]) > PER_PAGE
    checked = Checked()
    for locale in LOCALES:
        check_hand(checked, spec, view, locale, [], "active", f"big hand {locale}")
    checked.assert_clean()
    assert checked.payloads == 2 * len(LOCALES)  # two pages, each checked


def check_step(
    checked: Checked,
    spec: SeatedSpec,
    game: Game,
    names: dict[str, str],
    events: list[dict[str, Any]],
    *,
    sampled: bool,
    where: str,
) -> None:
    """What every player may be shown after one move, in each language."""
    render = spec.renderer
    status = "over" if game.is_over() else "active"
    acting = set(game.to_act())
    public = game.public_view() | {"names": names}
    for locale in LOCALES:
        last = render.event_lines(events, public, locale)
        here = f"{where} {locale}"
        if spec.public_board:
            check_board(checked, spec, game, names, locale, last, status, here)
            continue
        if sampled:
            table = render.table(TableContext(7, public, locale, NOW, last, status))
            checked.view(None, f"{here} table", embeds=[table])
        for player in public["players"]:
            view = game.view(player) | {"names": names}
            hand = f"{here} hand of {player}"
            if player in acting or sampled:
                check_hand(checked, spec, view, locale, last, status, hand)
            else:  # a waiting hand: no controls (its embed is checked on sampled steps)
                controls = hand_controls(spec.kind, 7, view, render, locale)
                checked.view(controls, hand, creating=False)


@pytest.mark.parametrize("kind", sorted(SEATED))
def test_every_control_of_random_playouts_is_one_discord_takes(kind: str) -> None:
    """Every step of random games to their end: every player's hand (embed and controls,
    each page) or the public board, in English and French. A waiting player's hand is
    checked at every step for its controls, its embed every tenth step and at the end (the
    kit redraws a hand when its player's turn starts or ends, not at every move)."""
    spec = SEATED[kind].spec
    checked = Checked()
    setups = [(o, p) for o in option_sets(kind) for p in seatings(kind)]
    if len(setups) == 1:
        setups *= 2  # one table only (Spit): played with two seeds
    for number, (options, players) in enumerate(setups):
        seed = SEEDS[number % len(SEEDS)]
        game = new_game(kind, players, seed, options)
        names = names_of(players)
        for step, events in enumerate(playout(game, seed)):
            where = f"{kind} {len(players)}p {options} seed {seed} step {step}"
            sampled = step % 10 == 0 or game.is_over()
            check_step(checked, spec, game, names, events, sampled=sampled, where=where)
        assert game.is_over(), f"{kind} {len(players)}p seed {seed}: not over"
    checked.assert_clean()
    assert checked.payloads > 1000
    if kind in ("speahx", "spit"):  # their controls carry emojis: the check met them
        assert checked.emojis, kind


# -- lobbies, tables, the hand buttons -------------------------------------------------------


def stored_game(
    kind: str, game: Game, meta: dict[str, Any], *, status: str = "active", game_id: int = 7
) -> StoredGame:
    return StoredGame(
        id=game_id,
        kind=kind,
        guild_id=1,
        channel_id=2,
        status=status,  # type: ignore[arg-type]
        game=game,
        meta=meta,
        version=1,
        created_at=NOW,
        updated_at=NOW,
    )


@pytest.fixture
def offline_bot(tmp_path: Path) -> GamenightBot:
    """A bot never started (no database, no Discord): what a cog is built with."""
    return GamenightBot(Settings(database_path=tmp_path / "unused.sqlite3"), FakeClock(NOW), [])


@pytest.mark.parametrize("kind", sorted(SEATED))
def test_every_lobby_view_of_random_lobbies_is_one_discord_takes(
    kind: str, offline_bot: GamenightBot
) -> None:
    """The lobby (Join, Leave, Start, Cancel, the computer-level select, "Remove a
    computer") at every step of random lobbies: colleagues coming and going, computers
    seated and removed, in English and French."""
    cog = SEATED[kind](offline_bot)
    guests = [str(900 + i) for i in range(10)]
    checked = Checked()
    actions: set[str] = set()
    for seed in range(6):
        rnd = random.Random(seed)
        host = "111"
        lobby = new_game("lobby", [host], 0, {"game": kind})
        for step in range(60):
            if lobby.is_over():
                break
            for locale in LOCALES:
                stored = stored_game("lobby", lobby, {"locale": locale, "kit": {}}, game_id=3)
                view = cog.lobby_view(stored, locale)
                embed = cog.lobby_embed(stored, locale)
                checked.view(view, f"{kind} lobby {seed}/{step}", embeds=[embed])
                actions |= {str(c.custom_id).split(":")[3] for c in view.children}
            actor = rnd.choice([host, host, *guests])
            legal = [a for a in lobby.legal_actions(actor) if a["type"] not in ("start", "cancel")]
            if step > 40:  # then start or cancel it
                legal = lobby.legal_actions(actor) or legal
            if legal:
                lobby.apply(actor, rnd.choice(legal))
    checked.assert_clean()
    assert "🤖" in checked.emojis
    assert {"join", "leave", "start", "cancel", "add_computer", "remove_computer"} <= actions


@pytest.mark.parametrize("kind", sorted(SEATED))
@pytest.mark.parametrize("locale", LOCALES)
def test_the_table_and_its_show_my_hand_button_are_ones_discord_takes(
    kind: str, locale: Lang, offline_bot: GamenightBot
) -> None:
    cog = SEATED[kind](offline_bot)
    spec = cog.spec
    players = seatings(kind)[0]
    game = new_game(kind, players, 1, option_sets(kind)[0])
    meta = {"locale": locale, "names": names_of(players), "table_id": 5}
    checked = Checked()
    stored = stored_game(kind, game, meta)
    view = cog.table_view(stored)
    checked.view(view, f"{kind} table", embeds=[cog.table_embed(stored)])
    ids = [c.get("custom_id") for row in view.to_components() for c in row["components"]]
    over = stored_game(kind, game, meta, status="over")
    checked.view(cog.table_view(over), f"{kind} table over", embeds=[cog.table_embed(over)])
    checked.assert_clean()
    if spec.public_board:  # Spit: one button that opens the presser's own panel
        assert ids == [f"gn:{kind}:7:panel"]
    else:
        assert ids == [f"gn:{kind}:7:hand"]
        assert checked.emojis == {"🎴"}


@pytest.mark.parametrize("locale", LOCALES)
def test_the_closed_dm_hand_button_is_one_discord_takes(locale: Lang) -> None:
    """``HandButton`` (``gn:hand:<kind>:<id>``, still answered for old messages) as
    ``PrivateMessenger.hand_button`` makes it."""
    messenger = PrivateMessenger(cast(Any, None), cast(Any, None), cast(Any, None))
    checked = Checked()
    for kind in [*sorted(SEATED), "spaye"]:
        made = messenger.hand_button(kind, 12345678901234, locale)
        assert isinstance(made, HandButton)
        checked.view(GameView(made), f"hand button {kind}")
        checked.view(GameView(HandButton(kind, 7)), f"hand button {kind} (default label)")
    checked.assert_clean()
    assert checked.emojis == {"🎴"}


# -- Späye and help --------------------------------------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_every_spaye_view_is_one_discord_takes(locale: Lang) -> None:
    """Every view ``cogs/spaye/_views.py`` makes (with and without a bonus, one exercise per
    row as a record shows several), and the committee modal."""
    v = spaye_views
    game_id = 123456
    ex = {"id": 17, "reps": 12, "exercise": "x" * 100, "player": "111"}
    partners = {str(1000 + i): (LONG_NAME if i % 2 else f"P{i}") for i in range(30)}
    views: dict[str, discord.ui.View] = {
        "invitation": v.invitation_view(game_id, 99, locale),
        "draw": v.draw_view(game_id, 25, 9, locale),
        "recruit": v.recruit_view(game_id, 25, locale),
        "exercise": v.exercise_view(game_id, ex, False, locale),
        "exercise+bonus": v.exercise_view(game_id, ex, True, locale),
        "request": v.request_view(game_id, 17, 3, locale),
        "agree": v.agree_view(game_id, 4, locale),
        "bonus menu": v.bonus_menu(
            game_id, 17, ["mastaye", "tikao", "grand_spayin"], partners, locale
        ),
        "record": GameView(
            *v.exercise_items(game_id, ex, True, locale, row=0),
            *v.request_items(game_id, 18, 2, locale, row=1),
            *v.exercise_items(game_id, ex | {"id": 19}, False, locale, row=2),
        ),
    }
    checked = Checked()
    for name, view in views.items():
        checked.view(view, f"spaye {name}", content="·")
    checked.assert_clean()
    assert {"🎴", "✅", "⚖️", "✨"} <= checked.emojis
    modal = v.AskModal(game_id, ex, locale).to_dict()
    assert check_modal(modal) is None


@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_of_the_help_is_one_discord_takes(locale: Lang) -> None:
    checked = Checked()
    checked.view(None, "help overview", embeds=[help_cog.overview_embed(locale, set(SEATED))])
    paged = 0
    for game in help_cog.HELP_GAMES:
        pages = help_cog.game_pages(game, locale)
        for page, embeds in enumerate(pages):
            view = help_cog.page_view(game, page, len(pages), locale)
            paged += view is not None
            checked.view(view, f"help {game} page {page + 1}", embeds=embeds)
    checked.assert_clean()
    assert paged and {"◀️", "▶️"} <= checked.emojis


# -- the fake Discord refuses what Discord refuses -------------------------------------------


def button_message(emoji: dict[str, Any]) -> dict[str, Any]:
    button = {"type": 2, "style": 1, "custom_id": "x:1", "label": "Hand", "emoji": emoji}
    return {"content": "·", "components": [{"type": 1, "components": [button]}]}


async def test_the_fake_refuses_a_playing_card_emoji_and_takes_real_ones(
    fake_discord: FakeDiscord,
) -> None:
    fake = fake_discord
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "general")
    url = f"{fake.api_base}/channels/{channel.id}/messages"
    headers = {"Authorization": "Bot fake-token"}
    async with aiohttp.ClientSession() as http:

        async def post(emoji: dict[str, Any]) -> tuple[int, Any]:
            async with http.post(url, json=button_message(emoji), headers=headers) as answer:
                return answer.status, await answer.json()

        status, body = await post({"name": CARD_BACK})
        assert status == 400 and body["code"] == 50035
        errors = body["errors"]["components"]["0"]["components"]["0"]["emoji"]["name"]
        assert [e["code"] for e in errors["_errors"]] == ["BUTTON_COMPONENT_INVALID_EMOJI"]
        # A custom emoji must be one the application owns (unknown ids are refused).
        from bot.fakediscord.models import FakeEmoji

        owned = FakeEmoji(id=123456789012345678, name="card", data=b"", format="png")
        fake.application_emojis[owned.id] = owned
        for good in (
            {"name": "🃏"},
            {"name": "⚖️"},  # with its variation selector (U+FE0F)
            {"name": "⚖"},  # without
            {"id": "123456789012345678", "name": "card"},
        ):
            status, body = await post(good)
            assert status == 200, (good, body)
    assert len(fake.channel_messages(channel)) == 4
    assert emoji_problem({"name": CARD_BACK}) == "name"
    assert check_message(button_message({"name": CARD_BACK}), creating=True, has_files=False)


# -- end to end: every payload the real bot sends --------------------------------------------


@pytest.fixture
def make_bot(tmp_path: Path) -> Iterator[Any]:
    """A bot on this test's database and clock (seated games at test speed, one deal)."""
    clock = FakeClock(NOW)

    def make(cogs: Sequence[str]) -> GamenightBot:
        return GamenightBot(Settings(database_path=tmp_path / "gamenight.sqlite3"), clock, cogs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SeatedCog, "TABLE_EDIT_INTERVAL", 0.0)
        patch.setattr(SeatedCog, "COMPUTER_DELAY", 0.0)
        patch.setattr(SeatedCog, "NOTICE_DELAY", 3600.0)
        patch.setattr(importlib.import_module("bot.seated.start"), "new_seed", lambda: 7)
        yield make


def unlimited(fake: FakeDiscord) -> FakeDiscord:
    """The fake without REST rate limits: these tests look at payloads, not at pacing (a
    game's edits would wait out the per-channel buckets)."""
    try:
        from bot.fakediscord.ratelimits import Limits
    except ImportError:  # a fake that does not model rate limits
        return fake
    fake.limits = Limits.off("payload checks: games played as fast as possible")
    return fake


@contextlib.contextmanager
def every_payload_checked(fake: FakeDiscord) -> Iterator[Checked]:
    """Leaving the block, :func:`check_everything_sent`, also when the block failed (a
    refused payload often breaks the game's flow first: its report says why)."""
    checked = Checked()
    try:
        yield checked
    finally:
        check_everything_sent(fake, checked)


def check_everything_sent(fake: FakeDiscord, checked: Checked) -> None:
    """Every message payload in every request body the bot sent (channel messages, edits,
    interaction answers, follow-ups) and every version of every message the fake holds."""
    for number, call in enumerate(fake.calls):
        body = call.json
        if not isinstance(body, dict):
            continue
        where = f"{call.method} {call.route} (call {number})"
        if call.route.endswith("/callback"):
            data = body.get("data")
            if body.get("type") == 9 and isinstance(data, dict):
                assert check_modal(data) is None, where
            elif body.get("type") in (4, 7) and isinstance(data, dict):
                checked.message(data, where, creating=False)
        elif "components" in body or "embeds" in body or "content" in body:
            checked.message(body, where, creating=False)
    for message in fake.messages.values():
        for version in message.versions:
            checked.message(
                {"components": version.components}, f"message {message.id}", creating=False
            )
    checked.assert_clean()
    refused = [c for c in fake.failed_calls() if c.status == 400]
    assert not refused, refused


def custom_ids(fake: FakeDiscord) -> set[str]:
    """``<prefix>:<kind>:<action>`` of every component the fake ever held (game ids dropped)."""
    seen = set()
    for message in fake.messages.values():
        for version in message.versions:
            for comp in walk_components(version.components):
                parts = str(comp.get("custom_id") or "").split(":")
                if parts[1:2] == ["hand"]:  # gn:hand:<kind>:<id>
                    seen.add(":".join(parts[:3]))
                elif len(parts) >= 4:
                    seen.add(":".join([parts[0], parts[1], parts[3]]))
    return seen


async def test_papayoo_through_discord_sends_only_payloads_discord_takes(
    fake_discord: FakeDiscord, make_bot: Any
) -> None:
    """A lobby (a computer seated and removed), then a game with a French player and one
    whose DMs are closed (they play from "Show my hand"): the pass's buttons (its cards ticked), the card buttons."""
    fake = unlimited(fake_discord)
    guild, channel, users = papayoo_office(fake, ["Ana", "Bob", "Cyd"], french=["Cyd"])
    ana, bob, cyd = users
    fake.close_dms(bob)
    bot = make_bot(["cogs.papayoo"])
    with every_payload_checked(fake) as checked:
        async with fake.run_client(bot):
            table = PapayooTable(fake, bot, guild, channel, users, closed={bob.id})
            lobby = await fake.slash(ana, channel, "papayoo begin", {"rounds": 1})
            lobby_id = int(fake.buttons(lobby)[0].custom_id.split(":")[2])
            kind = f"papayoo_lobby:{lobby_id}"
            await fake.click(bob, lobby, f"gn:{kind}:join")
            await fake.select(ana, lobby, f"gns:{kind}:add_computer", ["hard"])
            await fake.click(ana, lobby, f"gn:{kind}:remove_computer")
            await fake.click(cyd, lobby, f"gn:{kind}:join")
            started = await fake.click(ana, lobby, f"gn:{kind}:start")
            assert started.callback_type == 7, started.text
            table.game_id = (await bot.store.games.find(kind="papayoo"))[0].id
            await table.quiet()
            for _ in range(8):
                assert await table.step()
            await table.show_hand(cyd)
        await bot.store.close()
    assert {
        "gn:papayoo_lobby:join",
        "gns:papayoo_lobby:add_computer",
        "gn:papayoo_lobby:remove_computer",
        "gn:papayoo:hand",
        "gn:papayoo:pick",
        "gn:papayoo:sel",
        "gn:papayoo:do",
    } <= custom_ids(fake)
    assert {"🤖", "🎴"} <= checked.emojis


async def test_speahx_and_spit_through_discord_send_only_payloads_discord_takes(
    fake_discord: FakeDiscord, make_bot: Any
) -> None:
    """Speahx played for a while by three colleagues (one in French); Spit challenged,
    accepted and played on its public board; a Spit lobby with a computer."""
    fake = unlimited(fake_discord)
    bot = make_bot(["cogs.speahx", "cogs.spit"])
    with every_payload_checked(fake) as checked:
        async with fake.run_client(bot):
            guild = fake.add_guild("Office")
            channel = fake.add_text_channel(guild, "games")
            users = [
                fake.add_user(n, locale=loc)
                for n, loc in [("Ana", "en-US"), ("Bob", "en-US"), ("Cyd", "fr")]
            ]
            for user in users:
                fake.add_member(guild, user)
            ana, bob, cyd = users
            seats = Seats(fake, bot, "speahx", channel, users)
            await seats.open_and_start({"turn_seconds": 0})
            for _ in range(30):
                stored = await seats.stored()
                if not stored.is_active:
                    break
                player = stored.game.to_act()[0]
                await seats.act(player, stored.game.auto_action(player))
            table = fake.message(int((await seats.stored()).meta["table_id"]))
            shown = await fake.click(cyd, table, f"gn:speahx:{seats.game_id}:hand")
            assert shown.ephemeral, shown.text

            asked = await fake.slash(ana, channel, "spit challenge", {"opponent": cyd})
            accepted = await fake.click(cyd, asked, label="Accept")
            assert accepted.callback_type == 7 and accepted.response is not None
            spit = bot.get_cog("Spit")
            assert isinstance(spit, SeatedCog)
            await spit.settle()
            game_id = (await bot.store.games.find(kind="spit"))[0].id
            people = {str(ana.id): ana, str(cyd.id): cyd}
            panels = {}
            for player, user in people.items():
                pressed = await fake.click(user, accepted.response, f"gn:spit:{game_id}:panel")
                panels[player] = pressed.followups[0]
            for _ in range(15):
                await spit.settle()
                stored = await bot.store.games.require(game_id)
                if not stored.is_active:
                    break
                player = stored.game.to_act()[0]
                seat = stored.game.public_view()["players"].index(player)
                move = encode(stored.game.auto_action(player))
                control = f"gn:spit:{game_id}:do:{seat}.{move}"
                panel = fake.message(panels[player].id)
                await fake.click(people[player], panel, control, settle=0.02)
            lobby = await fake.slash(bob, channel, "spit begin")
            lobby_id = int(fake.buttons(lobby)[0].custom_id.split(":")[2])
            await fake.select(bob, lobby, f"gns:spit_lobby:{lobby_id}:add_computer", ["easy"])
            await fake.click(bob, lobby, f"gn:spit_lobby:{lobby_id}:cancel")
        await bot.store.close()
    seen = custom_ids(fake)
    assert {"gn:speahx:do", "gn:speahx:hand", "gn:spit:do", "gn:spit:panel"} <= seen
    assert "gns:spit_lobby:add_computer" in seen
    assert {"🤖", "🎴", "🎮"} <= checked.emojis


async def test_spaye_and_help_through_discord_send_only_payloads_discord_takes(
    fake_discord: FakeDiscord, make_bot: Any
) -> None:
    """Späye: a challenge declined, one accepted and drawn to a nikäye, its exercise's
    buttons, the bonus menu (Grand Späyin) and the committee; then the help pager."""
    fake = unlimited(fake_discord)
    owner = fake.add_user("Olga")
    guild = fake.add_guild("Office", owner=owner)
    general = fake.add_text_channel(guild, "general")
    ana, bob, cid = (fake.add_user("Ana", locale="fr"), fake.add_user("Bob"), fake.add_user("Cid"))
    for user in (ana, bob, cid):
        fake.add_member(guild, user)
    bot = make_bot(SPAYE_COGS)
    with every_payload_checked(fake) as checked:
        async with fake.run_client(bot):
            await bot.store.titles.award(guild.id, "2025-02", "grand_spayin", ana.id)
            p = SpayeDriver(fake, bot, guild, general)
            await p.store_day(
                rounds_table([(NK, "8D"), ("5C", NK)], ["4H", "6C", "JD"], 4),
                bonuses={"grand_spayin": str(ana.id)},
            )
            declined = await p.challenge(ana, cid)
            await p.answer(cid, declined, "decline")
            await p.daye([ana, bob])  # Ana draws the nikäye: exercise 1 is hers
            record = await p.wait_newest(p.cid("done", 1))
            menu = await p.click(ana, record, p.cid("bonus", 1))
            assert menu.ephemeral and menu.response is not None, menu.text
            await p.choose(ana, menu.response, p.cid("share", 1, "gns"), bob)
            await p.daye([cid, bob])  # Bob draws the nikäye: exercise 3
            asked = await p.ask_committee(bob, 3, "3", "squats")
            assert not asked.ephemeral, asked.text
            await p.click(cid, asked, p.cid("approve", "3-1"))

            shown = await fake.slash(ana, general, "help", {"game": "spaye"})
            for _ in range(2):  # Next, then Previous (the buttons of the page shown)
                [enabled] = [b for b in fake.buttons(shown) if not b.disabled]
                turned = await fake.click(ana, shown, enabled.custom_id, settle=0.02)
                assert turned.callback_type == 7, turned.text
        await bot.store.close()
    seen = custom_ids(fake)
    assert {
        "gn:spaye:accept",
        "gn:spaye:decline",
        "gn:spaye:draw",
        "gn:spaye:done",
        "gn:spaye:ask",
        "gn:spaye:bonus",
        "gns:spaye:share",
        "gn:spaye:approve",
        "gn:help:page",
    } <= seen
    assert {"🎴", "✅", "⚖️", "✨", "◀️", "▶️"} <= checked.emojis


# -- a payload Discord refuses all the same --------------------------------------------------


def refusal(code: int = 50035, status: int = 400) -> discord.HTTPException:
    """The exception discord.py raises for Discord's answer to an invalid button emoji."""
    body = {
        "code": code,
        "message": "Invalid Form Body",
        "errors": {
            "components": {
                "0": {
                    "components": {
                        "0": {
                            "emoji": {
                                "name": {
                                    "_errors": [
                                        {
                                            "code": "BUTTON_COMPONENT_INVALID_EMOJI",
                                            "message": "Invalid emoji",
                                        }
                                    ]
                                }
                            }
                        }
                    }
                }
            }
        },
    }
    return discord.HTTPException(SimpleNamespace(status=status, reason="Bad Request"), body)


def ui_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "gamenight.ui" and r.levelno >= logging.ERROR]


@pytest.mark.parametrize("locale", ["en-US", "fr"])
async def test_a_refused_answer_is_told_plainly_and_logged_once_with_discords_errors(
    locale: str, caplog: pytest.LogCaptureFixture
) -> None:
    interaction = FakeInteraction(locale=discord.Locale(locale))
    await report_error(interaction, refusal(), where="spaye:accept")  # type: ignore[arg-type]
    [said] = interaction.log
    assert said.ephemeral and said.content == t("errors.discord_refused", locale)
    assert said.content != t("errors.generic", locale)
    [logged] = ui_errors(caplog)
    assert logged.getMessage() == "Discord refused the bot's answer"
    assert vars(logged)["where"] == "spaye:accept" and vars(logged)["discord_code"] == 50035
    assert "BUTTON_COMPONENT_INVALID_EMOJI" in json.dumps(vars(logged)["discord_errors"])
    assert "components.0.components.0.emoji.name" in vars(logged)["discord_error"]


async def test_other_discord_errors_keep_the_generic_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A second answer to one interaction (400 / 40060) or a 500 is no refused payload."""
    for error in (refusal(code=40060), refusal(code=0, status=500)):
        interaction = FakeInteraction()
        await report_error(interaction, error)  # type: ignore[arg-type]
        assert [s.content for s in interaction.log] == [t("errors.generic", "en")]
    assert [r.getMessage() for r in ui_errors(caplog)] == ["unhandled error in an interaction"] * 2


@pytest.mark.parametrize("locale", ["en-US", "fr"])
async def test_an_accept_whose_answer_discord_refuses_keeps_the_daye_and_says_so(
    fake_discord: FakeDiscord,
    make_bot: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    locale: str,
) -> None:
    """Bob accepts Ana's challenge, and Discord refuses the answer (the Draw button carries
    U+1F0A0). The accept is committed before the answer is sent: the däye is under way and
    intact, nothing of it is half done. Bob is told, in his language, that Discord refused
    the answer and that his move counts; the error is logged once, with Discord's errors."""
    fake = unlimited(fake_discord)
    guild = fake.add_guild("Office")
    general = fake.add_text_channel(guild, "general")
    ana, bob = fake.add_user("Ana"), fake.add_user("Bob", locale=locale)
    for user in (ana, bob):
        fake.add_member(guild, user)
    bot = make_bot(SPAYE_COGS)
    async with fake.run_client(bot):
        # The module the bot loaded (each bot loads its extensions afresh).
        play = importlib.import_module("cogs.spaye._daye")
        real_draw_view = play.draw_view

        def card_back_draw_view(*args: Any, **kwargs: Any) -> GameView:
            view = real_draw_view(*args, **kwargs)
            for item in view.children:
                cast(Any, item).item.emoji = CARD_BACK
            return view

        monkeypatch.setattr(play, "draw_view", card_back_draw_view)
        p = SpayeDriver(fake, bot, guild, general)
        await p.store_day(rounds_table([("KH", "2S")], [NK, "4C", "5C"], 0))
        posted = await p.challenge(ana, bob)
        before = await p.stored()
        caplog.clear()

        answered = await p.answer(bob, posted)

        # What Bob sees: his own message, in his language, saying what happened.
        assert answered.ephemeral and answered.interaction.user is bob
        assert answered.text == t("errors.discord_refused", locale)
        [refused] = [c for c in fake.failed_calls() if c.status == 400]
        assert refused.route.endswith("/callback")
        [logged] = ui_errors(caplog)
        assert logged.getMessage() == "Discord refused the bot's answer"
        assert vars(logged)["where"] == "spaye:accept"
        assert "BUTTON_COMPONENT_INVALID_EMOJI" in json.dumps(vars(logged)["discord_errors"])

        # The accept is committed, whole: the däye is under way, no draw made yet, the
        # invitation's expiry cancelled (it cannot void the däye later).
        after = await p.stored()
        assert after.version == before.version + 1
        view = after.game.public_view()
        assert view["challenge"] is None
        daye = view["daye"]
        assert daye["number"] == 1 and daye["rounds"] == [] and daye["drawn"] == []
        assert sorted(daye["players"]) == sorted([str(ana.id), str(bob.id)])
        assert sorted(daye["waiting"]) == sorted(daye["players"])
        assert load_game(after.game.dumps()).dumps() == after.game.dumps()
        expiry = await bot.store.timers.get(play.expiry_key(after.id))
        assert expiry is None or expiry.done

        # Pressing Accept again changes nothing (the invitation is closed), nor does a new
        # challenge while the däye is under way.
        again = await p.answer(bob, posted)
        assert again.ephemeral and again.text == t("spaye.stale.invite", locale)
        busy = await p.challenge(ana, bob)
        assert busy.ephemeral
        assert (await p.stored()).game.dumps() == after.game.dumps()

        # The däye itself is playable: the engine takes both draws and ends it. (Through
        # Discord its Draw button was in the refused answer only: no message shows it.)
        game = load_game(after.game.dumps())
        game.apply(str(ana.id), {"type": "draw"})
        game.apply(str(bob.id), {"type": "draw"})
        assert game.public_view()["daye"] is None
        assert game.public_view()["last_daye"]["winner"] == str(ana.id)
    await bot.store.close()
