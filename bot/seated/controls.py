"""The controls of a private hand, for any game and any hand size.

A player's controls are built from ``view(p)["you"]["legal_actions"]`` alone:

- a multi-card choice the renderer declares (:class:`MultiPick`, e.g. Papayoo's pass): its
  suggested choice to take in one click, and a button to choose otherwise; choosing shows
  the cards as buttons to tick, a row per suit as below, and a button that makes the
  choice once it has its count (:func:`pick_controls`). What is ticked lives in the custom
  ids alone (``gn:<kind>:<game_id>:sel:<stamp>.<ticked>``, ``...:pick:<stamp>.<ticked>``,
  ``<ticked>`` a bit per card in hand order), so it survives a restart; the select of
  earlier versions (``gns:<kind>:<game_id>:pick:<stamp>`` with the cards as its values) is
  still taken;
- a hand of at most 20 cards where every legal action plays one card, apart from at most five
  *extra* actions (the renderer's ``extra_actions``: by default every action that plays no
  single card, such as Draw or "name a suit"): the hand as buttons, sorted by suit then rank,
  a row per suit where that fits (a long suit takes two rows; when it does not fit, the
  shortest neighbouring suits share rows), each card with its art
  (:func:`bot.emojis.card_emoji`) and its suit's colour, the cards that may not be played now
  grey and disabled; the extra actions are buttons on the last row (the fifth, the cards
  then keeping to four);
- otherwise up to 20 legal actions: one button each;
- more: selects of 25 actions, four to a page, with page buttons (a Speahx hand of 40 cards
  still reaches every legal group).

Custom ids carry a *stamp* of the legal actions they were made for
(``gn:<kind>:<game_id>:do:<stamp>.<index>``): a click on controls of a decision that is gone
changes nothing and is answered with the current hand.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

import discord

from bot.i18n import Lang, t
from bot.text import clip
from bot.ui import Component, PayloadView, button_payload, option_payload, select_payload

BUTTONS_MAX: Final = 20
"""Four rows of five: the fifth row is kept for paging or a game's extra actions."""
EXTRA_MAX: Final = 5
"""Extra actions beside the card buttons: one row."""
SELECT_MAX: Final = 25
SELECTS_PER_PAGE: Final = 4
LABEL_MAX: Final = 80


@dataclass(frozen=True)
class Label:
    """How one control reads: a button's or a select option's text, emoji and style."""

    text: str
    emoji: str | discord.PartialEmoji | None = None
    style: discord.ButtonStyle = discord.ButtonStyle.secondary
    description: str | None = None


@dataclass(frozen=True)
class MultiPick:
    """A choice of ``count`` of ``cards`` at once (Papayoo's pass), made as the action
    ``{"type": action, "cards": [...]}``: ``suggested`` offered to take in one click
    (``accept``), or ``choose`` to tick the cards oneself (the ``accept`` button then makes
    the choice once ``count`` are ticked; until then it reads ``placeholder`` and how many
    are ticked)."""

    action: str
    count: int
    cards: Sequence[str]
    placeholder: str
    suggested: Sequence[str] = ()
    accept: str = "✓"
    choose: str = "…"
    clear: str = "✕"
    """Unticks every card at once (to choose from nothing rather than from the suggestion)."""


