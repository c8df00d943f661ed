"""Spit for 2 players, in real time (the rules: docs/rules/spit.md).

Both players act whenever they may: ``to_act()`` lists both whenever both have a move, and
the order of ``apply`` calls is the order of arrival, which decides every race. An action
names the cards it was aimed at, so a click built on an older board is refused
(``IllegalAction``, nothing changes) once the board no longer matches.

Options: ``piles`` (5 or 4, default 5: stock piles of 1..5 or 1..4 cards, a full stock of
15 or 10), ``alternate_colors`` (default False: cards on a spit pile alternate black and
red), ``no_slap`` (default False; David Shapp's variant: nobody slaps, the player who
emptied their stock first takes the spit pile of their choice).

Phases and ``to_act()``: ``"spit"`` (waiting for the spit cards to be turned: the players
with spit cards who have not spat yet), ``"play"`` (the players who can play or fill),
``"slap"`` (a new layout, the spit piles are being taken: both players, or the chooser
with ``no_slap``), ``"over"`` (nobody). The game starts in ``"spit"``: the first spit is
not made at the deal, so both players see their layout before the race starts.

Actions (plain JSON dicts; the dicts ``legal_actions`` returns are fresh)
    ``{"type": "spit"}``  in the spit phase, by a player who has spit cards. When both have
        spit cards, the first one is *ready* (event ``ready``) and both cards turn when the
        second arrives, each onto its own pile (seat 0 onto pile 0, seat 1 onto pile 1).
        A lone spitter turns at once. The first time a lone spitter spits with two piles in
        play they name the pile: ``{"type": "spit", "pile": j}``; that pile is theirs for
        every later block until a new layout (a ``pile`` naming it again is accepted).
    ``{"type": "play", "pile": i, "card": "7H", "spit": j, "onto": "8S"}``  put the face-up
        top ``card`` of your stock pile ``i`` onto spit pile ``j`` whose top is ``onto``.
    ``{"type": "fill", "pile": i, "card": "7H", "to": k}``  move the face-up top ``card`` of
        your pile ``i`` into your empty pile place ``k``; legal only when it uncovers a
        face-down card (a ruling of docs/rules/spit.md).
    ``{"type": "slap", "pile": j}``  in the slap phase (not with ``no_slap``).
    ``{"type": "take", "pile": j}``  in the slap phase with ``no_slap``, by the chooser.
    Pile indexes start at 0. Stock piles keep their place: an emptied pile is an empty place.

``auto_action(player)``: the first move onto a spit pile, else the first fill that
uncovers a card, else the spit (a lone spitter choosing a pile takes the larger one, so
the smaller stays small for the slap), the slap or take of the smaller pile (pile 0 on a
tie). ``IllegalAction`` (``spit.nothing_to_do``) when the player has nothing to do now.

Events (public; never a face-down card)
    ``ready`` {player}: spat first, waiting for the other.
    ``spit`` {cards: [{player, pile, card}]}: spit cards turned onto the spit piles.
    ``play`` {player, pile, card, spit, onto};  ``fill`` {player, pile, card, to};
    ``turned`` {player, pile, card}: a stock card turned up (always at once);
    ``blocked`` {spitters: [ids], lone: id or None, pile: fixed pile or None}: nobody can
        move; the spit phase starts again for ``spitters``; with no spitters, the slap
        phase starts (two piles) or the pile goes at once (one pile, ruling 9);
    ``stock_empty`` {player};  ``slap`` {player, pile};  ``take`` {player, pile};
    ``pile_left`` {player, to, size}: one pile in play, the pile goes to ``to`` (the end
        game, or ruling 9);
    ``layout`` {reason ("stock_empty" | "no_spit_cards" | "pile_left"), taken {id: cards
        taken from the centre}, stocks {id: [pile sizes]}, spit_cards {id: n},
        spit_piles (1 or 2)};
    ``game_over`` {winner, ranking, scores}.

``public_view()``: kind, players, phase, to_act, options {piles, alternate_colors, no_slap},
stocks {id: [{top: card or None, down: face-down count}]}, spit_cards {id: n}, cards_left
{id: stock + spit cards}, spit_piles [{top, size}] (1 or 2 entries), one_pile,
lone_spitter (id or None), lone_pile (index or None), ready [ids], emptied (id that
emptied their stock, during the slap, else None), layouts (new layouts so far),
last_move (the last action's main event; a layout clears it), winner (id or None).
``view(player)`` adds ``you``: {id, hand (face-up stock tops, pile order), legal_actions}.

``result()``: ranking ([[winner], [other]] once over, else by cards left, fewest first),
scores {id: cards left}; the pile left to the loser counts for the loser.

Refusals raise ``IllegalAction`` with key ``spit.<reason>``; ``number`` params count piles
from 1 as players do, ``pile`` and ``spit`` echo what was sent: not_a_player {player},
game_over, bad_action {got}, not_now.spit / not_now.play / not_now.slap (the action does
not fit the phase), bad_pile {pile}, bad_spit {spit}, card_moved {number, card} and
spit_changed {number, onto, top} (the click was built on an older board: the Discord layer
refreshes quietly), no_fit {card, onto}, no_fit_colour {card, onto}, place_taken {number},
uncovers_nothing {card}, no_spit_cards, already_ready, choose_pile, fixed_pile {number},
own_pile {number}, no_slapping, slap_instead, not_your_choice {player}, nothing_to_do.

Rulings where the rules are silent (also ``help.spit.bot_rulings``)
    1. Ready: the spit is made when both players have sent ``spit``; the first waits.
       A lone spitter (the other has no spit cards) turns at once. A spit names no card,
       so a repeated spit that arrives while the game is blocked again counts as the next
       spit: spitting is the only move then anyway.
    2. Stock piles are laid like a patience: a row of one card on each pile, then a row on
       all but the first, and so on; a full stock is 1..5 (1..4). A short player (fewer
       cards than a full stock) gets as many piles as their cards allow.
    3. Blocked: re-checked after every move. A new layout for "both out of spit cards"
       waits for the block: while anyone can move, play goes on.
    4. The slap race: the first slap settles both piles (the slapper takes the pile they
       slapped, the other the other pile), since a second slap cannot change the outcome.
    5. ``no_slap`` when the layout comes from a block with no spit cards (nobody emptied
       their stock): the player with fewer stock cards chooses; on a tie the first to
       ``take``.
    6. A player laid out with no spit cards (a full stock or fewer cards) is short: the
       other spits alone onto one single pile until the next layout.
    7. The number of spit piles is decided at every layout: one when a player has no spit
       cards, else two. "The rest of the game" means until the next layout.
    8. One-pile end game, the spitter empties their stock first: the other takes the pile
       into their stock, then both lay out anew (the spitter from their spit cards). A
       spitter already out of spit cards who empties their stock first has no card: they
       win, like the short player would.
    9. One pile, blocked, nobody has spit cards: the pile goes to the player with more stock
       cards left (the one further behind; on a tie, the spitter), then both lay out anew.
    10. With two piles, a player who empties their stock with no spit cards has not won yet:
        the slap gives them a pile. Only the one-pile end game leaves a player with no card.
    11. The game cannot loop forever in one layout (every move plays a card, turns one up
        or uses a spit card); across layouts each reshuffle is random, so the game ends
        with probability 1. ``MAX_LAYOUTS`` (500, far beyond any real game) ends a game
        that went on that long: fewest cards left wins, a tie is a draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, NoReturn

from bot.engine.base import (
    Action,
    Event,
    Game,
    IllegalAction,
    check_options,
    check_seating,
    register,
)
from bot.engine.cards import standard_deck, suit_of, value
from bot.engine.rng import Rng

KIND: Final = "spit"
PLAYERS: Final = 2
DEFAULTS: Final[dict[str, Any]] = {"piles": 5, "alternate_colors": False, "no_slap": False}
PILE_COUNTS: Final = (5, 4)
DECK: Final = tuple(standard_deck())
MAX_LAYOUTS: Final = 500
"""A game laid out this many times ends at once (ruling 11); no real game comes close."""

SPIT: Final = "spit"
PLAY: Final = "play"
SLAP: Final = "slap"
OVER: Final = "over"
PHASES: Final = (SPIT, PLAY, SLAP, OVER)

STOCK_EMPTY: Final = "stock_empty"
NO_SPIT_CARDS: Final = "no_spit_cards"
PILE_LEFT: Final = "pile_left"


def _circle(card: str) -> int:
    """Rank on the A..K circle: A=1, 2..10, J=11, Q=12, K=0."""
    return value(card) % 13


def _fits(card: str, onto: str, alternate: bool) -> bool:
    if (_circle(card) - _circle(onto)) % 13 not in (1, 12):
        return False
    return not alternate or (suit_of(card) in "HD") != (suit_of(onto) in "HD")


# Prebuilt: the cards each card may go onto, plain and with alternate colours.
FITS: Final[dict[str, frozenset[str]]] = {
    c: frozenset(o for o in DECK if _fits(c, o, False)) for c in DECK
}
FITS_ALT: Final[dict[str, frozenset[str]]] = {
    c: frozenset(o for o in DECK if _fits(c, o, True)) for c in DECK
}
CARD_SET: Final = frozenset(DECK)


def _player_text(player: str) -> str:
    """A player in an English fallback text: named by id, no Discord markup (the catalog's
    text gets the player as a mention through ``bot.present.refusal``)."""
    return f"player {player}"


def _index(raw: Any) -> int | None:
    """A JSON pile index, or None when it is not a whole number."""
    if isinstance(raw, bool) or not isinstance(raw, int):
        return None
    return raw


def _lay_out(cards: list[str], piles: int) -> tuple[list[list[str]], list[str]]:
    """Stock piles dealt row by row (ruling 2), and the rest as spit cards.

    The last card dealt on a pile is its face-up top; ``spit cards[-1]`` is the next to turn.
    """
    stock: list[list[str]] = [[] for _ in range(piles)]
    k = 0
    n = len(cards)
    for row in range(piles):
        for i in range(row, piles):
            if k == n:
                return stock, []
            stock[i].append(cards[k])
            k += 1
    return stock, cards[k:]


@register
class Spit(Game):
    """The state machine. Seats 0 and 1; with two spit piles, pile ``s`` is seat ``s``'s."""

    kind = KIND
    min_players = PLAYERS
    max_players = PLAYERS
    examples = ((2, {}), (2, {"piles": 4, "alternate_colors": True}), (2, {"no_slap": True}))

    __slots__ = (
        "_alternate",
        "_emptied",
        "_fits",
        "_last",
        "_layouts",
        "_lone_pile",
        "_n_piles",
        "_no_slap",
        "_phase",
        "_players",
        "_ready",
        "_reason",
        "_rng",
        "_seat",
        "_spit_cards",
        "_spits",
        "_spitter",
        "_stocks",
        "_winner",
    )

    def __init__(
        self, players: Sequence[str], piles: int, alternate: bool, no_slap: bool, rng: Rng
    ) -> None:
        self._players = list(players)
        self._seat = {p: i for i, p in enumerate(players)}
        self._n_piles = piles
        self._alternate = alternate
        self._no_slap = no_slap
        self._fits = FITS_ALT if alternate else FITS
        self._rng = rng
        self._phase = SPIT
        self._stocks: list[list[list[str]]] = [[[] for _ in range(piles)] for _ in range(2)]
        """``_stocks[seat][pile]``: bottom first; the last card is face up, the rest down."""
        self._spit_cards: list[list[str]] = [[], []]
        """Face-down; the last card is the next to turn."""
        self._spits: list[list[str]] = [[], []]
        """The spit piles in play (one or two); the last card is the top."""
        self._lone_pile: int | None = None
        """The pile a lone spitter chose with two piles in play, until the next layout."""
        self._spitter: int | None = None
        """With one spit pile in play: the seat that spits onto it (ruling 9's tie)."""
        self._ready = [False, False]
        self._emptied: int | None = None
        self._reason = ""
        self._layouts = 0
        self._last: dict[str, Any] | None = None
        self._winner: int | None = None

    # ------------------------------------------------------------------ setup

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> Spit:
        check_seating(KIND, players, seed, PLAYERS, PLAYERS)
        opts = check_options(options, DEFAULTS, KIND)
        if opts["piles"] not in PILE_COUNTS:
            raise ValueError(f"spit: option piles must be 5 or 4, not {opts['piles']}")
        game = cls(players, opts["piles"], opts["alternate_colors"], opts["no_slap"], Rng(seed))
        deck = list(DECK)
        game._rng.shuffle(deck)
        for seat in range(2):
            game._stocks[seat], game._spit_cards[seat] = _lay_out(
                deck[seat * 26 : (seat + 1) * 26], game._n_piles
            )
        return game

    # ------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self._players),
            "options": self.options(),
            "rng": self._rng.state,
            "phase": self._phase,
            "stocks": [[list(p) for p in stock] for stock in self._stocks],
            "spit_cards": [list(s) for s in self._spit_cards],
            "spits": [list(s) for s in self._spits],
            "lone_pile": self._lone_pile,
            "spitter": self._spitter,
            "ready": list(self._ready),
            "emptied": self._emptied,
            "reason": self._reason,
            "layouts": self._layouts,
            "last": None if self._last is None else dict(self._last),
            "winner": self._winner,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Spit:
        opts = data["options"]
        game = cls(
            data["players"], opts["piles"], opts["alternate_colors"], opts["no_slap"], Rng(0)
        )
        game._rng.state = data["rng"]
        game._phase = data["phase"]
        game._stocks = [[list(p) for p in stock] for stock in data["stocks"]]
        game._spit_cards = [list(s) for s in data["spit_cards"]]
        game._spits = [list(s) for s in data["spits"]]
        game._lone_pile = data["lone_pile"]
        game._spitter = data["spitter"]
        game._ready = list(data["ready"])
        game._emptied = data["emptied"]
        game._reason = data["reason"]
        game._layouts = data["layouts"]
        last = data["last"]
        game._last = None if last is None else dict(last)
        game._winner = data["winner"]
        return game

    def options(self) -> dict[str, Any]:
        return {
            "piles": self._n_piles,
            "alternate_colors": self._alternate,
            "no_slap": self._no_slap,
        }

    # --------------------------------------------------------------- queries

    def is_over(self) -> bool:
        return self._phase == OVER

    def _spitters(self) -> list[int]:
        """Seats that still have spit cards."""
        return [s for s in (0, 1) if self._spit_cards[s]]

    def _choosers(self) -> list[int]:
        """Seats that may slap or take now (slap phase)."""
        if not self._no_slap:
            return [0, 1]
        if self._emptied is not None:
            return [self._emptied]
        counts = [self._stock_count(s) for s in (0, 1)]
        if counts[0] == counts[1]:
            return [0, 1]
        return [0 if counts[0] < counts[1] else 1]

    def _stock_count(self, seat: int) -> int:
        return sum(map(len, self._stocks[seat]))

    def _has_move(self, seat: int) -> bool:
        """Whether ``seat`` can play onto a spit pile or uncover a card (hot path)."""
        tops = [s[-1] for s in self._spits if s]
        fits = self._fits
        empty = False
        deep = False
        for pile in self._stocks[seat]:
            size = len(pile)
            if not size:
                empty = True
                continue
            if size > 1:
                deep = True
            if not fits[pile[-1]].isdisjoint(tops):
                return True
        return empty and deep

    def to_act(self) -> list[str]:
        phase = self._phase
        players = self._players
        if phase == PLAY:
            return [players[s] for s in (0, 1) if self._has_move(s)]
        if phase == SPIT:
            return [players[s] for s in self._spitters() if not self._ready[s]]
        if phase == SLAP:
            return [players[s] for s in self._choosers()]
        return []

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        seat = self._seat.get(player)
        if seat is None:
            return []
        phase = self._phase
        if phase == PLAY:
            return self._moves(seat)
        if phase == SPIT:
            if not self._spit_cards[seat] or self._ready[seat]:
                return []
            if len(self._spits) == 2 and not self._spit_cards[1 - seat] and self._lone_pile is None:
                return [{"type": "spit", "pile": 0}, {"type": "spit", "pile": 1}]
            return [{"type": "spit"}]
        if phase == SLAP and seat in self._choosers():
            kind = "take" if self._no_slap else "slap"
            return [{"type": kind, "pile": 0}, {"type": kind, "pile": 1}]
        return []

    def _moves(self, seat: int) -> list[dict[str, Any]]:
        """Every play onto a spit pile, then every fill that uncovers a card."""
        stock = self._stocks[seat]
        spits = self._spits
        fits = self._fits
        moves: list[dict[str, Any]] = []
        empty: list[int] = []
        for i, pile in enumerate(stock):
            if not pile:
                empty.append(i)
                continue
            card = pile[-1]
            onto = fits[card]
            for j, spit in enumerate(spits):
                if spit and spit[-1] in onto:
                    moves.append(
                        {"type": "play", "pile": i, "card": card, "spit": j, "onto": spit[-1]}
                    )
        if empty:
            for i, pile in enumerate(stock):
                if len(pile) > 1:
                    for k in empty:
                        moves.append({"type": "fill", "pile": i, "card": pile[-1], "to": k})
        return moves

    def auto_action(self, player: str) -> dict[str, Any]:
        """First play onto a spit pile, else a fill that uncovers a card, else spit / slap /
        take (see the module docstring). ``IllegalAction`` when there is nothing to do."""
        self._seat_of(player)
        if self._phase == OVER:
            raise IllegalAction("the game is over", "spit.game_over")
        legal = self.legal_actions(player)
        if not legal:
            raise IllegalAction("there is nothing for you to do now", "spit.nothing_to_do")
        first = legal[0]
        if first["type"] in ("play", "fill") or "pile" not in first:
            return first
        sizes = [len(s) for s in self._spits]
        if first["type"] == "spit":  # a lone spitter choosing: the larger pile
            return {"type": "spit", "pile": 1 if sizes[1] > sizes[0] else 0}
        return {"type": first["type"], "pile": 1 if sizes[1] < sizes[0] else 0}

    # ---------------------------------------------------------------- apply

    def apply(self, player: str, action: Action) -> list[Event]:
        seat = self._seat_of(player)
        if self._phase == OVER:
            raise IllegalAction("the game is over", "spit.game_over")
        kind = action.get("type") if isinstance(action, Mapping) else None
        if kind == "play":
            return self._play(seat, action)
        if kind == "fill":
            return self._fill(seat, action)
        if kind == "spit":
            return self._spit(seat, action)
        if kind in ("slap", "take"):
            return self._slap(seat, action, kind)
        raise IllegalAction(
            f"unknown action {kind!r}: expected play, fill, spit, slap or take",
            "spit.bad_action",
            got=str(kind),
        )

    def _seat_of(self, player: str) -> int:
        seat = self._seat.get(player)
        if seat is None:
            raise IllegalAction(
                f"{_player_text(player)} is not playing in this game",
                "spit.not_a_player",
                player=player,
            )
        return seat

    def _want_phase(self, want: str) -> None:
        phase = self._phase
        if phase == want:
            return
        now = {
            SPIT: "the game waits for the spit",
            PLAY: "the cards are in play",
            SLAP: "it is time to take the spit piles",
        }[phase]
        raise IllegalAction(f"not now: {now}", f"spit.not_now.{phase}")

    def _stock_card(self, seat: int, action: Action) -> tuple[int, list[str], str]:
        """The pile index, the pile and the card an action names; stale cards are refused."""
        stock = self._stocks[seat]
        i = _index(action.get("pile"))
        if i is None or not 0 <= i < len(stock):
            raise IllegalAction(
                f"there is no stock pile {action.get('pile')!r}",
                "spit.bad_pile",
                pile=str(action.get("pile")),
            )
        card = action.get("card")
        if not isinstance(card, str) or card not in CARD_SET:
            raise IllegalAction("name the card you move", "spit.bad_action", got="card")
        pile = stock[i]
        if not pile or pile[-1] != card:
            raise IllegalAction(
                f"{card} is no longer on top of your pile {i + 1}",
                "spit.card_moved",
                number=i + 1,
                card=card,
            )
        return i, pile, card

    def _play(self, seat: int, action: Action) -> list[Event]:
        self._want_phase(PLAY)
        i, pile, card = self._stock_card(seat, action)
        spits = self._spits
        j = _index(action.get("spit"))
        if j is None or not 0 <= j < len(spits):
            raise IllegalAction(
                f"there is no spit pile {action.get('spit')!r}",
                "spit.bad_spit",
                spit=str(action.get("spit")),
            )
        onto = action.get("onto")
        if not isinstance(onto, str) or onto not in CARD_SET:
            raise IllegalAction("name the spit card you play onto", "spit.bad_action", got="onto")
        target = spits[j]
        top = target[-1] if target else ""
        if top != onto:
            raise IllegalAction(
                f"{onto} is no longer on top of spit pile {j + 1}",
                "spit.spit_changed",
                number=j + 1,
                onto=onto,
                top=top,
            )
        if onto not in self._fits[card]:
            self._refuse_fit(card, onto)
        pile.pop()
        target.append(card)
        player = self._players[seat]
        event: Event = {
            "type": "play",
            "player": player,
            "pile": i,
            "card": card,
            "spit": j,
            "onto": onto,
        }
        self._last = dict(event)
        events = [event]
        if pile:
            events.append({"type": "turned", "player": player, "pile": i, "card": pile[-1]})
        elif not any(self._stocks[seat]):
            events.append({"type": "stock_empty", "player": player})
            self._stock_empty(seat, events)
            return events
        self._settle(events)
        return events

    def _refuse_fit(self, card: str, onto: str) -> NoReturn:
        if onto in FITS[card]:
            raise IllegalAction(
                f"{card} cannot go on {onto}: the colours must alternate",
                "spit.no_fit_colour",
                card=card,
                onto=onto,
            )
        raise IllegalAction(
            f"{card} cannot go on {onto}: the ranks must differ by one",
            "spit.no_fit",
            card=card,
            onto=onto,
        )

    def _fill(self, seat: int, action: Action) -> list[Event]:
        self._want_phase(PLAY)
        i, pile, card = self._stock_card(seat, action)
        stock = self._stocks[seat]
        k = _index(action.get("to"))
        if k is None or not 0 <= k < len(stock):
            raise IllegalAction(
                f"there is no pile place {action.get('to')!r}",
                "spit.bad_pile",
                pile=str(action.get("to")),
            )
        if stock[k]:
            raise IllegalAction(
                f"pile place {k + 1} is not empty", "spit.place_taken", number=k + 1
            )
        if len(pile) < 2:
            raise IllegalAction(
                f"moving {card} uncovers nothing: a card moves to an empty place only to "
                "uncover a face-down card",
                "spit.uncovers_nothing",
                card=card,
            )
        pile.pop()
        stock[k].append(card)
        player = self._players[seat]
        event: Event = {"type": "fill", "player": player, "pile": i, "card": card, "to": k}
        self._last = dict(event)
        events = [event, {"type": "turned", "player": player, "pile": i, "card": pile[-1]}]
        self._settle(events)
        return events

    def _spit(self, seat: int, action: Action) -> list[Event]:
        self._want_phase(SPIT)
        if not self._spit_cards[seat]:
            raise IllegalAction(
                "you have no spit cards: your opponent spits alone", "spit.no_spit_cards"
            )
        if self._ready[seat]:
            raise IllegalAction("you already spat: waiting for your opponent", "spit.already_ready")
        raw = action.get("pile")
        pile = _index(raw)
        if raw is not None and (pile is None or not 0 <= pile < len(self._spits)):
            raise IllegalAction(f"there is no spit pile {raw!r}", "spit.bad_spit", spit=str(raw))
        lone = not self._spit_cards[1 - seat]
        if len(self._spits) == 1:
            target = 0
        elif lone:
            if self._lone_pile is None:
                if pile is None:
                    raise IllegalAction(
                        "you spit alone: choose a spit pile, it stays yours until the next layout",
                        "spit.choose_pile",
                    )
                self._lone_pile = pile
            elif pile not in (None, self._lone_pile):
                raise IllegalAction(
                    f"you spit alone onto spit pile {self._lone_pile + 1}, the one you chose",
                    "spit.fixed_pile",
                    number=self._lone_pile + 1,
                )
            target = self._lone_pile
        else:
            if pile not in (None, seat):
                raise IllegalAction(
                    f"you spit onto your own spit pile, pile {seat + 1}",
                    "spit.own_pile",
                    number=seat + 1,
                )
            target = seat
        players = self._players
        if not lone:
            self._ready[seat] = True
            if not self._ready[1 - seat]:
                event: Event = {"type": "ready", "player": players[seat]}
                self._last = dict(event)
                return [event]
            turns = [(0, 0), (1, 1)]
        else:
            turns = [(seat, target)]
        cards = []
        for s, j in turns:
            card = self._spit_cards[s].pop()
            self._spits[j].append(card)
            cards.append({"player": players[s], "pile": j, "card": card})
        self._ready = [False, False]
        event = {"type": "spit", "cards": cards}
        self._last = _clone(event)
        events = [event]
        self._phase = PLAY
        self._settle(events)
        return events

    def _slap(self, seat: int, action: Action, kind: str) -> list[Event]:
        self._want_phase(SLAP)
        if kind == "slap" and self._no_slap:
            raise IllegalAction(
                "nobody slaps in this game: the player who emptied their stock takes a pile",
                "spit.no_slapping",
            )
        if kind == "take" and not self._no_slap:
            raise IllegalAction("slap a spit pile to take it", "spit.slap_instead")
        choosers = self._choosers()
        if seat not in choosers:
            raise IllegalAction(
                f"{_player_text(self._players[choosers[0]])} chooses a pile first",
                "spit.not_your_choice",
                player=self._players[choosers[0]],
            )
        raw = action.get("pile")
        j = _index(raw)
        if j is None or not 0 <= j < 2:
            raise IllegalAction(f"there is no spit pile {raw!r}", "spit.bad_spit", spit=str(raw))
        event: Event = {"type": kind, "player": self._players[seat], "pile": j}
        events = [event]
        taken = [0, 0]
        taken[seat] = j
        taken[1 - seat] = 1 - j
        gets = [self._spits[taken[0]], self._spits[taken[1]]]
        self._new_layout(gets, self._reason, events)
        return events

    # ------------------------------------------------------------ game flow

    def _settle(self, events: list[Event]) -> None:
        """After a move or a spit: when nobody can move, the block is resolved."""
        if self._has_move(0) or self._has_move(1):
            return
        spitters = self._spitters()
        players = self._players
        if not spitters:
            if len(self._spits) == 1:
                self._one_pile_blocked(events)
                return
            events.append({"type": "blocked", "spitters": [], "lone": None, "pile": None})
            self._phase = SLAP
            self._reason = NO_SPIT_CARDS
            self._emptied = None
            return
        lone = players[spitters[0]] if len(spitters) == 1 else None
        pile: int | None = None
        if lone is not None:
            pile = 0 if len(self._spits) == 1 else self._lone_pile
        events.append(
            {
                "type": "blocked",
                "spitters": [players[s] for s in spitters],
                "lone": lone,
                "pile": pile,
            }
        )
        self._phase = SPIT
        self._ready = [False, False]

    def _stock_empty(self, seat: int, events: list[Event]) -> None:
        """``seat`` just emptied their stock: the one-pile end game or a new layout."""
        if len(self._spits) == 2:
            self._phase = SLAP
            self._reason = STOCK_EMPTY
            self._emptied = seat
            return
        other = 1 - seat
        pile = self._spits[0]
        events.append(
            {
                "type": "pile_left",
                "player": self._players[seat],
                "to": self._players[other],
                "size": len(pile),
            }
        )
        if not self._spit_cards[seat]:
            self._game_over(seat, events)
            return
        gets: list[list[str]] = [[], []]
        gets[other] = pile
        self._new_layout(gets, PILE_LEFT, events)

    def _one_pile_blocked(self, events: list[Event]) -> None:
        """Ruling 9: the single pile goes to the player with more stock left."""
        counts = [self._stock_count(s) for s in (0, 1)]
        if counts[0] != counts[1]:
            loser = 0 if counts[0] > counts[1] else 1
        else:
            loser = self._spitter if self._spitter is not None else 0
        events.append({"type": "blocked", "spitters": [], "lone": None, "pile": None})
        events.append(
            {
                "type": "pile_left",
                "player": self._players[1 - loser],
                "to": self._players[loser],
                "size": len(self._spits[0]),
            }
        )
        gets: list[list[str]] = [[], []]
        gets[loser] = self._spits[0]
        self._new_layout(gets, NO_SPIT_CARDS, events)

    def _new_layout(self, gets: list[list[str]], reason: str, events: list[Event]) -> None:
        """Each player shuffles what they take with their stock and spit cards and lays out."""
        rng = self._rng
        players = self._players
        taken: dict[str, int] = {}
        for s in (0, 1):
            cards = [c for pile in self._stocks[s] for c in pile]
            cards += self._spit_cards[s]
            cards += gets[s]
            taken[players[s]] = len(gets[s])
            rng.shuffle(cards)
            self._stocks[s], self._spit_cards[s] = _lay_out(cards, self._n_piles)
        spitters = self._spitters()
        self._layouts += 1
        self._ready = [False, False]
        self._emptied = None
        self._reason = ""
        self._phase = SPIT
        self._lone_pile = None
        if len(spitters) == 2:
            self._spits = [[], []]
            self._spitter = None
        else:
            # Ruling 6: one player short, the other spits alone onto one pile. 52 cards
            # never fit in two full stocks, so someone always has spit cards here.
            self._spits = [[]]
            self._spitter = spitters[0]
        event: Event = {
            "type": "layout",
            "reason": reason,
            "taken": taken,
            "stocks": {players[s]: [len(p) for p in self._stocks[s]] for s in (0, 1)},
            "spit_cards": {players[s]: len(self._spit_cards[s]) for s in (0, 1)},
            "spit_piles": len(self._spits),
        }
        self._last = _clone(event)
        events.append(event)
        if self._layouts >= MAX_LAYOUTS:
            self._game_over(None, events)

    def _cards_left(self, seat: int) -> int:
        return self._stock_count(seat) + len(self._spit_cards[seat])

    def _game_over(self, winner: int | None, events: list[Event]) -> None:
        self._phase = OVER
        if winner is None:
            left = [self._cards_left(s) for s in (0, 1)]
            if left[0] != left[1]:
                winner = 0 if left[0] < left[1] else 1
        self._winner = winner
        result = self.result()
        events.append(
            {
                "type": "game_over",
                "winner": None if winner is None else self._players[winner],
                "ranking": result["ranking"],
                "scores": result["scores"],
            }
        )

    # ---------------------------------------------------------------- views

    def public_view(self) -> dict[str, Any]:
        players = self._players
        spitters = self._spitters()
        lone: str | None = None
        lone_pile: int | None = None
        if len(spitters) == 1 and self._phase in (SPIT, PLAY):
            lone = players[spitters[0]]
            lone_pile = 0 if len(self._spits) == 1 else self._lone_pile
        return {
            "kind": KIND,
            "players": list(players),
            "phase": self._phase,
            "to_act": self.to_act(),
            "options": self.options(),
            "stocks": {
                players[s]: [
                    {"top": p[-1] if p else None, "down": max(len(p) - 1, 0)}
                    for p in self._stocks[s]
                ]
                for s in (0, 1)
            },
            "spit_cards": {players[s]: len(self._spit_cards[s]) for s in (0, 1)},
            "cards_left": {players[s]: self._cards_left(s) for s in (0, 1)},
            "spit_piles": [{"top": p[-1] if p else None, "size": len(p)} for p in self._spits],
            "one_pile": len(self._spits) == 1,
            "lone_spitter": lone,
            "lone_pile": lone_pile,
            "ready": [players[s] for s in (0, 1) if self._ready[s]],
            "emptied": None if self._emptied is None else players[self._emptied],
            "layouts": self._layouts,
            "last_move": _clone(self._last),
            "winner": None if self._winner is None else players[self._winner],
        }

    def view(self, player: str) -> dict[str, Any]:
        view = self.public_view()
        seat = self._seat.get(player)
        if seat is None:
            return view
        view["you"] = {
            "id": player,
            "hand": [p[-1] for p in self._stocks[seat] if p],
            "legal_actions": self.legal_actions(player),
        }
        return view

    def result(self) -> dict[str, Any]:
        players = self._players
        left = [self._cards_left(s) for s in (0, 1)]
        if self._phase == OVER and self._winner is not None and len(self._spits) == 1:
            # The pile left to the loser counts for them.
            left[1 - self._winner] += len(self._spits[0])
        scores = {players[s]: left[s] for s in (0, 1)}
        if self._winner is not None:
            ranking = [[players[self._winner]], [players[1 - self._winner]]]
        elif left[0] == left[1]:
            ranking = [list(players)]
        else:
            first = 0 if left[0] < left[1] else 1
            ranking = [[players[first]], [players[1 - first]]]
        return {"ranking": ranking, "scores": scores}


def _clone(value: Any) -> Any:
    """A deep copy of a JSON value (the views and the state never share a list)."""
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clone(v) for v in value]
    return value
