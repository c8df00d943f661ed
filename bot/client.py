"""The bot: owns the database, the scheduler and the cogs for its whole life.

What a cog gets from ``self.bot`` (a :class:`GamenightBot`):

=================  ===========================================================================
``bot.settings``   process settings (:class:`bot.settings.Settings`)
``bot.clock``      the one source of "now" (:class:`bot.clock.Clock`; a ``FakeClock`` in tests)
``bot.db``         the SQLite connection (:class:`bot.storage.Database`), for transactions
``bot.store``      the repositories (:class:`bot.storage.Store`): ``games`` (with ``act``),
                   ``settings``, ``timers``, ``private``, ``days``, ``titles``, ``results``,
                   ``runs``
``bot.timers``     durable timers and periodic jobs (:class:`bot.timers.TimerService`)
``bot.private``    DMs with a fallback and "Show my hand" (:class:`bot.private.PrivateMessenger`)
``bot.actions``    routes persistent game buttons to their cog (:class:`bot.ui.ActionRouter`);
                   ``bot.actions.limiter`` holds commands and clicks per member
                   (:mod:`bot.limits`)
``bot.budget``     the REST budget every bot-token call waits in (:class:`bot.budget.RestBudget`)
=================  ===========================================================================

With ``SHARD_COUNT`` set, ``GamenightBot(settings)`` builds a :class:`ShardedGamenightBot`
(the same bot on :class:`discord.ext.commands.AutoShardedBot`): it runs the shards
``SHARD_IDS`` of ``SHARD_COUNT``, and its REST budget is its share of the token's
(``REST_SHARE``). Without it the bot is a plain :class:`~discord.ext.commands.Bot` on one
unsharded connection.

Start-up (:meth:`GamenightBot.setup_hook`): database open, migrations, scheduler start, cogs
load, command sync, the cards' emojis synced in the background (``bot.card_emojis``,
:mod:`bot.emojis`); once connected, timers that fell due while the bot was down run.
Shutdown (:meth:`GamenightBot.close`): scheduler stopped, database closed, then Discord
(which unloads the cogs: a ``cog_unload`` must not need the database).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Self, cast

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands
from discord.utils import MISSING

from bot.budget import RestBudget
from bot.clock import Clock, SystemClock
from bot.emojis import CardEmojis
from bot.extensions import discover_cogs
from bot.i18n import GamenightTranslator
from bot.limits import COMMANDS
from bot.private import HandButton, PrivateMessenger
from bot.settings import Settings
from bot.storage import Database, GuildSettings, Store, make_database
from bot.timers import TimerService, new_owner
from bot.ui import (
    ActionRouter,
    GameButton,
    GameSelect,
    Press,
    acknowledged,
    reply_error,
    report_error,
)

__all__ = ["INTENTS", "GamenightBot", "GamenightTree", "ShardedGamenightBot"]

log = logging.getLogger("gamenight.bot")

HTTP_CONNECTIONS = 100
"""Connections to Discord's REST API at most (discord.py alone sets no limit)."""

BUCKET_SWEEP_SECONDS = 60.0
"""How often discord.py may sweep its rate-limit buckets (see ``sweep_buckets_sparingly``)."""

GC_THRESHOLDS = (10_000, 10, 100)
"""The collector's thresholds once the bot is ready (Python's are 700, 10, 10). With
hundreds of games, every object a move keeps a few seconds (the game's new state, an answer
in flight) reached the oldest generation, and full collections of every live game ran
every few seconds (up to a second each on a loaded machine); a young collection every
10,000 objects lets most of them die young, and the oldest generation is collected ten
times less often. ``bench/load.py`` prints the collector's time per interaction."""

FETCHED_GUILD_SECONDS = 3600.0
"""How long a guild fetched from Discord (one of another process's shards) is kept."""
BACKGROUND_SENDS = 16
"""Discord calls made at once for work nobody waits on (hands and tables kept up to date, a
start's DMs): in a rush they queue behind this limit, and clicks are answered first."""

INTENTS = discord.Intents.none()
INTENTS.guilds = True
INTENTS.guild_scheduled_events = True
INTENTS.polls = True
"""No privileged intent: slash commands and buttons arrive as interactions that carry the
member, their permissions and the resolved options, so members, message content and
presences are not needed. ``guilds`` keeps channels, roles and the bot's own member cached,
which permission checks use; ``guild_scheduled_events`` brings game nights' events (created,
changed, deleted, a member marked Interested or not) and ``polls`` the votes of a night's
poll."""


