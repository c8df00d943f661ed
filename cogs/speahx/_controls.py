"""A Speahx hand's controls: choose the cards, then play, with one control per distinct move.

The engine's ``legal_actions`` lists plays per rank (each legal single card, one play per
count, all the cards with each suit on top); some of them end the same way. Two plays are
*the same move* when they lay the same cards (as a multiset) and their order cannot change
what follows: the top card sets the suit to follow, except when the play burns the pile (a
10, four of a kind on top), leaves the game (a joker, the Terminator) or is of 2s (a suit is
named after them). Every distinct move gets one control, mapped to one legal action of the
engine (the action format is the engine's, unchanged); a move whose cards come in several
orders that end differently says which card ends on top.

The layout, fewest clicks first (one row of five buttons or one select per row, five rows):

- the last row always holds **Draw a chance card** and **Collect the pile** as buttons (and
  the page buttons of a huge hand); table cards get a row of their own;
- every play as a button (one click), a rank to a row when that fits;
- else the ranks with one play as buttons and the others as selects, one per rank (or a few
  ranks together), named in words ("Play eights: 3 in hand");
- else every play in selects of whole ranks, then selects of 25 moves, paged.

Custom ids are the kit's (:mod:`bot.seated.controls`): ``do:<stamp>.<index>`` for a button,
``do:<stamp>.<page>.<k>`` for a select whose value is the index, ``page:<stamp>.<page>``; a
click on controls of a decision that is gone is answered with the hand as it is now.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import discord

from bot.engine.cards import JOKER
from bot.engine.speahx import JACK, RANK, SUIT, SUIT_INDEX, TEN, TERMINATOR, TWO, top_run
from bot.i18n import Lang, t
from bot.seated.controls import LABEL_MAX, SELECT_MAX, stamp
from bot.text import clip
from bot.ui import Component, PayloadView, button_payload, option_payload, select_payload

ROWS: Final = 5
ROW_BUTTONS: Final = 5
OPTION_MAX: Final = 100
PLACEHOLDER_MAX: Final = 150
EXTRAS: Final = ("chance", "collect")
"""Always buttons, on the last row."""
Key = tuple[Any, ...]


@dataclass(frozen=True)
class Move:
    """One distinct move: the legal action a control sends (``index`` in ``legal_actions``)."""

    index: int
    action: Mapping[str, Any]
    key: Key
    rank: str | None
    """The rank a play lays (``None`` for other moves)."""
    order_matters: bool = False
    """Another move lays the same cards in an order that ends differently."""
    stays: tuple[str, ...] | None = None
    """The cards that stay on the pile after a partial burn (top last), else ``None``."""
    burns: bool = False
    """It completes four of a kind on top of the pile: the whole pile burns."""


def _same_rank_run(cards: Sequence[str], pile: Sequence[str]) -> int:
    rank = RANK[cards[0]]
    below = top_run(pile) if pile and RANK[pile[-1]] == rank else 0
    return below + len(cards)


def _leaves(cards: Sequence[str], jokers: bool) -> bool:
    """Jokers, or the Terminator: the cards leave the game and the pile goes to someone."""
    if RANK[cards[0]] == JOKER:
        return True
    return not jokers and RANK[cards[0]] == JACK and sorted(cards) == sorted(TERMINATOR)


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
    """Equal keys: equivalent moves (same cards, same outcome)."""
    kind = str(action.get("type"))
    if kind == "play":
        cards = [str(c) for c in action["cards"]]
        stays, top = what_stays(cards, pile, jokers)
        return (kind, tuple(sorted(cards)), None if stays is None else tuple(sorted(stays)), top)
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
    firsts = sorted(chosen.values())
    tops: Counter[tuple[Any, ...]] = Counter(
        move_key(legal[i], pile, jokers)[1] for i in firsts if legal[i].get("type") == "play"
    )
    moves = []
    for index in firsts:
        action = legal[index]
        key = move_key(action, pile, jokers)
        rank = None
        burns = False
        stays = None
        if action.get("type") == "play":
            cards = list(action["cards"])
            rank = RANK[cards[0]]
            stays = what_stays(cards, pile, jokers)[0]
            burns = not _leaves(cards, jokers) and rank != TEN and _same_rank_run(cards, pile) == 4
        moves.append(
            Move(
                index,
                action,
                key,
                rank,
                order_matters=rank is not None and tops[key[1]] > 1,
                burns=burns,
                stays=stays,
            )
        )
    return moves


def move_for(view: Mapping[str, Any], action: Mapping[str, Any]) -> Move | None:
    """The control's move that makes ``action`` (``None`` when ``action`` is not legal)."""
    pile = list(view.get("pile") or [])
    legal = list(view["you"]["legal_actions"])
    if dict(action) not in [dict(a) for a in legal]:
        return None
    key = move_key(action, pile, bool(view.get("jokers")))
    return next((m for m in distinct_moves(view) if m.key == key), None)


# -- how a move reads ---------------------------------------------------------------------


@dataclass(frozen=True)
class Look:
    text: str
    emoji: discord.PartialEmoji | str | None = None
    style: discord.ButtonStyle = discord.ButtonStyle.secondary
    description: str | None = None


Labeller = Callable[[Move, Mapping[str, Any], Lang], Look]


def rank_words(ranks: Sequence[str], locale: Lang) -> str:
    """``["7", "8"]`` -> ``"sevens, eights"`` in the reader's language."""
    return ", ".join(t(f"speahx.rank.{r}", locale) for r in ranks)


