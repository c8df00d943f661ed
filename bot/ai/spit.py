"""The Spit computer player, from the player's view alone.

What the view shows: this player's and the opponent's face-up stock tops with the number
of face-down cards under each, the spit piles' tops and sizes, the spit cards and cards
left per player, the phase and the options. Everything else (face-down stock cards, spit
cards, the cards under the spit tops) is *unseen*: the deck minus the face-up cards.

Spit is a race, and the bot's cog already gives a computer a human-like reaction time;
this module only chooses the move. Every answer is one of the view's ``legal_actions``.

The play phase (``scored_moves``): each play and fill is scored by a small look-ahead over
this player's own known cards: the card played (one card nearer the end), the face-down
card it uncovers (worth more when an unseen card is likely to fit the spit tops after it),
the opponent's plays the new spit tops leave them (fewer is better; none at all is much
better: they cannot act, and in an even race this player then plays alone), this
player's own plays left, and the best chain of own plays that follows (after playing X,
can I play on the new top?), each later play of the chain discounted since the opponent
may cover the pile meanwhile. A fill (which only ever uncovers a card) is a move nobody
can take away: it waits for the plays it would not improve, and comes from the deepest
pile. The weights were set on ``bench/spit_ai.py``-style even races against
``auto_action`` (cards ahead at the first new layout).

Spit phase: a lone spitter choosing a pile spits onto the larger one when it is the nearer
to emptying its stock (the likelier to get the small pile at the slap or to choose it with
``no_slap``), else onto the smaller (the two piles stay even). Slap and take: the smaller
pile (pile 0 on a tie).

Levels differ in skill, not only in speed (the cog gives every level a human-like reaction
time; the bench races them at the same speed). ``hard`` looks ``DEPTH`` own plays ahead
within a work budget counted in look-ahead positions (no clock), weighs what its move
leaves the opponent, and always slaps (or spits onto) the pile it planned. ``normal`` and
``easy`` look less far and, like a human who acts before they have seen the whole board,
now and then play the first move they see (``MISS``: the first play, pile by pile) and
slap either pile without comparing the sizes (``SLAP_MISS``): easy often (60% and 40% of
the time), normal sometimes (20%, 15%). Easy still beats random play clearly. The same
view and seed give the same action. Sampling the
face-down cards and racing the candidate moves out with ``auto_action`` (as the Speahx
player does) was tried: within noise of this rule player at several times the cost.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.ai.base import Action, View, ViewError, legal_in, register
from bot.engine.spit import CARD_SET, FITS, FITS_ALT, KIND

UNKNOWN: Final = "?"
"""The top of a pile whose face-down card a look-ahead play would uncover."""
MISS: Final[dict[str, float]] = {"easy": 0.6, "normal": 0.2, "hard": 0.0}
"""The chance of playing the first legal move (the first play seen, pile by pile, else the
first fill) instead of the planned one, per level."""
SLAP_MISS: Final[dict[str, float]] = {"easy": 0.4, "normal": 0.15, "hard": 0.0}
"""The chance of slapping (taking, or spitting onto) either pile without comparing the
sizes, per level: a human who slaps the pile in front of them."""
SLAP_SALT: Final = 0x5A5A
"""Mixed into the seed for the slap draw, so it is not the same draw as ``MISS``."""
DEPTH: Final[dict[str, int]] = {"easy": 2, "normal": 3, "hard": 5}
"""Own plays looked ahead per level, the first included."""
POSITIONS_PER_MS: Final = 100
"""Look-ahead positions per millisecond of budget; the look-ahead rarely needs a hundred."""
MIN_POSITIONS: Final = 200
"""Even a zero budget looks this far."""
PLAYED: Final = 1.0
"""A card played onto a spit pile."""
UNCOVER: Final = 0.6
"""A face-down card turned up, plus ``UNCOVER_FIT`` times the chance that it fits."""
UNCOVER_FIT: Final = 0.8
OPPONENT_PLAY: Final = 0.45
"""Each of the opponent's cards that fits a spit top after the move."""
OPPONENT_STUCK: Final = 3.0
"""The opponent left without a play (they may still fill)."""
OWN_PLAY: Final = 0.15
"""Each of this player's known cards that fits a spit top after the move."""
FILL_LATER: Final = 0.3
"""A fill waits: nobody can take it away, unlike a play."""
CHAIN: Final = 0.7
"""The discount on each later play of a chain: the opponent may take the pile first."""


