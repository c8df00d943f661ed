"""Späye's buttons, user selects and the committee modal.

Every component carries the game id and what it is about in its custom id
(``gn:spaye:<game>:<action>:<arg>``; user selects ``gnu:spaye:...``; the modal
``gnm:spaye:...``), so a button sent hours ago still works after a restart and a button
made for an earlier challenge, round or request is recognised as stale:

=========================  ==========================================================
``accept`` / ``decline``   arg: the invitation number (``meta["invite"]``)
``draw``                   arg: ``<däye>-<round>``
``done`` ``giveup`` ``ask``  arg: the exercise id
``bonus`` ``tyrant`` ``double``  arg: the exercise id (the menu only its holder sees)
``approve`` / ``refuse``   arg: ``<exercise>-<request number>`` (``meta["ask"]``)
``recruit`` (user select)  arg: the däye number
``share`` (select)         arg: the exercise id; options: the eligible späyins
``agree``                  arg: the proposal number (``meta["proposal"]``)
=========================  ==========================================================
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import discord

from bot.i18n import t
from bot.text import clip, plain
from bot.ui import (
    GameButton,
    GameSelect,
    GameView,
    PersistentItem,
    Press,
    game_custom_id,
    game_view,
)

KIND: Final = "spaye"
MODAL_PREFIX: Final = "gnm:spaye:"
REPS_FIELD: Final = "reps"
EXERCISE_FIELD: Final = "exercise"

_Button = discord.ButtonStyle


class SpayeUserSelect(
    PersistentItem[discord.ui.UserSelect[discord.ui.View]],
    template=r"gnu:(?P<kind>spaye):(?P<game_id>\d+):(?P<action>[a-z_]+)(?::(?P<arg>[^:]*))?",
):
    """A persistent user select (recruit a third player, share an exercise), routed like
    the kit's buttons: the handler gets the chosen user ids in ``press.values``."""

    def __init__(
        self, game_id: int, action: str, arg: str | None = None, *, placeholder: str = ""
    ) -> None:
        custom_id = game_custom_id(KIND, game_id, action, arg, prefix="gnu")
        super().__init__(
            discord.ui.UserSelect(custom_id=custom_id, placeholder=placeholder or None),
            Press(KIND, game_id, action, arg),
        )

    @classmethod
    def rebuild(cls, press: Press, item: discord.ui.Item[Any]) -> SpayeUserSelect:
        return cls(press.game_id, press.action, press.arg)

    def chosen(self) -> tuple[str, ...]:
        return tuple(str(user.id) for user in self.item.values)


def button(
    game_id: int,
    action: str,
    arg: str | int,
    label: str,
    style: discord.ButtonStyle = _Button.secondary,
    *,
    emoji: str | None = None,
    row: int | None = None,
) -> GameButton:
    return GameButton(
        KIND, game_id, action, str(arg), label=label, style=style, emoji=emoji, row=row
    )


def invitation_view(game_id: int, invite: int, locale: str) -> GameView:
    return game_view(
        button(game_id, "accept", invite, t("spaye.btn.accept", locale), _Button.success),
        button(game_id, "decline", invite, t("spaye.btn.decline", locale), _Button.danger),
    )


def draw_view(game_id: int, daye: int, round_no: int, locale: str) -> GameView:
    return game_view(
        button(
            game_id,
            "draw",
            f"{daye}-{round_no}",
            t("spaye.btn.draw", locale),
            _Button.primary,
            emoji="🎴",
        )
    )


def recruit_view(game_id: int, daye: int, locale: str) -> GameView:
    return game_view(
        SpayeUserSelect(game_id, "recruit", str(daye), placeholder=t("spaye.btn.recruit", locale))
    )


def exercise_items(
    game_id: int, ex: Mapping[str, Any], bonus: bool, locale: str, *, row: int | None = None
) -> list[discord.ui.Item[Any]]:
    """Done / Give up / Ask the committee, and "Bonus" when its holder may use one here;
    labelled with the exercise number when several share a message."""
    eid = ex["id"]
    tag = f" #{eid}" if row is not None else ""
    items: list[discord.ui.Item[Any]] = [
        button(
            game_id,
            "done",
            eid,
            t("spaye.btn.done", locale) + tag,
            _Button.success,
            emoji="✅",
            row=row,
        ),
        button(game_id, "giveup", eid, t("spaye.btn.give_up", locale), _Button.danger, row=row),
        button(game_id, "ask", eid, t("spaye.btn.ask", locale), emoji="⚖️", row=row),
    ]
    if bonus:
        items.append(
            button(game_id, "bonus", eid, t("spaye.btn.bonus", locale), emoji="✨", row=row)
        )
    return items


