"""A Speahx hand's controls: choose the cards, then the top card only when it matters.

A move is chosen in at most two clicks, with at most eight controls shown at once:

1. **the cards**, by rank and count ("3× 7"): one button per choice; a choice that can end
   only one way plays at once;
2. **the top card**, only when the choice can end in several ways (which card the next
   player must follow, or which cards stay after a partial burn): a second screen with one
   button per way and a button back.

Two plays are *the same move* when they lay as many cards of the same rank and leave the
same pile to follow: the same suit on top (none after 10s, four of a kind, jokers, the
Terminator or 2s, after which a suit is named) and the same cards staying after a partial
burn of more than four equal cards. Of the engine's ``legal_actions`` for one move, one is
kept (the top suit the player keeps most of in hand, as the turn timer plays); the action
format is the engine's, unchanged.

When the choices do not fit in eight controls (a big hand), a rank gets one button whose
second screen lists that rank's moves; past that, whole ranks share selects (open, pick: two
clicks too); a hand of more than a hundred moves (two decks in one hand) pages its selects.
Draw a chance card and Collect the pile are always buttons on the first screen; a
follow-up decision (a suit, who takes the pile, a table card) is one button each, or one
select past eight.

Custom ids are the kit's (:mod:`bot.seated.controls`), stamped with the decision they were
made for: ``do:<stamp>.<index>`` for a button, ``do:<stamp>.<screen>.<k>`` for a select
whose value is the index, and ``page:<stamp>.<screen>`` to show another screen of the same
decision (the second steps are screens ``1..n`` in the order of their buttons; ``0`` is the
first). A screen is drawn from the game as stored, so it survives a restart; a click on a
screen of a decision that is gone is answered with the hand as it is now, nothing played.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

import discord

from bot.engine.cards import JOKER
from bot.engine.speahx import RANK, SUIT, SUIT_INDEX, TEN, TWO, is_terminator, top_run
from bot.i18n import Lang, t
from bot.seated.controls import LABEL_MAX, SELECT_MAX, stamp
from bot.text import clip
from bot.ui import Component, PayloadView, button_payload, option_payload, select_payload

CONTROLS_MAX: Final = 8
"""Controls shown at once (buttons and selects, every screen)."""
ROW_BUTTONS: Final = 5
ROWS: Final = 5
STEP_MAX: Final = CONTROLS_MAX - 1
"""Moves on a second screen: its button back takes the eighth place."""
SELECTS_MAX: Final = ROWS - 1
"""Selects on one screen: the last row keeps its buttons."""
OPTION_MAX: Final = 100
PLACEHOLDER_MAX: Final = 150
EXTRAS: Final = ("chance", "collect")
"""Always buttons, on the last row of the first screen."""
Key = tuple[Any, ...]


@dataclass(frozen=True)
class Move:
    """One distinct move: the legal action a control sends (``index`` in ``legal_actions``)."""

    index: int
    action: Mapping[str, Any]
    key: Key
    rank: str | None
    """The rank a play lays (``None`` for other moves)."""
    count: int = 0
    """The cards a play lays."""
    top: str | None = None
    """The card on top that the next player must follow (``None`` when none is left to
    follow: a burn, a joker, the Terminator, or a 2, after which a suit is named)."""
    stays: tuple[str, ...] | None = None
    """The cards that stay on the pile after a partial burn (top last), else ``None``."""
    burns: bool = False
    """It burns the whole pile (a 10, four of a kind on top)."""
    leaves: bool = False
    """A joker or the Terminator: the cards leave the game, the pile goes to someone."""
    terminator: bool = False
    """It is the Terminator (the engine's own verdict)."""

    @property
    def choice(self) -> tuple[str | None, int]:
        """What the first step chooses: the rank and the count."""
        return (self.rank, self.count)


@dataclass(frozen=True)
class Choice:
    """The cards a first-step control chooses (a rank, a count) and the moves they make."""

    rank: str
    count: int
    moves: tuple[Move, ...]


def _same_rank_run(cards: Sequence[str], pile: Sequence[str]) -> int:
    rank = RANK[cards[0]]
    below = top_run(pile) if pile and RANK[pile[-1]] == rank else 0
    return below + len(cards)


def _leaves(cards: Sequence[str], jokers: bool) -> bool:
    """Jokers, or the Terminator: the cards leave the game and the pile goes to someone."""
    return RANK[cards[0]] == JOKER or is_terminator(cards, jokers)


def what_stays(
    cards: Sequence[str], pile: Sequence[str], jokers: bool
) -> tuple[tuple[str, ...] | None, str | None]:
    """What the order of ``cards`` decides: the cards of the pile that stay after a partial
    burn of more than four equal cards (``None``: no such burn), and the card on top when
    it sets the suit to follow (``None`` for 10s and a four of a kind, which burn the pile,
    2s, after which a suit is named, jokers and the Terminator, which leave the game)."""
    if RANK[cards[0]] == TEN or _leaves(cards, jokers):
        return None, None
    run = _same_rank_run(cards, pile)
    if run == 4:
        return None, None
    top = None if RANK[cards[0]] == TWO else cards[-1]
    if run < 4:
        return None, top
    return tuple([*pile, *cards][-(run - 4) :]), top


def move_key(action: Mapping[str, Any], pile: Sequence[str], jokers: bool) -> Key:
    """Equal keys: the same move (as many cards of one rank, the same pile left to follow)."""
    kind = str(action.get("type"))
    if kind == "play":
        cards = [str(c) for c in action["cards"]]
        stays, top = what_stays(cards, pile, jokers)
        return (
            kind,
            RANK[cards[0]],
            len(cards),
            None if top is None else SUIT[top],
            None if stays is None else tuple(sorted(stays)),
        )
    if kind == "collect":
        return (kind,)
    return (kind, *sorted((k, str(v)) for k, v in action.items() if k not in ("type", "cards")))


def distinct_moves(view: Mapping[str, Any]) -> list[Move]:
    """The player's legal actions, one per distinct move, in the engine's order.

    Of plays that end the same way, the one kept leaves on top the suit the player keeps
    most of in hand (ties: S H D C), as the turn timer would play them."""
    legal: list[Mapping[str, Any]] = list(view["you"]["legal_actions"])
    pile: list[str] = list(view.get("pile") or [])
    jokers = bool(view.get("jokers"))
    held = Counter(SUIT[c] for c in view["you"].get("hand") or [])

    def preference(action: Mapping[str, Any]) -> tuple[int, int]:
        cards = action.get("cards") or []
        if action.get("type") != "play" or not cards:
            return (0, 0)
        top = SUIT[cards[-1]]
        left = held[top] - sum(SUIT[c] == top for c in cards)
        return (-left, SUIT_INDEX.get(top, 0))

    chosen: dict[Key, int] = {}
    for index, action in enumerate(legal):
        key = move_key(action, pile, jokers)
        best = chosen.get(key)
        if best is None or preference(action) < preference(legal[best]):
            chosen[key] = index
    moves = []
    for index in sorted(chosen.values()):
        action = legal[index]
        key = move_key(action, pile, jokers)
        if action.get("type") != "play":
            moves.append(Move(index, action, key, None))
            continue
        cards = [str(c) for c in action["cards"]]
        rank = RANK[cards[0]]
        leaves = _leaves(cards, jokers)
        stays, top = what_stays(cards, pile, jokers)
        burns = not leaves and (rank == TEN or _same_rank_run(cards, pile) == 4)
        moves.append(
            Move(
                index,
                action,
                key,
                rank,
                len(cards),
                top=top,
                stays=stays,
                burns=burns,
                leaves=leaves,
                terminator=is_terminator(cards, jokers),
            )
        )
    return moves


def choices(moves: Sequence[Move]) -> list[Choice]:
    """Plays by rank and count, in the engine's order (a hand's ranks lie together)."""
    found: dict[tuple[str | None, int], list[Move]] = {}
    for move in moves:
        if move.rank is not None:
            found.setdefault(move.choice, []).append(move)
    return [Choice(str(rank), count, tuple(ms)) for (rank, count), ms in found.items()]


def move_for(view: Mapping[str, Any], action: Mapping[str, Any]) -> Move | None:
    """The control's move that makes ``action`` (``None`` when ``action`` is not legal)."""
    pile = list(view.get("pile") or [])
    legal = list(view["you"]["legal_actions"])
    if dict(action) not in [dict(a) for a in legal]:
        return None
    key = move_key(action, pile, bool(view.get("jokers")))
    return next((m for m in distinct_moves(view) if m.key == key), None)


# -- how a control reads ------------------------------------------------------------------


@dataclass(frozen=True)
class Look:
    text: str
    emoji: discord.PartialEmoji | str | None = None
    style: discord.ButtonStyle = discord.ButtonStyle.secondary
    description: str | None = None


class Labels(Protocol):
    """How the controls read (:class:`cogs.speahx._render.SpeahxRenderer` answers it)."""

    def look(
        self, move: Move, view: Mapping[str, Any], locale: Lang, *, short: bool = False
    ) -> Look:
        """A move on a button or in a select: its cards and what follows, in words
        (``short``: on the second screen of its cards, the way it ends alone)."""
        ...

    def choice_look(self, choice: Choice, view: Mapping[str, Any], locale: Lang) -> Look:
        """A choice of cards that ends in several ways: the button that opens its screen."""
        ...

    def rank_look(self, moves: Sequence[Move], view: Mapping[str, Any], locale: Lang) -> Look:
        """A rank whose moves share one button (a big hand): the button that opens them."""
        ...


def rank_words(ranks: Sequence[str], locale: Lang) -> str:
    """``["7", "8"]`` -> ``"sevens, eights"`` in the reader's language."""
    return ", ".join(t(f"speahx.rank.{r}", locale) for r in ranks)


def placeholder(moves: Sequence[Move], hand: Sequence[str], locale: Lang) -> str:
    ranks = list(dict.fromkeys(m.rank for m in moves if m.rank is not None))
    if not ranks:
        targets = all(m.action.get("type") == "target" for m in moves)
        key = "speahx.select.target" if targets else "speahx.select.other"
        return clip(t(key, locale), PLACEHOLDER_MAX)
    if len(ranks) == 1:
        held = sum(RANK[c] == ranks[0] for c in hand)
        text = t("speahx.select.rank", locale, rank=rank_words(ranks, locale), count=held)
    else:
        text = t("speahx.select.ranks", locale, ranks=rank_words(ranks, locale))
    return clip(text, PLACEHOLDER_MAX)


# -- the plan: which screen shows what ----------------------------------------------------

ItemKind = Literal["move", "step", "select"]


@dataclass(frozen=True)
class Item:
    """A control of the first screen: a move's button, the button of a second screen
    (``screen``: its number) or a select of moves."""

    kind: ItemKind
    moves: tuple[Move, ...]
    screen: int = 0
    choice: Choice | None = None
    """The choice a second screen finishes (``None``: a whole rank's moves)."""


@dataclass
class Plan:
    """The first screen (``items`` then ``extras`` on the last row) and the second screens;
    a hand of more moves than four selects hold: ``pages`` of selects."""

    items: list[Item] = field(default_factory=list)
    extras: list[Move] = field(default_factory=list)
    steps: dict[int, Item] = field(default_factory=dict)
    pages: list[list[Item]] = field(default_factory=list)

    def where(self) -> dict[int, tuple[int, ItemKind]]:
        """Each reachable move (its index) -> the screen it is on and its control's kind."""
        found: dict[int, tuple[int, ItemKind]] = {m.index: (0, "move") for m in self.extras}
        screens = [(0, self.items)] + [(p, items) for p, items in enumerate(self.pages) if p]
        for screen, items in screens:
            for item in items:
                if item.kind == "step":
                    for move in item.moves:
                        found[move.index] = (item.screen, "move")
                else:
                    for move in item.moves:
                        found[move.index] = (screen, item.kind)
        return found


def _pack(groups: Sequence[Sequence[Move]]) -> list[list[Move]] | None:
    """Whole groups into lists of at most 25 moves, in order (``None``: a group is longer)."""
    if any(len(g) > SELECT_MAX for g in groups):
        return None
    packed: list[list[Move]] = []
    for group in groups:
        if packed and len(packed[-1]) + len(group) <= SELECT_MAX:
            packed[-1].extend(group)
        else:
            packed.append(list(group))
    return packed


def plan(moves: Sequence[Move]) -> Plan:
    """Where each move goes, fewest clicks first, at most eight controls a screen."""
    result = Plan()
    plays = choices(moves)
    others = [m for m in moves if m.rank is None]
    result.extras = [m for m in others if m.action.get("type") in EXTRAS]
    rest = [m for m in others if m.action.get("type") not in EXTRAS]
    room = CONTROLS_MAX - len(result.extras)
    if rest:  # a follow-up decision, or table cards (with Collect): no plays beside them
        if len(rest) <= room:
            result.items = [Item("move", (m,)) for m in rest]
        else:
            result.items = [Item("select", tuple(p)) for p in _pack([rest]) or []]
    if not plays:
        return result
    ranks: dict[str, list[Choice]] = {}
    for choice in plays:
        ranks.setdefault(choice.rank, []).append(choice)
    # How each rank shows: its choices as buttons, one button for the rank, or in a select.
    how: dict[str, str] = dict.fromkeys(ranks, "choices")
    sizes = {r: sum(len(c.moves) for c in cs) for r, cs in ranks.items()}

    def cost() -> int:
        buttons = sum(len(ranks[r]) if h == "choices" else 1 for r, h in how.items() if h != "in")
        packed = _pack([[m for c in ranks[r] for m in c.moves] for r in ranks if how[r] == "in"])
        return buttons + (len(packed) if packed is not None else 99)

    for rank in sorted(ranks, key=lambda r: -len(ranks[r])):
        if cost() <= room:
            break
        if len(ranks[rank]) > 1 and sizes[rank] <= STEP_MAX:
            how[rank] = "rank"
    for rank in sorted(ranks, key=lambda r: (sizes[r] <= STEP_MAX, -sizes[r])):
        if cost() <= room:
            break
        how[rank] = "in"
    selected = [[m for c in ranks[r] for m in c.moves] for r in ranks if how[r] == "in"]
    packed = _pack(selected) or []
    if cost() > room or len(packed) > SELECTS_MAX:
        everything = [m for c in plays for m in c.moves]
        chunks = [everything[i : i + SELECT_MAX] for i in range(0, len(everything), SELECT_MAX)]
        if len(chunks) <= min(SELECTS_MAX, room):  # ranks split across selects: no page
            result.items = [Item("select", tuple(c)) for c in chunks]
            return result
        per_page = min(SELECTS_MAX, room - 2)
        result.pages = [
            [Item("select", tuple(c)) for c in chunks[i : i + per_page]]
            for i in range(0, len(chunks), per_page)
        ]
        result.items = result.pages[0]
        return result
    items: list[Item] = []
    screen = 0
    for rank, rank_choices in ranks.items():
        if how[rank] == "rank":
            screen += 1
            rank_moves = tuple(m for c in rank_choices for m in c.moves)
            items.append(Item("step", rank_moves, screen))
        elif how[rank] == "choices":
            for choice in rank_choices:
                if len(choice.moves) == 1:
                    items.append(Item("move", choice.moves))
                else:
                    screen += 1
                    items.append(Item("step", choice.moves, screen, choice))
    items.extend(Item("select", tuple(p)) for p in packed)
    result.items = items
    result.steps = {i.screen: i for i in items if i.kind == "step"}
    return result


# -- the controls -------------------------------------------------------------------------


def hand_controls(
    kind: str,
    game_id: int,
    view: Mapping[str, Any],
    labels: Labels,
    locale: Lang,
    *,
    page: int = 0,
) -> PayloadView | None:
    """The controls of ``view(player)`` on screen ``page`` (``None``: nothing to do)."""
    legal = list(view["you"]["legal_actions"])
    if not legal:
        return None
    mark = stamp(legal)
    laid = plan(distinct_moves(view))
    hand = list(view["you"].get("hand") or [])

    def button(move: Move, *, short: bool = False) -> Component:
        look = labels.look(move, view, locale, short=short)
        return button_payload(
            kind,
            game_id,
            "do",
            f"{mark}.{move.index}",
            label=clip(look.text, LABEL_MAX),
            emoji=look.emoji,
            style=look.style,
        )

    def screen_button(target: int, look: Look, *, disabled: bool = False) -> Component:
        return button_payload(
            kind,
            game_id,
            "page",
            f"{mark}.{target}",
            label=clip(look.text, LABEL_MAX),
            emoji=look.emoji,
            style=look.style,
            disabled=disabled,
        )

    def select(moves: Sequence[Move], screen: int, k: int) -> Component:
        options = []
        for move in moves:
            look = labels.look(move, view, locale)
            options.append(
                option_payload(
                    clip(look.text, OPTION_MAX),
                    str(move.index),
                    emoji=look.emoji,
                    description=look.description,
                )
            )
        return select_payload(
            kind,
            game_id,
            "do",
            options,
            f"{mark}.{screen}.{k}",
            placeholder=placeholder(moves, hand, locale),
        )

    step = laid.steps.get(page)
    if step is not None:  # a second screen: the ways the chosen cards can end, and back
        rows = [
            [button(m, short=step.choice is not None) for m in step.moves[i : i + ROW_BUTTONS]]
            for i in range(0, len(step.moves), ROW_BUTTONS)
        ]
        back = Look(t("speahx.step.back", locale), "↩️")
        rows.append([screen_button(0, back)])
        return PayloadView(rows)
    paged = len(laid.pages) > 1
    screen = max(0, min(page, len(laid.pages) - 1)) if paged else 0
    items = laid.pages[screen] if paged else laid.items
    buttons: list[Component] = []
    selects: list[list[Component]] = []
    for item in items:
        if item.kind == "move":
            buttons.append(button(item.moves[0]))
        elif item.kind == "step":
            look = (
                labels.choice_look(item.choice, view, locale)
                if item.choice is not None
                else labels.rank_look(item.moves, view, locale)
            )
            buttons.append(screen_button(item.screen, look))
        else:
            selects.append([select(item.moves, screen, len(selects))])
    last = [button(m) for m in laid.extras]
    if paged:
        for target, key in ((screen - 1, "seated.page_prev"), (screen + 1, "seated.page_next")):
            text = t(key, locale, page=target + 1, pages=len(laid.pages))
            last.append(
                screen_button(target, Look(text), disabled=not 0 <= target < len(laid.pages))
            )
    button_rows = [buttons[i : i + ROW_BUTTONS] for i in range(0, len(buttons), ROW_BUTTONS)]
    if len(button_rows) + len(selects) + bool(last) > ROWS:
        both = buttons + last
        button_rows, last = (
            [both[i : i + ROW_BUTTONS] for i in range(0, len(both), ROW_BUTTONS)],
            [],
        )
    rows = [*button_rows, *selects]
    if last:
        rows.append(last)
    return PayloadView(rows)
