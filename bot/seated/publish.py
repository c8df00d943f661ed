"""After a move: the table edited, the hands of whoever it concerns redrawn, a record posted
at the end of a round or game (the last one naming the players, so that they are told),
turn notices armed and computer seats woken.

What a move tells one player alone (Speahx: the cards they drew from the stock) is in the
engine's state and that player's own view, so their hand shows it like the rest of it:
nothing about a player is kept here.

Never inside a lock and never raising: every Discord call runs in the background, through
the message editors (:mod:`bot.seated.editor`) or a task of the cog.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence

import discord

from bot.budget import Dropped, Priority, priority
from bot.engine import Event
from bot.engine.lobby import is_computer
from bot.i18n import Lang, t
from bot.present import mention, when
from bot.private import DMS_CLOSED
from bot.seated.computers import ComputerRoom
from bot.seated.table import TableRoom
from bot.storage import StoredGame

__all__ = ["PublishRoom"]

log = logging.getLogger("gamenight.seated")


class PublishRoom(TableRoom, ComputerRoom):
    """What everyone sees of a committed move."""

    def _publish(
        self,
        after: StoredGame,
        events: list[Event],
        *,
        before: Sequence[str],
        actor: str | None,
        extra: Mapping[Lang, Sequence[str]] | None = None,
        notes: Mapping[str, str] | None = None,
        table: bool = True,
    ) -> None:
        """Show a committed move (never raises; Discord calls run in the background).
        ``table=False``: the interaction answer already showed the table."""
        public = self.public_locale(after)
        view = self.public(after)
        if not after.is_active:
            # Whoever follows the game's end (a game night's board) listens to this.
            self.bot.dispatch("seated_game_over", after)
        self.note_move(after, events, extra)
        if table:
            self._edit_table(after)
        records = self.render.records(after.shown_number, events, view, public)
        if records:
            over = any(e.get("type") == "game_over" for e in events)
            ping = self.players_told(after, public) if over else None
            self._spawn(self._post_records(after, records, ping))
        players: list[str] = view["players"]
        now = after.game.to_act() if after.is_active else []
        if not after.is_active or any(e.get("type") in self.spec.refresh_all for e in events):
            targets: Iterable[str] = players
        else:
            gained = set(now) - set(before)
            lost = set(before) - set(now)
            changed = gained | lost | set(notes or {}) | self.render.hands_changed(events)
            targets = [p for p in players if p in changed]
        for player in [] if self.spec.public_board else targets:
            if player != actor and not is_computer(player):
                self._edit_hand(after, player, note=(notes or {}).get(player))
        self._after_turn(after, before=before, actor=actor)

    def note_move(
        self,
        after: StoredGame,
        events: list[Event],
        extra: Mapping[Lang, Sequence[str]] | None = None,
    ) -> None:
        """What the table and the hands say happened last (kept until the next move), in
        each language the game is shown in (the channel's, each player's)."""
        live = self.live(after)
        if not extra and live.noted == after.version:
            return  # the move's own answer noted it already
        live.noted = after.version
        view = self.public(after)
        lines = {
            lang: [*(extra or {}).get(lang, ()), *self.render.event_lines(events, view, lang)]
            for lang in self.locales(after)
        }
        if any(lines.values()):
            live.last = lines

    def players_told(self, stored: StoredGame, locale: Lang) -> str | None:
        """The final record's message: the human players' mentions, that the game is over."""
        humans = [p for p in self.public(stored)["players"] if not is_computer(p)]
        if not humans:
            return None
        return t(
            "seated.result_ping",
            locale,
            players=" ".join(mention(p) for p in humans),
            game=self.render.name(locale),
            game_id=stored.shown_number,
        )

    def _after_turn(self, stored: StoredGame, *, before: Sequence[str], actor: str | None) -> None:
        """Notices and computer moves for whoever must act now."""
        now = stored.game.to_act() if stored.is_active else []
        done = [p for p in before if p not in now or p == actor]
        if done:
            self.notices.clear(stored.id, done)
        if not stored.is_active:
            self.notices.clear(stored.id)
            self._spawn(self._forget(stored.id))
            return
        fresh = [p for p in now if not is_computer(p) and (p not in before or p == actor)]
        if not self.spec.public_board:
            self.notices.arm(stored.id, fresh)
        if any(is_computer(p) for p in now):
            live = self.live(stored)
            if live.computer is None or live.computer.done():
                live.computer = self._spawn(self._computers(stored.id))

    async def _forget(self, game_id: int) -> None:
        """A finished game's memory goes once its last edits are out."""
        await self.tables.drain()
        await self.hands.drain()
        self.drop(game_id)

    async def _post_records(
        self, stored: StoredGame, embeds: list[discord.Embed], content: str | None = None
    ) -> None:
        """Post a round's or the game's record; ``content`` (the final one) mentions the
        human players, and only they are notified."""
        users = [
            discord.Object(id=int(p))
            for p in self.public(stored)["players"]
            if content and not is_computer(p) and str(p).isdigit()
        ]
        try:
            with priority(Priority.NOTICE):
                await self.channel(stored).send(
                    content,
                    embeds=embeds[:10],
                    allowed_mentions=discord.AllowedMentions(
                        everyone=False, roles=False, users=users
                    ),
                )
        except Dropped:
            log.warning(
                "a game record was dropped (too many refusals)", extra={"game_id": stored.id}
            )
        except discord.HTTPException:
            log.exception("could not post a game record", extra={"game_id": stored.id})

    async def _send_notice(
        self, game_id: int, player: str, warning: bool
    ) -> discord.Message | None:
        """Post the turn notice of :mod:`bot.seated.notices`: a DM, else a mention in the
        game's channel (closed DMs)."""
        stored = await self.bot.store.games.get(game_id)
        if stored is None or not stored.is_active or player not in stored.game.to_act():
            return None
        locale = self.player_locale(stored, player)
        deadline = await self.deadline(stored)
        key = "seated.notice_warn" if warning and deadline else "seated.notice"
        text = t(
            key,
            locale,
            table=self.table_link_text(stored, locale),
            when=when(deadline) if deadline else "",
        )
        dm = (stored.meta.get("hands") or {}).get(player)
        message: discord.Message | None = None
        if dm and self.bot.private.known_closed(int(player)):
            await self._dms_closed(game_id, player)  # closed since, as another message found
        elif dm:
            try:
                message = await self.bot.get_partial_messageable(int(dm[0])).send(text)
            except discord.Forbidden as err:
                if err.code != DMS_CLOSED:
                    raise
                await self._dms_closed(game_id, player)  # closed during the game
        if message is None:
            # Everyone reads the channel: it says what to press, not the player's settings.
            message = await self.channel(stored).send(
                f"{mention(player)} {text} {t('seated.notice_closed_dms', locale)}",
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=int(player))]),
            )
        # Noted in the game, so that a restart can still delete it (see StartRoom._resume).
        await self.bot.store.games.update_meta(
            game_id, {f"notice:{player}": [message.channel.id, message.id]}
        )
        return message
