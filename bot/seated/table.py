"""The table and the hands: what they show, and every edit of their messages.

The table is the lobby message, edited in place (coalesced: :attr:`TABLE_EDIT_INTERVAL`).
Each player's hand is a DM edited in place, plus the ephemeral "Show my hand" copy while
Discord takes its token. A player has one live ephemeral copy at a time: showing a new one
retires the one before (edited through its own token, no bot-token call, to say the hand
moved on, with no control left); the DM stays live beside it. An edit goes with the token of
the latest click answered on that message while Discord still takes it (free of the global
limit), else with the bot's token; a message Discord refuses to edit (a DM closed, a
channel lost) is told once, never retried in a loop.

A hand shows the table's state (the trick, the pile, what just happened) only while its
player must act (:attr:`HandContext.current`): the hand is edited when their turn starts and
when it ends, not when others move, so off turn it shows what stays true (the hand, whose
turn it is not) and never a stale table.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from datetime import datetime
from functools import partial
from typing import Any, Final

import discord

from bot.budget import Dropped, Priority, priority
from bot.engine import IllegalAction
from bot.engine.lobby import is_computer
from bot.i18n import Lang, t
from bot.private import DMS_CLOSED, PrivateRender
from bot.seated.base import Copy, SeatedBase, token_until
from bot.seated.render import HandContext, TableContext, mark_unrated, unrated_note
from bot.seated.spec import CASUAL
from bot.storage import StoredGame
from bot.ui import ClickToken, GameButton, GameView, edit_by_id, edit_by_token

__all__ = ["TABLE_REFUSED_PAUSE", "TableRoom"]

log = logging.getLogger("gamenight.seated")

TABLE_REFUSED_PAUSE: Final = 300.0
RETIRED: Final = sys.maxsize
"""The version of a retired DM hand: no state of the game is newer, none is shown after it."""


class TableRoom(SeatedBase):
    """The table message and every copy of every hand."""

    def table_embed(
        self, stored: StoredGame, *, deadline: datetime | None = None, note: str | None = None
    ) -> discord.Embed:
        locale = self.public_locale(stored)
        computers = any(is_computer(p) for p in self.public(stored)["players"])
        note_unrated = unrated_note(bool(stored.meta.get(CASUAL)), computers, locale)
        embed = self.render.table(
            TableContext(
                game_id=stored.shown_number,
                view=self.named(stored, self.public(stored)),
                locale=self.public_locale(stored),
                deadline=deadline,
                last=self.last_lines(stored, self.public_locale(stored)),
                status=stored.status,
                note=note,
                outcome=stored.game.result() if stored.status == "over" else None,
            )
        )
        return mark_unrated(embed, note_unrated)

    @staticmethod
    def table_link(stored: StoredGame) -> str:
        """A link to the table message (its channel before it is known)."""
        link = f"https://discord.com/channels/{stored.guild_id}/{stored.channel_id}"
        table_id = stored.meta.get("table_id")
        return f"{link}/{table_id}" if table_id else link

    def table_link_text(self, stored: StoredGame, locale: Lang) -> str:
        """The table as a masked link that reads as what it is (``[Papayoo #4](…)``), not
        as Discord shows a bare message link (``#general › message``)."""
        name = t(
            "seated.table_link", locale, game=self.render.name(locale), game_id=stored.shown_number
        )
        return f"[{name}]({self.table_link(stored)})"

    def table_view(self, stored: StoredGame) -> GameView:
        if not stored.is_active:
            return GameView()
        if self.spec.public_board:
            locale = self.public_locale(stored)
            views = {
                p: self.named(stored, stored.game.view(p)) for p in self.public(stored)["players"]
            }
            return self.render.board_controls(self.kind, stored.id, views, locale)
        label = t("private.show_hand", self.public_locale(stored))
        return GameView(
            GameButton(
                self.kind,
                stored.id,
                "hand",
                label=label,
                emoji="🎴",
                style=discord.ButtonStyle.primary,
            )
        )

    async def hand_message(
        self,
        stored: StoredGame,
        player: str,
        *,
        note: str | None = None,
        locale: Lang | None = None,
    ) -> tuple[discord.Embed, GameView | None]:
        locale = locale or self.player_locale(stored, player)
        view = self.named(stored, stored.game.view(player))
        deadline = await self.deadline(stored)
        acting = player in stored.game.to_act()
        current = acting or not stored.is_active  # edited when either changes
        embed = self.render.hand(
            HandContext(
                game_id=stored.shown_number,
                view=view,
                locale=locale,
                deadline=deadline if acting else None,
                last=self.last_lines(stored, locale) if current else (),
                status=stored.status,
                note=note,
                current=current,
            )
        )
        embed.url = self.table_link(stored)  # the title leads to the table
        controls = self.controls(stored, player, locale) if stored.is_active else None
        return embed, controls

    async def render_hand(self, stored: StoredGame, user_id: int, locale: Lang) -> PrivateRender:
        """ "Show my hand" on an older table message (kept for old buttons)."""
        if stored.kind != self.kind or str(user_id) not in self.public(stored)["players"]:
            raise IllegalAction("you are not playing in this game", "seated.not_a_player")
        embed, controls = await self.hand_message(stored, str(user_id), locale=locale)
        return None, embed, controls

    def hand_shown(
        self,
        stored: StoredGame,
        interaction: discord.Interaction[Any],
        message: discord.Message | None,
    ) -> None:
        """An older table's "Show my hand" (:meth:`render_hand`) answered: that copy is the
        player's live one, as with the table's own button."""
        if stored.kind == self.kind and stored.is_active:
            self.new_copy(stored, str(interaction.user.id), interaction, message, fresh=True)
            self.hands.shown((stored.id, str(interaction.user.id), "eph"), stored.version)

    # -- editing ----------------------------------------------------------------------------

    def _edit_table(self, stored: StoredGame, note: str | None = None) -> None:
        table_id = stored.meta.get("table_id")
        live = self.live(stored)
        if not table_id or live.table_refused_until > time.monotonic():
            return
        by_bot = partial(edit_by_id, self.bot, stored.channel_id, int(table_id))
        edit, level = self._edit_path(live.table_token, by_bot, Priority.TABLE)

        async def send() -> None:
            deadline = await self.deadline(stored)
            await edit(
                embed=self.table_embed(stored, deadline=deadline, note=note),
                view=self.table_view(stored),
            )

        self.tables.submit((stored.id, "table"), stored.version, send, level)

    def _edit_path(
        self, token: Copy | None, by_bot: Any, level: Priority
    ) -> tuple[Any, Priority | None]:
        """How to edit a message: with the token of the latest click answered on it while
        Discord still takes it (not counted by the global limit), else with the bot's token
        at ``level``. A token Discord refuses falls back to the bot's token at once."""
        if token is None or token.expires <= time.monotonic():
            return by_bot, level

        async def edit(**kwargs: Any) -> None:
            try:
                await edit_by_token(self.bot, token.token, **kwargs)
            except discord.HTTPException as err:
                if err.status not in (401, 404):
                    raise
                token.expires = 0.0
                with priority(level):
                    await by_bot(**kwargs)

        return edit, None

    def keep_token(
        self,
        interaction: discord.Interaction[Any],
        stored: StoredGame,
        player: str | None,
        message: Any = None,
    ) -> None:
        """Remember a click's token when its answer edited the message it was on, and that
        message is the game's: the DM hand of ``player`` (``message``: its recorded
        ``[channel, message]`` ids), or the table (``player=None``, ``message`` its id).
        Only a running game's: an ended one's messages are edited no more."""
        if not stored.is_active:
            return
        kind = interaction.response.type
        if kind not in (
            discord.InteractionResponseType.message_update,
            discord.InteractionResponseType.deferred_message_update,
        ):
            return
        expected = message[1] if isinstance(message, list | tuple) else message
        clicked = interaction.message
        if expected is None or clicked is None or clicked.id != int(expected):
            return  # an older copy: its token must not edit in place of the game's message
        # Discord takes the token for 15 minutes from the click, not from the answer.
        age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        token = Copy(ClickToken.of(interaction), token_until(age))
        live = self.live(stored)
        if player is None:
            live.table_token = token
        else:
            live.dm_tokens[player] = token

    # -- the copies of a hand ---------------------------------------------------------------

    def new_copy(
        self,
        stored: StoredGame,
        player: str,
        interaction: discord.Interaction[Any],
        message: discord.Message | None,
        *,
        fresh: bool,
    ) -> None:
        """``interaction`` answered with an ephemeral copy of ``player``'s hand (``message``:
        that copy, when Discord named it; ``fresh``: a new message, not a click on a copy):
        it is their live copy from now on. The live copy before it, another message, is
        retired through its own token (no bot-token call), so that its controls are not
        pressed in vain ("from an earlier turn"). An ended game keeps no copy."""
        if not stored.is_active:
            return
        live = self.live(stored)
        message_id = message.id if message is not None else None
        old = live.copies.get(player)
        live.copies[player] = Copy(ClickToken.of(interaction), token_until(), message_id)
        if old is None or old.expires <= time.monotonic():
            return
        same = message_id is not None and old.message_id == message_id
        if same or (old.message_id is None and not fresh):
            return  # a click on the live copy itself (or one that cannot be told apart)
        self._spawn(self._retire(old, self.player_locale(stored, player)))

    async def _retire(self, old: Copy, locale: Lang) -> None:
        """An older ephemeral copy says the hand moved to a newer one, with no control."""
        try:
            await edit_by_token(
                self.bot, old.token, content=t("seated.hand_moved", locale), embed=None, view=None
            )
        except discord.HTTPException as err:  # dismissed by the player, or its token gone
            log.debug("an older copy of a hand was not retired", extra={"status": err.status})

    def _live_copy(self, game_id: int, player: str) -> Any:
        """Edits the player's live ephemeral copy as it is when the edit goes (a newer copy
        shown meanwhile gets it, never the retired one)."""

        async def edit(**kwargs: Any) -> None:
            live = self._live.get(game_id)
            copy = live.copies.get(player) if live is not None else None
            if copy is not None and copy.expires > time.monotonic():
                await edit_by_token(self.bot, copy.token, **kwargs)

        return edit

    def _edit_hand(self, stored: StoredGame, player: str, note: str | None = None) -> None:
        """Every live copy of one player's hand shows ``stored`` (newest state wins)."""
        copies: list[tuple[str, Any, Priority | None]] = []
        live = self.live(stored)
        level = Priority.UNBLOCK if player in stored.game.to_act() else Priority.TABLE
        dm = (stored.meta.get("hands") or {}).get(player)
        if dm:
            by_bot = partial(edit_by_id, self.bot, int(dm[0]), int(dm[1]))
            copies.append(("dm", *self._edit_path(live.dm_tokens.get(player), by_bot, level)))
        copy = live.copies.get(player)
        if copy is not None and copy.expires > time.monotonic():
            copies.append(("eph", self._live_copy(stored.id, player), None))
        for name, edit, paced in copies:

            async def send(edit: Any = edit) -> None:
                embed, controls = await self.hand_message(stored, player, note=note)
                await edit(content=None, embed=embed, view=controls or GameView())

            self.hands.submit((stored.id, player, name), stored.version, send, paced)

    def _edit_other_copy(self, stored: StoredGame, player: str, copy: str) -> None:
        """The player's other copy of the hand (DM or "Show my hand") follows."""
        dm = (stored.meta.get("hands") or {}).get(player)
        live = self.live(stored)
        live_copy = live.copies.get(player)
        level: Priority | None
        if copy == "dm" and dm:
            by_bot = partial(edit_by_id, self.bot, int(dm[0]), int(dm[1]))
            edit, level = self._edit_path(live.dm_tokens.get(player), by_bot, Priority.TABLE)
        elif copy == "eph" and live_copy is not None and live_copy.expires > time.monotonic():
            edit, level = self._live_copy(stored.id, player), None
        else:
            return

        async def send() -> None:
            embed, controls = await self.hand_message(stored, player)
            await edit(content=None, embed=embed, view=controls or GameView())

        self.hands.submit((stored.id, player, copy), stored.version, send, level)

    # -- refused edits ----------------------------------------------------------------------

    def _refused(self, key: Any, err: discord.HTTPException) -> None:
        """Discord refused an edit (403): a DM closed in the middle of a game, or the table's
        channel no longer open to the bot. Told once, never retried in a loop."""
        if not isinstance(key, tuple) or not key:
            return
        game_id = int(key[0])
        if len(key) == 3 and key[2] == "dm" and err.code == DMS_CLOSED:
            self._spawn(self._dms_closed(game_id, str(key[1])))
        elif key[-1] == "table":
            live = self._live.get(game_id)
            if live is None:  # an ended game's: nothing to tell
                return
            live.table_refused_until = time.monotonic() + TABLE_REFUSED_PAUSE
            log.warning(
                "Discord refused to edit a table",
                extra={"game_id": game_id, "status": err.status, "code": err.code},
            )
            if not live.host_told:
                live.host_told = True
                self._spawn(self._tell_host(game_id))

    async def _dms_closed(self, game_id: int, player: str) -> None:
        """A player closed their DMs during the game: their hand is shown on the table's
        "Show my hand" from now on, and their turn notices mention them in the channel.
        The DM copy, no longer edited, is retired: one line saying where the hand is now,
        never a hand left behind that says whose turn it was."""
        log.info("DMs closed during a game", extra={"game_id": game_id, "user_id": player})
        stored = await self.bot.store.games.get(game_id)
        if stored is None:
            return
        dm = (stored.meta.get("hands") or {}).get(player)
        if player in (stored.meta.get("hands") or {}):
            await self.bot.store.games.merge_meta(game_id, "hands", {player: None})
        token = self.live(stored).dm_tokens.pop(player, None)
        self.bot.private.dms_closed(int(player))
        if dm:
            self._retire_dm(stored, player, dm, token)

    def _retire_dm(self, stored: StoredGame, player: str, dm: Any, token: Copy | None) -> None:
        """The DM hand says, in one line, that the hand is on the table's "Show my hand" now:
        once per player and game, through the latest click's token when Discord still takes
        it, in the DM's own slot of the editor after any edit already on its way (and no
        later one: the retired copy is the last state of that message). A press on it is
        answered privately with the hand as it is now (:meth:`MovesRoom._retired_press`)."""
        locale = self.player_locale(stored, player)
        text = t("seated.hand_retired", locale, table=self.table_link_text(stored, locale))
        by_bot = partial(edit_by_id, self.bot, int(dm[0]), int(dm[1]))
        edit, level = self._edit_path(token, by_bot, Priority.TABLE)

        async def send() -> None:
            await edit(content=text, embed=None, view=GameView())

        self.hands.submit((stored.id, player, "dm"), RETIRED, send, level)

    async def _tell_host(self, game_id: int) -> None:
        stored = await self.bot.store.games.get(game_id)
        if stored is None:
            return
        host = str(stored.meta.get("host") or "")
        if not host or is_computer(host):
            return
        locale = self.player_locale(stored, host)
        text = t(
            "seated.table_refused",
            locale,
            game=self.render.name(locale),
            game_id=stored.shown_number,
            channel=f"<#{stored.channel_id}>",
        )
        with contextlib.suppress(Dropped), priority(Priority.NOTICE):
            await self.bot.private.send(
                int(host), f"{self.kind}:{game_id}:refused", text, locale=locale
            )