@dataclass(frozen=True)
class Board:
    """What the look-ahead needs: the piles as this player sees them."""

    tops: tuple[str | None, ...]
    """This player's stock tops: a card, ``UNKNOWN`` (to be turned up) or None (empty)."""
    downs: tuple[int, ...]
    """Face-down cards under each of this player's tops."""
    spits: tuple[str | None, ...]
    """The spit piles' tops (None for an empty pile)."""
    opponent: tuple[str, ...]
    """The opponent's face-up tops."""


@dataclass(frozen=True)
class Knowledge:
    """One player's view, read."""

    me: str
    other: str
    phase: str
    alternate: bool
    no_slap: bool
    board: Board
    sizes: tuple[int, ...]
    """The spit piles' sizes."""
    stock: int
    other_stock: int
    unseen: tuple[str, ...]
    legal: tuple[dict[str, Any], ...]

    @property
    def fits(self) -> dict[str, frozenset[str]]:
        return FITS_ALT if self.alternate else FITS


def read_view(view: View) -> Knowledge:
    """The knowledge of the player whose view this is."""
    try:
        you = view["you"]
        me = str(you["id"])
        players = [str(p) for p in view["players"]]
        other = next(p for p in players if p != me)
        options = view["options"]
        mine = view["stocks"][me]
        theirs = view["stocks"][other]
        tops = tuple(p["top"] for p in mine)
        downs = tuple(int(p["down"]) for p in mine)
        opponent = tuple(str(p["top"]) for p in theirs if p["top"] is not None)
        spits = tuple(p["top"] for p in view["spit_piles"])
        sizes = tuple(int(p["size"]) for p in view["spit_piles"])
        stock = sum(int(p["down"]) + (p["top"] is not None) for p in mine)
        other_stock = sum(int(p["down"]) + (p["top"] is not None) for p in theirs)
        seen = {c for c in (*tops, *opponent, *spits) if c is not None}
        if not seen <= CARD_SET:
            raise ViewError(f"unknown cards in the view: {sorted(seen - CARD_SET)}")
        know = Knowledge(
            me=me,
            other=other,
            phase=str(view["phase"]),
            alternate=bool(options["alternate_colors"]),
            no_slap=bool(options["no_slap"]),
            board=Board(tops, downs, spits, opponent),
            sizes=sizes,
            stock=stock,
            other_stock=other_stock,
            unseen=tuple(c for c in sorted(CARD_SET) if c not in seen),
            legal=tuple(you["legal_actions"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError, StopIteration) as err:
        raise ViewError(f"not a Spit player's view: {err!r}") from err
    return know


# ------------------------------------------------------------------ the look-ahead


def _fit_count(
    cards: Sequence[str | None], spits: Sequence[str | None], fits: dict[str, frozenset[str]]
) -> int:
    """How many of ``cards`` fit at least one spit top."""
    tops = [s for s in spits if s is not None]
    return sum(1 for c in cards if c is not None and c != UNKNOWN and not fits[c].isdisjoint(tops))


def _fit_chance(know: Knowledge, spits: Sequence[str | None]) -> float:
    """The chance that an unseen card fits one of ``spits``."""
    unseen = know.unseen
    if not unseen:
        return 0.0
    tops = [s for s in spits if s is not None]
    fits = know.fits
    return sum(1 for c in unseen if not fits[c].isdisjoint(tops)) / len(unseen)


def _after_play(board: Board, pile: int, spit: int) -> tuple[Board, bool]:
    """The board after this player plays the top of ``pile`` onto ``spit``; and whether a
    face-down card is uncovered."""
    card = board.tops[pile]
    tops = list(board.tops)
    downs = list(board.downs)
    uncovered = downs[pile] > 0
    if uncovered:
        tops[pile] = UNKNOWN
        downs[pile] -= 1
    else:
        tops[pile] = None
    spits = list(board.spits)
    spits[spit] = card
    return Board(tuple(tops), tuple(downs), tuple(spits), board.opponent), uncovered


def _plays(board: Board, fits: dict[str, frozenset[str]]) -> list[tuple[int, int]]:
    """This player's known plays on ``board``: (pile, spit)."""
    out: list[tuple[int, int]] = []
    for i, card in enumerate(board.tops):
        if card is None or card == UNKNOWN:
            continue
        onto = fits[card]
        for j, top in enumerate(board.spits):
            if top is not None and top in onto:
                out.append((i, j))
    return out


class _Search:
    """A depth-first look-ahead over this player's own plays, within a count of positions."""

    def __init__(self, know: Knowledge, positions: int) -> None:
        self.know = know
        self.fits = know.fits
        self.left = positions

    def play_gain(self, board: Board, uncovered: bool) -> float:
        gain = PLAYED
        if uncovered:
            gain += UNCOVER + UNCOVER_FIT * _fit_chance(self.know, board.spits)
        return gain

    def position(self, board: Board) -> float:
        """The board as the opponent meets it: their plays, and this player's."""
        theirs = _fit_count(board.opponent, board.spits, self.fits)
        mine = _fit_count(board.tops, board.spits, self.fits)
        return -OPPONENT_PLAY * theirs + OPPONENT_STUCK * (theirs == 0) + OWN_PLAY * mine

    def chain(self, board: Board, depth: int) -> float:
        """The best discounted gain of the own plays that may follow on ``board``."""
        if depth <= 0 or self.left <= 0:
            return 0.0
        best = 0.0
        for pile, spit in _plays(board, self.fits):
            self.left -= 1
            after, uncovered = _after_play(board, pile, spit)
            value = self.play_gain(after, uncovered) + CHAIN * self.chain(after, depth - 1)
            best = max(best, value)
        return CHAIN * best

    def score(self, action: dict[str, Any], depth: int) -> float:
        board = self.know.board
        if action["type"] == "play":
            after, uncovered = _after_play(board, int(action["pile"]), int(action["spit"]))
            gain = self.play_gain(after, uncovered)
        else:
            # A fill uncovers a card, and nobody can take it away: it waits for the plays
            # (no chain counted: the plays it would be followed by are there already).
            pile = int(action["pile"])
            gain = UNCOVER + UNCOVER_FIT * _fit_chance(self.know, board.spits) - FILL_LATER
            return gain + 0.01 * board.downs[pile] + self.position(board)
        return gain + self.position(after) + self.chain(after, depth - 1)


def scored_moves(know: Knowledge, depth: int, positions: int) -> list[tuple[float, Action]]:
    """Every play and fill with its score, best first (the legal order on a tie)."""
    search = _Search(know, positions)
    moves = [a for a in know.legal if a["type"] in ("play", "fill")]
    scored = [(search.score(a, depth), -i, dict(a)) for i, a in enumerate(moves)]
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [(s, a) for s, _, a in scored]


def rule_action(know: Knowledge, depth: int, positions: int) -> Action:
    """The best move of the play phase, or the spit, slap or take (see the docstring)."""
    legal = know.legal
    kind = legal[0]["type"]
    if kind in ("play", "fill"):
        return scored_moves(know, depth, positions)[0][1]
    sizes = know.sizes
    if kind == "spit":
        if len(legal) == 1:
            return dict(legal[0])
        larger = 1 if sizes[1] > sizes[0] else 0
        ahead = know.stock < know.other_stock
        return {"type": "spit", "pile": larger if ahead else 1 - larger}
    return {"type": kind, "pile": 1 if sizes[1] < sizes[0] else 0}


@register(KIND)
def decide_spit(view: View, level: str, seed: int, budget_ms: int) -> Action:
    """The Spit AI (``bot.ai.decide`` calls it with a checked level)."""
    legal = legal_in(view)
    if len(legal) == 1:
        return dict(legal[0])
    know = read_view(view)
    if legal[0]["type"] in ("play", "fill") and random.Random(seed).random() < MISS[level]:
        return dict(legal[0])  # a human who acts before they have seen the whole board
    if legal[0]["type"] in ("slap", "take", "spit"):
        rnd = random.Random(seed ^ SLAP_SALT)
        if rnd.random() < SLAP_MISS[level]:
            return dict(rnd.choice(legal))  # either pile, sizes not compared
    positions = max(MIN_POSITIONS, budget_ms * POSITIONS_PER_MS)
    return rule_action(know, DEPTH[level], positions)