# No voice here: spare the start-up warnings about missing voice libraries.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False


BUCKET_IDLE_SECONDS = 30.0
"""A rate-limit bucket unused this long is dropped at the next sweep (discord.py keeps them
5 minutes, about 1 KB each): most are a player's DM channel, used when their hand is sent
and seldom after (hands are edited with click tokens). Discord's per-channel windows last
seconds; a dropped bucket is made again, cautiously, on the channel's next request."""


def _idle(bucket: Any, idle: float) -> bool:
    """A bucket with nothing in flight or waiting, unused for ``idle`` seconds, whose window
    is not spent: it knows nothing the next request would miss."""
    try:
        unused = bucket._loop.time() - bucket._last_request
        spent = bucket.remaining <= 0 and not bucket.is_expired()
        return unused >= idle and not (bucket.outgoing or bucket._pending_requests or spent)
    except AttributeError:  # another discord.py: its own sweep decides
        return bool(bucket.is_inactive())


def sweep_buckets_sparingly(
    http: Any,
    *,
    every: float = BUCKET_SWEEP_SECONDS,
    idle: float = BUCKET_IDLE_SECONDS,
    now: Callable[[], float] = time.monotonic,
) -> None:
    """Sweep discord.py's rate-limit buckets at most once per ``every`` seconds, dropping
    those idle for ``idle`` seconds.

    discord.py keeps one bucket per route and channel (every DM channel has its own) and,
    once it holds 256, scans them all for inactive ones each time it makes a new one: with
    thousands of players a start rush made that scan on nearly every request (quadratic).
    It drops a bucket only after 5 minutes idle: with hundreds of players, their DM
    channels' buckets were a live game's largest share of memory (:data:`BUCKET_IDLE_SECONDS`).
    """
    sweep = getattr(http, "_try_clear_expired_ratelimits", None)
    if sweep is None or getattr(sweep, "sparing", False):
        return
    last = [now()]

    def sparing() -> None:
        if now() - last[0] < every:
            return
        last[0] = now()
        buckets = getattr(http, "_buckets", None)
        if not isinstance(buckets, dict):
            sweep()
            return
        for key in [key for key, bucket in buckets.items() if _idle(bucket, idle)]:
            del buckets[key]

    sparing.sparing = True  # type: ignore[attr-defined]
    http._try_clear_expired_ratelimits = sparing


class GamenightTree(app_commands.CommandTree["GamenightBot"]):
    """Acknowledges every slash command in time (:func:`bot.ui.acknowledged`: deferred when
    its answer is slow, e.g. while the database is away) and answers every failed one: a
    clear refusal or a generic error, always logged. Holds a member to
    :data:`bot.limits.COMMANDS`' rate (a private refusal naming it)."""

    async def _call(self, interaction: discord.Interaction[GamenightBot]) -> None:
        # The one place every application command (its checks included) runs through.
        async with acknowledged(interaction):
            await super()._call(interaction)

    async def interaction_check(self, interaction: discord.Interaction[GamenightBot], /) -> bool:
        if interaction.type is discord.InteractionType.autocomplete:
            return True  # suggestions while typing: nothing is done
        rule = self.client.actions.limiter.allow(interaction.user.id, COMMANDS)
        if rule is None:
            return True
        log.info("command refused: too fast", extra={"user_id": interaction.user.id})
        await reply_error(
            interaction, "limits.too_fast_commands", count=rule.count, seconds=f"{rule.seconds:g}"
        )
        return False

    async def on_error(
        self, interaction: discord.Interaction[GamenightBot], error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)