def exercise_view(game_id: int, ex: Mapping[str, Any], bonus: bool, locale: str) -> GameView:
    return game_view(*exercise_items(game_id, ex, bonus, locale))


def request_items(
    game_id: int, eid: int, ask: int, locale: str, *, row: int | None = None
) -> list[discord.ui.Item[Any]]:
    arg = f"{eid}-{ask}"
    tag = f" #{eid}" if row is not None else ""
    return [
        button(
            game_id, "approve", arg, t("spaye.btn.approve", locale) + tag, _Button.success, row=row
        ),
        button(game_id, "refuse", arg, t("spaye.btn.refuse", locale), _Button.danger, row=row),
    ]


def request_view(game_id: int, eid: int, ask: int, locale: str) -> GameView:
    return game_view(*request_items(game_id, eid, ask, locale))


def agree_view(game_id: int, number: int, locale: str) -> GameView:
    return game_view(
        button(game_id, "agree", number, t("spaye.btn.agree", locale), _Button.success)
    )


def bonus_menu(
    game_id: int, eid: int, titles: list[str], partners: Mapping[str, str], locale: str
) -> GameView:
    """The holder's own (ephemeral) menu of the bonuses that apply to exercise ``eid``; the
    Grand Späyin picks among ``partners`` (``{id: name}``: only the späyins of the month)."""
    items: list[discord.ui.Item[Any]] = []
    if "mastaye" in titles:
        items.append(button(game_id, "tyrant", eid, t("spaye.btn.tyrant", locale), _Button.primary))
    if "tikao" in titles:
        items.append(button(game_id, "double", eid, t("spaye.btn.double", locale), _Button.primary))
    if "grand_spayin" in titles and partners:
        options = [
            discord.SelectOption(label=clip(name, 100) or pid, value=pid, description=pid)
            for pid, name in list(partners.items())[:25]
        ]
        items.append(
            GameSelect(
                KIND, game_id, "share", options, str(eid), placeholder=t("spaye.btn.share", locale)
            )
        )
    return game_view(*items)


def parse_pair(arg: str | None) -> tuple[int, int] | None:
    """``"5-2"`` -> ``(5, 2)``; anything else ``None``."""
    match = re.fullmatch(r"([0-9]+)-([0-9]+)", arg or "")
    return None if match is None else (int(match[1]), int(match[2]))


def parse_int(arg: str | None) -> int | None:
    """``"12"`` -> ``12``; anything else (``"²"``, ``"-1"``, ``None``) ``None``."""
    return int(arg) if arg is not None and re.fullmatch(r"[0-9]+", arg) else None


# -- the committee modal ---------------------------------------------------------------------


def modal_id(game_id: int, eid: int) -> str:
    return f"{MODAL_PREFIX}{game_id}:ask:{eid}"


def parse_modal_id(custom_id: str) -> tuple[int, int] | None:
    match = re.fullmatch(r"gnm:spaye:(\d+):ask:(\d+)", custom_id)
    return None if match is None else (int(match[1]), int(match[2]))


class AskModal(discord.ui.Modal):
    """Fewer reps and/or another exercise. Its submission is handled by the cog's
    ``on_interaction`` listener through the custom id, so it survives a restart too."""

    def __init__(self, game_id: int, ex: Mapping[str, Any], locale: str) -> None:
        super().__init__(
            title=clip(t("spaye.modal.title", locale, id=ex["id"]), 45),
            custom_id=modal_id(game_id, ex["id"]),
            timeout=900,  # only frees memory: the listener answers a late submission anyway
        )
        self.add_item(
            discord.ui.TextInput(
                label=clip(t("spaye.modal.reps", locale, max=ex["reps"]), 45),
                custom_id=REPS_FIELD,
                default=str(ex["reps"]),
                required=False,
                max_length=4,
            )
        )
        self.add_item(
            discord.ui.TextInput(
                label=clip(t("spaye.modal.exercise", locale), 45),
                custom_id=EXERCISE_FIELD,
                default=clip(plain(str(ex["exercise"])), 100),
                required=False,
                max_length=100,
            )
        )

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Answered by the cog's listener (see the class docstring)."""


def modal_values(data: Mapping[str, Any]) -> dict[str, str]:
    """``{field custom id: text}`` from a modal submission's raw data."""
    found: dict[str, str] = {}

    def walk(components: Any) -> None:
        for comp in components or []:
            if "custom_id" in comp and "value" in comp:
                found[str(comp["custom_id"])] = str(comp["value"])
            walk(comp.get("components"))
            if isinstance(comp.get("component"), dict):
                walk([comp["component"]])

    walk(data.get("components"))
    return found