class ControlLabels(Protocol):
    """What the controls ask of a game's renderer (:class:`bot.seated.render.SeatedRenderer`
    answers it)."""

    def card_label(self, code: str, view: Mapping[str, Any]) -> Label:
        """A card on a button: its art and rank (or its text when it has no art), its suit's
        style."""
        ...

    def card_option(self, code: str, view: Mapping[str, Any]) -> Label:
        """A card in a select: its art and its full text."""
        ...

    def card_group(self, code: str) -> str:
        """The row a card's button goes in (its suit)."""
        ...

    def hand_order(self, hand: Sequence[str]) -> list[str]: ...

    def action_card(self, action: Mapping[str, Any]) -> str | None: ...

    def extra_actions(self, legal: Sequence[Mapping[str, Any]]) -> list[int]:
        """The legal actions (their indexes) shown as buttons beside the hand's card buttons,
        on their own row."""
        ...

    def action_label(
        self, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> Label: ...

    def multi_pick(self, view: Mapping[str, Any], locale: Lang) -> MultiPick | None: ...


def stamp(legal: Sequence[Mapping[str, Any]]) -> str:
    """A short fingerprint of a decision: its legal actions."""
    text = json.dumps(list(legal), sort_keys=True, separators=(",", ":"))
    return format(zlib.crc32(text.encode()), "x")


def parse(arg: str | None) -> tuple[str, list[int]] | None:
    """``"<stamp>.<a>.<b>"`` -> ``(stamp, [a, b])``; ``None`` when malformed."""
    if not arg:
        return None
    head, *rest = arg.split(".")
    try:
        return head, [int(x) for x in rest]
    except ValueError:
        return None


def _rows(items: Sequence[Component], per_row: int = 5) -> list[list[Component]]:
    return [list(items[i : i + per_row]) for i in range(0, len(items), per_row)]


def group_rows(
    items: Sequence[Component], groups: Sequence[str], per_row: int = 5, max_rows: int = 5
) -> list[list[Component]]:
    """Buttons in rows by group (``groups[k]`` is ``items[k]``'s suit; equal groups are next
    to each other): a row per group, a group longer than a row on several rows. When that
    takes more than ``max_rows`` rows, the two shortest neighbouring rows that fit in one are
    joined, again and again; when none fits, plain rows of ``per_row`` in hand order."""
    runs: list[list[Component]] = []
    last: str | None = None
    for item, group in zip(items, groups, strict=True):
        if not runs or group != last or len(runs[-1]) >= per_row:
            runs.append([])
        runs[-1].append(item)
        last = group
    while len(runs) > max_rows:
        pairs = [
            (len(runs[k]) + len(runs[k + 1]), k)
            for k in range(len(runs) - 1)
            if len(runs[k]) + len(runs[k + 1]) <= per_row
        ]
        if not pairs:
            return _rows(items, per_row)
        _, k = min(pairs)
        runs[k : k + 2] = [runs[k] + runs[k + 1]]
    return runs


def hand_controls(
    kind: str,
    game_id: int,
    view: Mapping[str, Any],
    renderer: ControlLabels,
    locale: Lang,
    *,
    page: int = 0,
    ticked: int | None = None,
) -> PayloadView | None:
    """The controls for ``view(player)``; ``None`` when the player has nothing to do.
    ``ticked``: a multi-card choice being made, the cards ticked so far (:func:`pick_order`'s
    bits); ``None``: its suggestion first."""
    you = view["you"]
    legal: list[Mapping[str, Any]] = list(you["legal_actions"])
    if not legal:
        return None
    mark = stamp(legal)
    multi = renderer.multi_pick(view, locale)
    if multi is not None:
        return pick_controls(kind, game_id, mark, multi, view, renderer, ticked)
    hand = renderer.hand_order(list(you.get("hand") or []))
    extras = sorted(set(renderer.extra_actions(legal)))
    singles = {renderer.action_card(a): i for i, a in enumerate(legal) if i not in set(extras)}
    if (
        hand
        and len(hand) <= BUTTONS_MAX
        and len(set(hand)) == len(hand)
        and None not in singles
        and set(singles) <= set(hand)
        and len(extras) <= EXTRA_MAX
    ):
        buttons = []
        for n, code in enumerate(hand):
            label = renderer.card_label(code, view)
            playable = code in singles
            buttons.append(
                button_payload(
                    kind,
                    game_id,
                    "do",
                    f"{mark}.{singles[code]}" if playable else f"{mark}.x{n}",
                    label=clip(label.text, LABEL_MAX) or None,
                    emoji=label.emoji,
                    style=label.style if playable else discord.ButtonStyle.secondary,
                    disabled=not playable,
                )
            )
        groups = [renderer.card_group(c) for c in hand]
        cards = group_rows(buttons, groups, max_rows=4 if extras else 5)
        if extras:
            cards.append(
                [
                    action_button(
                        kind, game_id, mark, i, renderer.action_label(legal[i], view, locale)
                    )
                    for i in extras
                ]
            )
        return PayloadView(cards)
    labels = [renderer.action_label(a, view, locale) for a in legal]
    if len(legal) <= BUTTONS_MAX:
        return PayloadView(
            _rows([action_button(kind, game_id, mark, i, label) for i, label in enumerate(labels)])
        )
    per_page = SELECT_MAX * SELECTS_PER_PAGE
    pages = (len(legal) + per_page - 1) // per_page
    page = max(0, min(page, pages - 1))
    first = page * per_page
    rows: list[list[Component]] = []
    for k in range(SELECTS_PER_PAGE):
        start = first + k * SELECT_MAX
        chunk = range(start, min(start + SELECT_MAX, len(legal)))
        if not chunk:
            break
        options = [
            option_payload(
                clip(labels[i].text, 100) or str(i + 1),
                str(i),
                emoji=labels[i].emoji,
                description=labels[i].description,
            )
            for i in chunk
        ]
        placeholder = t("seated.choose", locale, first=chunk[0] + 1, last=chunk[-1] + 1)
        rows.append(
            [
                select_payload(
                    kind, game_id, "do", options, f"{mark}.{page}.{k}", placeholder=placeholder
                )
            ]
        )
    if pages > 1:
        rows.append(
            [
                button_payload(
                    kind,
                    game_id,
                    "page",
                    f"{mark}.{target}",
                    label=t(key, locale, page=target + 1, pages=pages),
                    disabled=not 0 <= target < pages,
                )
                for target, key in ((page - 1, "seated.page_prev"), (page + 1, "seated.page_next"))
            ]
        )
    return PayloadView(rows)


def pick_order(multi: MultiPick, renderer: ControlLabels) -> list[str]:
    """The cards of a multi-card choice as they are shown: ``ticked`` has bit ``k`` for the
    ``k``-th of them."""
    return renderer.hand_order(list(multi.cards))


def ticks(order: Sequence[str], cards: Sequence[str]) -> int:
    """The bits of ``cards`` among ``order``."""
    return sum(1 << k for k, code in enumerate(order) if code in set(cards))


def ticked_cards(order: Sequence[str], ticked: int) -> list[str] | None:
    """The cards whose bits ``ticked`` has; ``None`` when it names a card beyond ``order``."""
    if not 0 <= ticked < 1 << len(order):
        return None
    return [code for k, code in enumerate(order) if ticked >> k & 1]


def pick_controls(
    kind: str,
    game_id: int,
    mark: str,
    multi: MultiPick,
    view: Mapping[str, Any],
    renderer: ControlLabels,
    ticked: int | None = None,
) -> PayloadView:
    """A multi-card choice's controls. Its suggestion (``ticked`` ``None``): "accept" and
    "choose" side by side. Choosing: the cards as buttons, a row per suit (four rows at
    most, of five at most), the ticked ones marked ``✓`` in their suit's colour, the others
    grey; each press ticks or unticks its card; below them the button that makes the choice,
    live once exactly ``count`` cards are ticked, and one that unticks them all. More than :data:`BUTTONS_MAX` cards: one
    select of ``count`` values instead."""
    order = pick_order(multi, renderer)
    suggested = [c for c in multi.suggested if c in order]
    if ticked is None and len(set(suggested)) == multi.count:
        mine = ticks(order, suggested)
        return PayloadView(
            [
                [
                    button_payload(
                        kind,
                        game_id,
                        "pick",
                        f"{mark}.{mine}",
                        label=clip(multi.accept, LABEL_MAX),
                        style=discord.ButtonStyle.success,
                    ),
                    button_payload(
                        kind, game_id, "sel", f"{mark}.{mine}", label=clip(multi.choose, LABEL_MAX)
                    ),
                ]
            ]
        )
    if len(order) > BUTTONS_MAX:  # more than four rows of buttons: one select
        options = [
            option_payload(
                clip(label.text, 100), c, emoji=label.emoji, description=label.description
            )
            for c, label in ((c, renderer.card_option(c, view)) for c in order)
        ]
        select = select_payload(
            kind,
            game_id,
            "pick",
            options[:SELECT_MAX],
            mark,
            placeholder=multi.placeholder,
            min_values=multi.count,
            max_values=multi.count,
        )
        return PayloadView([[select]])
    mine = ticked or 0
    buttons = []
    for k, code in enumerate(order):
        label = renderer.card_label(code, view)
        on = bool(mine >> k & 1)
        buttons.append(
            button_payload(
                kind,
                game_id,
                "sel",
                f"{mark}.{mine ^ (1 << k)}",
                label=clip(f"✓ {label.text}" if on else label.text, LABEL_MAX) or None,
                emoji=label.emoji,
                style=label.style if on else discord.ButtonStyle.secondary,
            )
        )
    rows = group_rows(buttons, [renderer.card_group(c) for c in order], max_rows=4)
    count = mine.bit_count()
    ready = count == multi.count
    text = multi.accept if ready else f"{multi.placeholder} ({count}/{multi.count})"
    done = button_payload(
        kind,
        game_id,
        "pick",
        f"{mark}.{mine}",
        label=clip(text, LABEL_MAX),
        style=discord.ButtonStyle.success if ready else discord.ButtonStyle.secondary,
        disabled=not ready,
    )
    clear = button_payload(
        kind,
        game_id,
        "sel",
        f"{mark}.0.0",  # not the id of the card whose tick would leave none
        label=clip(multi.clear, LABEL_MAX),
        disabled=count == 0,
    )
    return PayloadView([*rows, [done, clear]])


def action_button(kind: str, game_id: int, mark: str, index: int, label: Label) -> Component:
    """The button of legal action ``index`` of the decision ``mark`` stamps:
    ``gn:<kind>:<game_id>:do:<mark>.<index>``, the id the kit reads back (a game's own
    ``controls`` may use it as it is)."""
    return button_payload(
        kind,
        game_id,
        "do",
        f"{mark}.{index}",
        label=clip(label.text, LABEL_MAX) or None,
        emoji=label.emoji,
        style=label.style,
    )


def board_button(
    kind: str,
    game_id: int,
    seat: int,
    legal: Sequence[Mapping[str, Any]],
    index: int,
    label: Label,
    *,
    disabled: bool = False,
    mark: str | None = None,
) -> Component:
    """A control of a public board: ``gn:<kind>:<game_id>:do:<stamp>.<seat>.<index>``; only
    the player in ``seat`` may use it, and only for the decision ``legal`` stamps (``mark``:
    that stamp, when the caller already has it)."""
    return button_payload(
        kind,
        game_id,
        "do",
        f"{mark or stamp(legal)}.{seat}.{index}",
        label=clip(label.text, LABEL_MAX) or None,
        emoji=label.emoji,
        style=label.style,
        disabled=disabled,
    )