class GamenightBot(commands.Bot):
    """The Gamenight bot.

    Tests build it without a token: ``GamenightBot(Settings(database_path=tmp), FakeClock())``.
    With a clock other than :class:`SystemClock`, APScheduler is not started and the test
    drives time with ``await bot.timers.run_due()`` (override with ``autorun_timers``).
    ``cogs=None`` loads every cog found in ``cogs/`` (see :func:`bot.extensions.discover_cogs`).
    With ``SHARD_COUNT`` in the settings, the instance is a :class:`ShardedGamenightBot`.
    """

    def __new__(cls, settings: Settings, *args: Any, **kwargs: Any) -> Self:
        target: type[GamenightBot] = cls
        if cls is GamenightBot and settings.sharded:
            target = ShardedGamenightBot
        return cast(Self, object.__new__(target))

    def __init__(
        self,
        settings: Settings,
        clock: Clock | None = None,
        cogs: Sequence[str] | None = None,
        *,
        autorun_timers: bool | None = None,
        freeze_startup: bool = False,
        **options: Any,
    ) -> None:
        budget = RestBudget(settings.rest_calls_per_second, share=settings.rest_share_used)
        if settings.sharded:
            count = settings.shard_count
            options.setdefault("shard_count", None if count == "auto" else count)
            options.setdefault("shard_ids", settings.shard_ids)
        super().__init__(
            command_prefix=commands.when_mentioned,
            http_trace=budget.trace_config(),
            help_command=None,
            intents=INTENTS,
            tree_cls=GamenightTree,
            # Nobody is notified unless a message names them (see bot.ui.notify).
            allowed_mentions=discord.AllowedMentions.none(),
            **options,
        )
        self.settings = settings
        self.budget = budget
        """Every bot-token REST call waits its turn here (:mod:`bot.budget`)."""
        self.clock: Clock = clock or SystemClock()
        self.db: Database = make_database(settings)
        self.store = Store(self.db, self.clock)
        # As shards, other processes write the same games: a cached one is checked first.
        self.store.games.shared = settings.sharded
        if autorun_timers is None:
            autorun_timers = isinstance(self.clock, SystemClock)
        self.process_id = new_owner()
        """This process in the database's claims on timers and periodic jobs."""
        self.timers = TimerService(
            self.store.timers, self.clock, autorun=autorun_timers, owner=self.process_id
        )
        self.private = PrivateMessenger(self, self.store.private, self.store.games)
        self.actions = ActionRouter()
        self.actions.guard = self.press_guard
        self.background = asyncio.Semaphore(BACKGROUND_SENDS)
        self.card_emojis = CardEmojis()
        """The cards as application emojis, synced at start-up (``CARD_EMOJIS``)."""
        self.cog_modules: list[str] = list(cogs) if cogs is not None else discover_cogs()
        self.failed_cogs: list[str] = []
        self._catch_up: asyncio.Task[None] | None = None
        self._bucket_sweeps: asyncio.Task[None] | None = None
        self._fetched_guilds: dict[int, tuple[float, discord.Guild | None]] = {}
        self._fetching: dict[int, asyncio.Lock] = {}
        self.freeze_startup = freeze_startup
        """Once ready, ``gc.freeze()`` what start-up built and collect less often
        (``GC_THRESHOLDS``): the process runs one bot."""

    async def login(self, token: str) -> None:
        # discord.py opens as many connections as requests in flight (no limit): a start
        # rush kept hundreds of them, and their buffers, per process. aiohttp's own default
        # bounds them; answers still never wait long for one (a request takes milliseconds).
        if self.http.connector is MISSING:
            self.http.connector = aiohttp.TCPConnector(limit=HTTP_CONNECTIONS)
        sweep_buckets_sparingly(self.http)
        await super().login(token)

    async def setup_hook(self) -> None:
        log.info(
            "gateway: " + self.settings.describe_shards(),
            extra={
                "rest_per_s": round(self.budget.rate, 2),
                "rest_share": round(self.budget.share, 4),
            },
        )
        version = await self.store.open()
        log.info("database ready", extra={"schema_version": version})
        await self.store.ratings.catch_up()  # games finished before the ratings existed
        await self.timers.start()
        await self.tree.set_translator(GamenightTranslator())
        self.add_dynamic_items(GameButton, GameSelect, HandButton)
        await self.load_cogs()
        await self.sync_commands()
        self._catch_up = asyncio.create_task(self._catch_up_when_ready(), name="timers-catch-up")
        self._bucket_sweeps = asyncio.create_task(self._sweep_buckets(), name="rest-buckets")
        if self.settings.card_emojis:
            self.card_emojis.start(self)

    async def press_guard(self, interaction: discord.Interaction[Any], press: Press) -> str | None:
        """Whether a click may touch the game its custom id names (``None``: yes; else the
        refusal's key): a game of the server it was clicked in; in a DM, a game the clicker
        plays in. Discord only delivers clicks on the bot's own messages, whose ids are
        right; a forged or replayed id must not reach another server's game either."""
        stored = await self.store.games.get(press.game_id)
        if stored is None:
            return None  # its handler says the game is gone
        if interaction.guild_id is not None:
            return None if stored.guild_id == interaction.guild_id else "errors.other_server"
        players = stored.game.public_view().get("players") or ()
        seated = str(interaction.user.id) in {str(p) for p in players}
        return None if seated else "errors.not_a_player"

    async def _sweep_buckets(self) -> None:
        """discord.py sweeps its rate-limit buckets only when it makes a new one: once the
        start of a game is past, hardly ever. The sweep runs each minute all the same, so
        that the idle buckets of players' DM channels go (``sweep_buckets_sparingly``)."""
        while True:
            await asyncio.sleep(BUCKET_SWEEP_SECONDS)
            sweep = getattr(self.http, "_try_clear_expired_ratelimits", None)
            if sweep is not None:
                sweep()

    async def load_cogs(self) -> None:
        """Load :attr:`cog_modules`; a broken cog is logged and skipped, the others still run."""
        for module in self.cog_modules:
            try:
                await self.load_extension(module)
            except commands.ExtensionError:
                self.failed_cogs.append(module)
                log.exception("cog failed to load", extra={"cog": module})
        log.info("cogs loaded", extra={"cogs": ",".join(self.extensions)})

    async def sync_commands(self) -> None:
        """Publish slash commands: to ``DEV_GUILD_ID`` only (instant) or globally."""
        try:
            if self.settings.dev_guild_id is not None:
                guild = discord.Object(id=self.settings.dev_guild_id)
                self.tree.copy_global_to(guild=guild)
                synced = await self.tree.sync(guild=guild)
            else:
                synced = await self.tree.sync()
        except discord.HTTPException:
            log.exception("command sync failed; the previous commands stay in place")
            return
        log.info(
            "commands synced",
            extra={"count": len(synced), "guild_id": self.settings.dev_guild_id or "global"},
        )

    async def find_guild(self, guild_id: int) -> discord.Guild | None:
        """The guild as this process's shards see it; a guild of another process's shard
        (whose timer may run here) as Discord's API gives it, one call an hour at most;
        ``None`` for a guild the bot is not in."""
        seen = self.get_guild(guild_id)
        if seen is not None or self.http.token is None:
            return seen
        async with self._fetching.setdefault(guild_id, asyncio.Lock()):  # one call at a time
            kept = self._fetched_guilds.get(guild_id)
            if kept is not None and time.monotonic() - kept[0] < FETCHED_GUILD_SECONDS:
                return kept[1]
            try:
                fetched: discord.Guild | None = await self.fetch_guild(guild_id, with_counts=False)
            except discord.HTTPException as err:
                log.warning(
                    "could not fetch a guild", extra={"guild_id": guild_id, "code": err.code}
                )
                fetched = None
            self._fetched_guilds[guild_id] = (time.monotonic(), fetched)
            return fetched

    async def guild_settings(self, guild: discord.Guild | int) -> GuildSettings:
        """A guild's settings; with a :class:`discord.Guild`, ``locale`` follows its preferred
        locale unless an admin chose one."""
        if isinstance(guild, discord.Guild):
            return await self.store.settings.get(guild.id, str(guild.preferred_locale))
        return await self.store.settings.get(guild)

    async def caught_up(self) -> None:
        """Wait until the start-up catch-up of due timers and periodic jobs is done."""
        if self._catch_up is not None:
            await asyncio.shield(self._catch_up)

    async def _catch_up_when_ready(self) -> None:
        await self.wait_until_ready()
        try:
            await self.timers.catch_up()
        except Exception:
            log.exception("timer catch-up failed")
        if self.freeze_startup:
            # What start-up built (modules, discord.py, the catalogs) lives as long as the
            # process: out of the collector's sight, a full collection scans only games.
            gc.collect()
            gc.freeze()
            gc.set_threshold(*GC_THRESHOLDS)

    async def on_app_command_completion(
        self, interaction: discord.Interaction[Any], command: Any
    ) -> None:
        await self.private.flush_for(interaction)

    async def close(self) -> None:
        """Stop the scheduler, close the database, then disconnect from Discord."""
        if self._catch_up is not None:
            self._catch_up.cancel()
        if self._bucket_sweeps is not None:
            self._bucket_sweeps.cancel()
        await self.card_emojis.stop()
        try:
            await self.timers.shutdown()
        finally:
            await self.store.close()
            await super().close()


class ShardedGamenightBot(GamenightBot, commands.AutoShardedBot):
    """The bot as shards (``SHARD_COUNT``): one gateway connection per shard of ``SHARD_IDS``.

    Discord sends each guild's events and interactions to the shard ``(guild_id >> 22) %
    SHARD_COUNT`` only, and DMs (a click on a hand in DMs) to shard 0: the process that runs
    shard 0 answers every DM, whichever process runs the game's guild. Built by
    ``GamenightBot(settings)`` when the settings name a shard count.
    """
