"""The turn timer: a deadline for whoever must act, a warning before it, the bot's move at it.

The timer is durable (``bot.timers``): armed inside the move's transaction, it survives a
restart. When it fires, the bot moves for each late player as a click would (guarded by the
decision it was armed for) and says so on the table and in their hands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from bot.engine import Event, IllegalAction
from bot.engine.lobby import is_computer
from bot.i18n import t
from bot.seated.base import SeatedBase
from bot.seated.controls import stamp
from bot.storage import StoredGame
from bot.storage.models import ActOutcome

__all__ = ["TimerRoom", "away_update"]


class TimerRoom(SeatedBase):
    """The turn timer, its warning, and the bot's move for a late player."""

    async def _arm(self, stored: StoredGame, before: Sequence[str], actor: str | None) -> None:
        """Inside the move's transaction: a new decision gets a new deadline; players who
        merely left the turn (a pass locked) leave the others' deadline as it was."""
        live = self.live(stored)
        now = stored.game.to_act() if stored.is_active else []
        seconds = self.turn_seconds(stored)
        if not now or not seconds:
            armed = live.deadline is not None or not live.deadline_known
            if seconds and armed:  # a game without a timer never armed one: nothing to cancel
                await self.bot.timers.cancel(self.turn_key(stored.id))
                await self.bot.timers.cancel(self.warn_key(stored.id))
            live.deadline, live.deadline_known = None, True
            return
        if not (set(now) - set(before)) and actor not in now:
            return
        due = self.bot.clock.now() + timedelta(seconds=seconds)
        payload = {"game_id": stored.id, "players": now}
        await self.bot.timers.schedule(
            self.turn_timer(), due, payload, key=self.turn_key(stored.id)
        )
        warn = self.spec.warn_seconds
        if seconds >= 2 * warn:
            await self.bot.timers.schedule(
                self.warn_timer(),
                due - timedelta(seconds=warn),
                {**payload, "deadline": due.isoformat()},
                key=self.warn_key(stored.id),
            )
        live.deadline, live.deadline_known = due, True

    async def on_warn_timer(self, payload: dict[str, Any]) -> None:
        stored = await self.bot.store.games.get(int(payload["game_id"]))
        if stored is None or not stored.is_active:
            return
        deadline = await self.deadline(stored)
        if deadline is not None and deadline <= self.bot.clock.now():
            return  # overdue (the bot was down): the move itself comes at once, unannounced
        warned = payload.get("deadline")
        if warned is not None and (
            deadline is None
            or abs(deadline - datetime.fromisoformat(warned)) > timedelta(seconds=1)
        ):
            # The decision it warns of is gone: the turn timer (due with it after a
            # restart) or a move got there first, and the new deadline is not this one.
            return
        now = stored.game.to_act()
        late = [p for p in payload.get("players") or now if p in now and not is_computer(p)]
        await self.notices.warn(stored.id, late)

    async def on_turn_timer(self, payload: dict[str, Any]) -> None:
        """Time is up: the bot moves for whoever has not, and says so on the table and in
        each of their hands (several players late together are shown together)."""
        game_id = int(payload["game_id"])
        stored = await self.bot.store.games.get(game_id)
        if stored is None or not stored.is_active:
            return
        before = stored.game.to_act()
        late = [p for p in payload.get("players") or before if p in before]
        after: StoredGame | None = None
        events: list[Event] = []
        moves: list[tuple[str, Mapping[str, Any]]] = []
        for player in late:
            stored = await self.bot.store.games.require(game_id)
            if not stored.is_active or player not in stored.game.to_act():
                continue
            done = await self._bot_move(stored, player)
            if done is None:
                continue
            after, evs, action = done
            # The timer's own line names the move: the renderer need not say it again.
            events.extend({**e, "timer": True} if not is_computer(player) else e for e in evs)
            if not is_computer(player):
                moves.append((player, action))
        if after is None:
            return
        view = self.public(after)
        extra = {lang: self.render.auto_lines(moves, view, lang) for lang in self.locales(after)}
        notes: dict[str, str] = {}
        for player, action in moves:
            locale = self.player_locale(after, player)
            label = self.render.action_label(action, view, locale).text
            notes[player] = t("seated.timer_moved_you", locale, move=label)
        self._publish(after, events, before=before, actor=None, extra=extra, notes=notes)

    async def _bot_move(
        self, stored: StoredGame, player: str
    ) -> tuple[StoredGame, list[Event], Mapping[str, Any]] | None:
        """The bot's move for ``player`` (timer or computer seat), guarded like a click:
        committed, not yet shown. ``None`` when the decision changed meanwhile."""
        game = stored.game
        mark = stamp(game.legal_actions(player))
        if is_computer(player):
            action = await self._think(stored, player)
        else:
            action = game.auto_action(player)

        try:
            after, events = await self._act_decided(
                stored, player, action, mark, timer=not is_computer(player)
            )
        except IllegalAction:
            return None
        return after, events, action

    async def _act_decided(
        self,
        stored: StoredGame,
        player: str,
        action: Mapping[str, Any],
        mark: str,
        *,
        timer: bool = False,
    ) -> ActOutcome:
        """Commit ``player``'s ``action`` if the decision it was made on still stands
        (``mark``: the stamp of their legal actions then), arming the turn timer for what
        comes next in the same transaction; else ``IllegalAction`` (``seated.stale``).
        ``timer``: the turn timer moves for a late player (counted, :func:`away_update`)."""

        def same_decision(now: StoredGame) -> None:
            if stamp(now.game.legal_actions(player)) != mark:
                raise IllegalAction("this decision is gone", "seated.stale")

        before = stored.game.to_act()
        return await self.bot.store.games.act(
            stored.id,
            player,
            action,
            guard=same_decision,
            in_tx=lambda new, evs: self._arm(new, before, player),
            meta_update=away_update(stored, player, timer=timer),
        )


def away_update(stored: StoredGame, player: str, *, timer: bool) -> dict[str, Any] | None:
    """The game's ``meta["away"]`` after a move of ``player``: the turn timer's moves for a
    member in a row (one more when ``timer``; back to none when they move themselves). A
    member the timer played for :data:`~bot.ratings.ledger.AWAY_MOVES` times in a row up to
    the end left the game: they finish last in the ratings. ``None``: nothing changes."""
    away: Mapping[str, int] = stored.meta.get("away") or {}
    if timer:
        return {"away": {**away, player: int(away.get(player, 0)) + 1}}
    if away.get(player):
        return {"away": {p: n for p, n in away.items() if p != player}}
    return None