def placeholder(moves: Sequence[Move], hand: Sequence[str], locale: Lang) -> str:
    ranks = list(dict.fromkeys(m.rank for m in moves if m.rank is not None))
    if len(ranks) == 1:
        held = sum(RANK[c] == ranks[0] for c in hand)
        text = t("speahx.select.rank", locale, rank=rank_words(ranks, locale), count=held)
    else:
        text = t("speahx.select.ranks", locale, ranks=rank_words(ranks, locale))
    return clip(text, PLACEHOLDER_MAX)


# -- the layout ---------------------------------------------------------------------------


def _groups(moves: Sequence[Move]) -> list[list[Move]]:
    """Plays by rank, in the engine's order (a hand's ranks lie together)."""
    groups: list[list[Move]] = []
    for move in moves:
        if groups and groups[-1][0].rank == move.rank:
            groups[-1].append(move)
        else:
            groups.append([move])
    return groups


def _pack(groups: Sequence[list[Move]], bins: int) -> list[list[Move]] | None:
    """Whole groups into at most ``bins`` lists of at most 25 (one per group when they fit)."""
    if any(len(g) > SELECT_MAX for g in groups):
        return None
    if len(groups) <= bins:
        return [list(g) for g in groups]
    packed: list[list[Move]] = []
    for group in groups:
        if packed and len(packed[-1]) + len(group) <= SELECT_MAX:
            packed[-1].extend(group)
        else:
            packed.append(list(group))
    return packed if len(packed) <= bins else None


@dataclass(frozen=True)
class Layout:
    """Rows of plays: a list of moves is a row of buttons (``buttons``) or one select."""

    rows: list[tuple[bool, list[Move]]]
    pages: int = 1
    page: int = 0


def plan(plays: Sequence[Move], room: int, *, page: int = 0) -> Layout:
    """The rows for ``plays`` in ``room`` rows, fewest clicks first (module docstring)."""
    if not plays:
        return Layout([])
    groups = _groups(plays)
    if len(plays) <= room * ROW_BUTTONS:
        by_rank = [g[i : i + ROW_BUTTONS] for g in groups for i in range(0, len(g), ROW_BUTTONS)]
        if len(by_rank) <= room:
            return Layout([(True, row) for row in by_rank])
        flat = list(plays)
        return Layout([(True, flat[i : i + ROW_BUTTONS]) for i in range(0, len(flat), ROW_BUTTONS)])
    singles = [g[0] for g in groups if len(g) == 1]
    several = [g for g in groups if len(g) > 1]
    button_rows = -(-len(singles) // ROW_BUTTONS)
    if singles and button_rows < room:
        packed = _pack(several, room - button_rows)
        if packed is not None:
            rows: list[tuple[bool, list[Move]]] = [
                (True, singles[i : i + ROW_BUTTONS]) for i in range(0, len(singles), ROW_BUTTONS)
            ]
            return Layout(rows + [(False, p) for p in packed])
    packed = _pack(groups, room)
    if packed is not None:
        return Layout([(False, p) for p in packed])
    chunks = [list(plays[i : i + SELECT_MAX]) for i in range(0, len(plays), SELECT_MAX)]
    pages = -(-len(chunks) // room)
    page = max(0, min(page, pages - 1))
    return Layout([(False, c) for c in chunks[page * room : (page + 1) * room]], pages, page)


def hand_controls(
    kind: str,
    game_id: int,
    view: Mapping[str, Any],
    label: Labeller,
    locale: Lang,
    *,
    page: int = 0,
) -> PayloadView | None:
    """The controls of ``view(player)`` (``None`` when the player has nothing to do)."""
    legal = list(view["you"]["legal_actions"])
    if not legal:
        return None
    mark = stamp(legal)
    moves = distinct_moves(view)
    plays = [m for m in moves if m.rank is not None]
    extras = [m for m in moves if m.rank is None and m.action.get("type") in EXTRAS]
    others = [m for m in moves if m.rank is None and m.action.get("type") not in EXTRAS]

    def button(move: Move) -> Component:
        look = label(move, view, locale)
        return button_payload(
            kind,
            game_id,
            "do",
            f"{mark}.{move.index}",
            label=clip(look.text, LABEL_MAX),
            emoji=look.emoji,
            style=look.style,
        )

    other_rows = [others[i : i + ROW_BUTTONS] for i in range(0, len(others), ROW_BUTTONS)]
    room = ROWS - len(other_rows) - 1
    layout = plan(plays, room, page=page)
    rows: list[list[Component]] = []
    hand = list(view["you"].get("hand") or [])
    for k, (buttons, row) in enumerate(layout.rows):
        if buttons:
            rows.append([button(m) for m in row])
            continue
        options = []
        for move in row:
            look = label(move, view, locale)
            options.append(
                option_payload(
                    clip(look.text, OPTION_MAX),
                    str(move.index),
                    emoji=look.emoji,
                    description=look.description,
                )
            )
        rows.append(
            [
                select_payload(
                    kind,
                    game_id,
                    "do",
                    options,
                    f"{mark}.{layout.page}.{k}",
                    placeholder=placeholder(row, hand, locale),
                )
            ]
        )
    rows.extend([button(m) for m in row] for row in other_rows)
    last = [button(m) for m in extras]
    if layout.pages > 1:
        page = layout.page
        last += [
            button_payload(
                kind,
                game_id,
                "page",
                f"{mark}.{target}",
                label=t(key, locale, page=target + 1, pages=layout.pages),
                disabled=not 0 <= target < layout.pages,
            )
            for target, key in ((page - 1, "seated.page_prev"), (page + 1, "seated.page_next"))
        ]
    rows.append(last)
    return PayloadView(rows)
