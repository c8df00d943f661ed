"""Speahx for 2 to 14 players (the rules: docs/rules/speahx.md).

A shedding game: match the top card of the pile by suit or rank, burn the pile with a 10 or
four of a kind, hand the pile to someone with a joker (or the Terminator). The first player
without cards wins; the last one holding cards loses.

Options: ``jokers`` (bool, default False): 2 jokers in total, whatever the number of decks.
1 deck for 2-4 players, 2 for 5-9, 3 for 10-14.

Seats are numbers in ``players`` order; the next seat (i+1 mod n) is the left neighbour.
The dealer is drawn at random; the seat on the dealer's left starts. Each player is dealt 5
face-down table cards (positions 0..4) and 5 hand cards; the rest is the stock.

Actions (plain JSON dicts; the player whose turn it is acts, one step at a time)
    ``{"type": "play", "cards": ["7H", "7S"]}``  one or more cards of one rank, laid in the
        order given (the last ends on top). From the hand; after drawing a chance card, the
        chance card (the latest one drawn), alone or with hand cards of its rank when that
        makes the top four of the pile equal. ``apply`` takes any such order and choice;
        ``legal_actions`` lists, per rank: each legal single card; one play per count from 2
        up to all but one, at most 4 (a legal card laid first, then suit order S H D C); and
        all the cards of the rank with each suit held on top. Without jokers, four jacks of
        four suits are offered once, as the Terminator. So at most 7 plays per rank with one
        deck (4 singles only for the top card's rank or a special rank), 11 with three: a
        44-card hand gives about 75 plays, a 10-card hand about 10.
    ``{"type": "collect", "cards": [pile]}``  take the whole pile into the hand (not on an
        empty pile); ends the turn. ``cards`` is informative: apply takes the pile as it is.
    ``{"type": "chance"}``  draw a chance card from the stock (at most 3 per turn).
    ``{"type": "table", "position": i}``  turn face-down table card ``i`` (only when the
        hand and the stock are empty): played if legal, else it and the pile go to the hand.
    Follow-up decisions, by the same player, before the turn goes on:
    ``{"type": "suit", "suit": "S"}``  after a 2 left on top of the pile: the suit to follow.
    ``{"type": "target", "player": id, "cards": [pile]}``  after a joker or the Terminator
        on a non-empty pile: who takes the pile (not the player, not a finished player).
    ``{"type": "show", "show": true|false}``  after an unplayable table card: whether the
        others see it.
    The dicts that ``legal_actions`` returns are fresh; the list stays short (linear in the
    ranks held, never one entry per permutation).

Rulings the rules leave open (also in ``help.speahx.bot_rulings``)
    - Cards played together go down in the order the player gives, the last on top: it
      sets the suit to follow.
    - The 3 chance cards are per turn: a burn lets the player play again (the unplayed chance
      cards join the hand) but does not give 3 more.
    - Only the latest chance card may be played: drawing another declines the previous one.
    - After a burn, a player with no hand card while the stock lasts ends the turn by
      refilling; with no card at all (hand, table, stock empty) they are out.
    - A player whose hand and the stock are empty may still collect instead of turning a table
      card.
    - The Terminator is exactly four jacks of four suits in one play (with a chance card too).
    - A 2 that stays on top of the pile (also after a partial four-of-a-kind burn) names a
      suit; four 2s burn without naming one.
    - "Speah!" when the suit to follow changes to spades from another suit; a spade on an
      empty pile is no switch.
    - A joker or Terminator on an empty pile gives nothing: no target to choose.
    - The refill happens at the end of the turn; unplayed chance cards join the hand first,
      so they count towards the 5.
    - The turn timer's move (``auto_action`` below) is stated too.

``auto_action(player)`` (the turn timer's move): collect when a play is not obvious. The
lowest-value ordinary legal rank (2, 10 and jokers kept), every card of it held, on top the
suit the player keeps most of. With no ordinary play: a 10, else a joker, else collect. On an
empty pile with only special cards: the lowest. So that absent players never pass the same
piles back and forth forever, coins fixed by the seed and the turn count (``auto_coins``)
change that 1 time in 4 to the second-lowest rank, 1 time in 4 to a single card of the rank,
and 1 time in 2 play a 2 rather than collect. After drawing a chance card: play it if legal,
else collect. Suit: the suit held most (ties S H D C). Target: the player with the fewest
cards (ties: nearest on the left). Show: false. Table: the first position left.

Events (public; no event names a face-down card, a stock card, or a card only its owner saw)
    ``play`` {player, cards, source: "hand"|"chance"|"table", position (table only)};
    ``torkel`` {player} when the jack of spades is played;
    ``speah`` {player} when the suit to follow switches to spades;
    ``suit_named`` {player, suit};
    ``burn`` {player, why: "ten"|"four"|"joker"|"terminator", cards, again}: ``cards`` leave
        the game (for joker and terminator, the joker(s) or jacks only); ``again``: the same
        player plays again;
    ``joker_target`` {player, target, cards}: the pile goes to ``target``'s hand;
    ``collect`` {player, cards};
    ``chance_drawn`` {player, number (1..3), stock}: the card is not named;
    ``chance_kept`` {player, count}: unplayed chance cards join the hand;
    ``table_failed`` {player, position, cards}: the table card was not playable; it and the
        pile (``cards``) go to the hand;
    ``table_shown`` {player, card} or ``table_hidden`` {player};
    ``refill`` {player, count, stock};
    ``out`` {player, place}; ``turn`` {player} (closes every turn but the last);
    ``game_over`` {ranking, loser} (closes the last one).
    ``deal_event()`` gives the opening ``deal`` {dealer, decks, jokers, stock, turn}; ``apply``
    never emits it.

``public_view()``: kind, players (seat order), phase ("play" | "suit" | "target" | "show" |
"over"), turn (id or None), to_act, dealer, jokers, decks, pile (top last), top, suit (the
suit to follow, None on an empty pile), named (the suit named on a top 2, or None),
hand_sizes {id: n}, table_cards {id: [positions face down]}, stock (count), turns (turns
finished), burned (count of burned cards), seen (what every player at the table saw and
may count: ``burned`` {card: n}, the burned cards; ``held`` {id: {card: n}}, the cards seen
going into that hand (a pile collected or handed over by a joker, a failed table card's
pile, a table card shown) and not seen played since; counts per card in hand order, never
a log), removed (jokers and Terminator jacks out of the game), out (finishing order so
far), chance {player, drawn, held} (chance cards of the turn in progress: drawn, still
unplayed), last (the events of the latest action), last_turn {player, events} (the previous
turn), announcements (the speah / torkel events of the turn in progress, else of the previous
turn), loser (None until over). ``view(player)`` adds ``you``: id, hand (sorted by rank, then
suit S H D C, jokers last), legal_actions, table_positions, chance (the chance cards drawn
this turn and still unplayed, latest last), turned (the unplayable table card awaiting the
show decision, else None), drawn (the cards the player's latest refill took from the stock,
sorted as the hand, from the end of that turn until their next turn starts; else ``[]``, so
always ``[]`` for the player to act: the ``refill`` event only counts them, and no other
view names them).

``result()``: ranking (finishing order, groups of one, loser last), loser, scores {id: place}.

Refusals raise ``IllegalAction`` with key ``speahx.<reason>``: not_a_player {player},
not_your_turn {player}, game_over, bad_action {got}, pending_suit, pending_target,
pending_show (a follow-up decision comes first), no_decision, empty_play, not_in_hand {card},
hand_empty, mixed_ranks, no_match {cards, suit (symbol), top}, after_chance, not_the_chance
{card}, empty_pile, chance_limit, stock_empty, table_hand, table_stock, table_chance,
no_table_card {position}, bad_suit {suit}, joker_self, joker_finished {player}, not_a_target
{player}, bad_show. Their English and French texts are in ``bot/locales/speahx.*.json``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from bot.engine.base import (
    Action,
    Event,
    Game,
    IllegalAction,
    check_options,
    check_seating,
    check_turn,
    register,
    seat_of,
)
from bot.engine.cards import (
    JOKER,
    RANK_VALUE,
    RANKS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    SUITS,
    standard_deck,
)
from bot.engine.rng import Rng

KIND: Final = "speahx"
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 14
HAND: Final = 5
"""Hand cards dealt, and the refill target while the stock lasts."""
TABLE: Final = 5
"""Face-down table cards per player."""
CHANCES: Final = 3
"""Chance cards a player may draw per turn."""
JOKERS: Final = 2
DEFAULTS: Final[dict[str, Any]] = {"jokers": False}

PLAY: Final = "play"
COLLECT: Final = "collect"
CHANCE: Final = "chance"
TABLE_ACTION: Final = "table"
SUIT_ACTION: Final = "suit"
TARGET: Final = "target"
SHOW: Final = "show"
OVER: Final = "over"
PHASES: Final = (PLAY, SUIT_ACTION, TARGET, SHOW, OVER)

TWO: Final = "2"
TEN: Final = "10"
JACK: Final = "J"
SPECIAL: Final = frozenset({TWO, TEN, JOKER})
"""Ranks playable on anything."""
SPADES: Final = "S"
TORKEL: Final = "JS"

# Lookup tables over every card code, built once: the hot path never parses a code.
ALL_CARDS: Final = (*standard_deck(), JOKER)
RANK: Final[dict[str, str]] = {c: (JOKER if c == JOKER else c[:-1]) for c in ALL_CARDS}
SUIT: Final[dict[str, str]] = {c: ("" if c == JOKER else c[-1]) for c in ALL_CARDS}
VALUE: Final[dict[str, int]] = {c: (15 if c == JOKER else RANK_VALUE[RANK[c]]) for c in ALL_CARDS}
"""2..10, J=11, Q=12, K=13, A=14, joker 15."""
SUIT_INDEX: Final[dict[str, int]] = {s: i for i, s in enumerate(SUITS)}
ORDER: Final[dict[str, int]] = {
    c: VALUE[c] * 10 + (SUIT_INDEX[SUIT[c]] if SUIT[c] else 0) for c in ALL_CARDS
}
"""How a hand is sorted: by rank (2 up to A, jokers last), then suit S H D C."""
SPECIAL_CARD: Final[dict[str, bool]] = {c: RANK[c] in SPECIAL for c in ALL_CARDS}
TERMINATOR: Final = tuple(JACK + s for s in SUITS)
_COIN_STEP: Final = 0xD1B54A32D192ED03
PENDING: Final[dict[str, str]] = {
    SUIT_ACTION: "first name the suit to follow",
    TARGET: "first choose who takes the pile",
    SHOW: "first say whether the others see your table card",
}
ACTION_TYPES: Final = (PLAY, COLLECT, CHANCE, TABLE_ACTION, SUIT_ACTION, TARGET, SHOW)
TURN_ENDS: Final = frozenset({"turn", "game_over"})
"""The event that closes every turn."""


def decks_for(players: int) -> int:
    """1 deck for 2-4 players, 2 for 5-9, 3 for 10-14."""
    return 1 if players <= 4 else 2 if players <= 9 else 3


def full_deck(players: int, jokers: bool) -> list[str]:
    """Every card of a game, in a fixed order."""
    cards = standard_deck() * decks_for(players)
    if jokers:
        cards += [JOKER] * JOKERS
    return cards


def sort_cards(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=ORDER.__getitem__)


def auto_coins(rng_state: int, turns: int) -> int:
    """64 random bits for ``auto_action``, fixed by the game's seed and the turn count."""
    return Rng(rng_state ^ (turns * _COIN_STEP)).next64()


def _player_text(player: str) -> str:
    """A player in an English fallback text: named by id, no Discord markup (the catalog's
    text gets the player as a mention through ``bot.present.refusal``)."""
    return f"player {player}"


def _is_terminator(cards: Sequence[str]) -> bool:
    return len(cards) == 4 and sorted(cards) == sorted(TERMINATOR)


def is_terminator(cards: Sequence[str], jokers: bool) -> bool:
    """Whether playing ``cards`` is the Terminator: without jokers, exactly four jacks of four
    suits in one play (it then leaves the game like a joker)."""
    return not jokers and _is_terminator(cards)


def _remove_all(hand: list[str], cards: Sequence[str]) -> None:
    for card in cards:
        hand.remove(card)


def _has_all(hand: Sequence[str], cards: Sequence[str]) -> str | None:
    """The first card of ``cards`` that ``hand`` lacks (counting repeats), else None."""
    pool = list(hand)
    for card in cards:
        try:
            pool.remove(card)
        except ValueError:
            return card
    return None


def top_run(pile: Sequence[str]) -> int:
    """How many cards of the top card's rank lie together on top of the pile."""
    if not pile:
        return 0
    rank = RANK[pile[-1]]
    count = 0
    for card in reversed(pile):
        if RANK[card] != rank:
            break
        count += 1
    return count


@register
class Speahx(Game):
    """The state machine. ``_turn`` is the seat to act; follow-ups keep the same seat."""

    kind = KIND
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    examples = ((2, {}), (4, {"jokers": True}), (7, {}))

    __slots__ = (
        "_before",
        "_burned",
        "_chance",
        "_chance_mode",
        "_dealer",
        "_drawn",
        "_hands",
        "_jokers",
        "_known",
        "_last",
        "_last_turn",
        "_n",
        "_named",
        "_out",
        "_phase",
        "_pile",
        "_players",
        "_refilled",
        "_removed",
        "_rng",
        "_seat",
        "_stock",
        "_table",
        "_turn",
        "_turn_events",
        "_turned",
        "_turns",
    )

    def __init__(self, players: Sequence[str], jokers: bool, rng: Rng) -> None:
        n = len(players)
        self._players = list(players)
        self._n = n
        self._seat = {p: i for i, p in enumerate(players)}
        self._jokers = jokers
        self._rng = rng
        self._dealer = 0
        self._turn = 0
        self._phase = PLAY
        self._hands: list[list[str]] = [[] for _ in range(n)]
        self._table: list[list[str | None]] = [[None] * TABLE for _ in range(n)]
        self._stock: list[str] = []
        """Drawn from the end."""
        self._pile: list[str] = []
        """Face up, top last."""
        self._named = ""
        """The suit named on the 2 on top of the pile; ``""`` otherwise."""
        self._burned: list[str] = []
        self._known: list[dict[str, int]] = [{} for _ in range(n)]
        """Per seat, the cards every player saw go into that hand (a pile collected or
        handed over by a joker, a failed table card's pile, a table card shown) and has not
        seen played since: counts per card, never a log."""
        self._removed: list[str] = []
        """Jokers and Terminator jacks: out of the game."""
        self._out: list[int] = []
        """Seats in finishing order; when the game is over, the loser last."""
        self._chance: list[str] = []
        """Chance cards drawn this turn and not played, in draw order."""
        self._chance_mode = False
        """A chance card was drawn and no burn happened since: hand cards are locked."""
        self._drawn = 0
        """Chance cards drawn this turn."""
        self._turned = ""
        """The unplayable table card awaiting the show decision."""
        self._before = ""
        """The suit to follow before the play that awaits a suit decision (for Speah!)."""
        self._turn_events: list[Event] = []
        self._turns = 0
        """Turns finished so far."""
        self._last_turn: dict[str, Any] | None = None
        self._last: list[Event] = []
        self._refilled: list[list[str]] = [[] for _ in range(n)]
        """Per seat, the cards its latest refill drew from the stock (sorted), until that
        seat's next turn starts: only its own ``view`` names them."""

    # ------------------------------------------------------------------ setup

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> Speahx:
        check_seating(KIND, players, seed, MIN_PLAYERS, MAX_PLAYERS)
        opts = check_options(options, DEFAULTS, KIND)
        rng = Rng(seed)
        game = cls(players, opts["jokers"], rng)
        n = len(players)
        game._dealer = rng.randbelow(n)
        deck = full_deck(n, game._jokers)
        rng.shuffle(deck)
        for i in range(n):
            seat = (game._dealer + 1 + i) % n
            game._table[seat] = list(deck[i * TABLE : (i + 1) * TABLE])
        start = n * TABLE
        for i in range(n):
            seat = (game._dealer + 1 + i) % n
            game._hands[seat] = sort_cards(deck[start + i * HAND : start + (i + 1) * HAND])
        game._stock = deck[start + n * HAND :]
        game._turn = (game._dealer + 1) % n
        return game

    def deal_event(self) -> Event:
        """The opening event (nothing else announces the deal)."""
        return {
            "type": "deal",
            "dealer": self._players[self._dealer],
            "decks": decks_for(self._n),
            "jokers": self._jokers,
            "stock": len(self._stock),
            "turn": self._players[self._turn],
        }

    # ------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self._players),
            "options": {"jokers": self._jokers},
            "rng": self._rng.state,
            "dealer": self._dealer,
            "turn": self._turn,
            "phase": self._phase,
            "hands": [list(h) for h in self._hands],
            "table": [list(t) for t in self._table],
            "stock": list(self._stock),
            "pile": list(self._pile),
            "named": self._named,
            "burned": list(self._burned),
            "known": [dict(k) for k in self._known],
            "removed": list(self._removed),
            "out": list(self._out),
            "chance": list(self._chance),
            "chance_mode": self._chance_mode,
            "drawn": self._drawn,
            "turned": self._turned,
            "before": self._before,
            "turn_events": _copy_events(self._turn_events),
            "turns": self._turns,
            "last_turn": None
            if self._last_turn is None
            else {
                "player": self._last_turn["player"],
                "events": _copy_events(self._last_turn["events"]),
            },
            "last": _copy_events(self._last),
            "refilled": [list(r) for r in self._refilled],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Speahx:
        game = cls(data["players"], data["options"]["jokers"], Rng(0))
        game._rng.state = data["rng"]
        game._dealer = data["dealer"]
        game._turn = data["turn"]
        game._phase = data["phase"]
        game._hands = [sort_cards(h) for h in data["hands"]]
        game._table = [list(t) for t in data["table"]]
        game._stock = list(data["stock"])
        game._pile = list(data["pile"])
        game._named = data["named"]
        game._burned = list(data["burned"])
        known = data.get("known")  # absent from games saved before it: nobody knew anything
        if known is not None:
            game._known = [{str(c): int(k) for c, k in seat.items() if k > 0} for seat in known]
        game._removed = list(data["removed"])
        game._out = list(data["out"])
        game._chance = list(data["chance"])
        game._chance_mode = data["chance_mode"]
        game._drawn = data["drawn"]
        game._turned = data["turned"]
        game._before = data["before"]
        game._turn_events = _copy_events(data["turn_events"])
        game._turns = data["turns"]
        last_turn = data["last_turn"]
        game._last_turn = (
            None
            if last_turn is None
            else {"player": last_turn["player"], "events": _copy_events(last_turn["events"])}
        )
        game._last = _copy_events(data["last"])
        refilled = data.get("refilled")  # absent from games saved before it: none drawn
        if refilled is not None:
            game._refilled = [sort_cards([str(c) for c in r]) for r in refilled]
        return game

    # --------------------------------------------------------------- queries

    def to_act(self) -> list[str]:
        if self._phase == OVER:
            return []
        return [self._players[self._turn]]

    def is_over(self) -> bool:
        return self._phase == OVER

    def _follow(self) -> str:
        """The suit to follow: the named suit on a 2, else the top card's; "" on no pile."""
        pile = self._pile
        if not pile:
            return ""
        top = pile[-1]
        if RANK[top] == TWO:
            return self._named
        return SUIT[top]

    def _playable(self) -> dict[str, bool]:
        """Whether each card could be played alone on the pile now."""
        pile = self._pile
        if not pile:
            return _ALWAYS
        top = pile[-1]
        top_rank = RANK[top]
        follow = self._named if top_rank == TWO else SUIT[top]
        return _PLAYABLE[(follow, top_rank)]

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        phase = self._phase
        if phase == OVER:
            return []
        seat = self._turn
        if self._players[seat] != player:
            return []
        if phase == SUIT_ACTION:
            return [{"type": SUIT_ACTION, "suit": s} for s in SUITS]
        if phase == TARGET:
            return [
                {"type": TARGET, "player": self._players[t], "cards": list(self._pile)}
                for t in self._targets(seat)
            ]
        if phase == SHOW:
            return [{"type": SHOW, "show": False}, {"type": SHOW, "show": True}]
        actions: list[dict[str, Any]] = []
        pile = self._pile
        if self._chance_mode:
            self._chance_plays(seat, actions)
        elif self._hands[seat]:
            self._hand_plays(self._hands[seat], actions)
        elif not self._stock:
            actions.extend(
                {"type": TABLE_ACTION, "position": i}
                for i, card in enumerate(self._table[seat])
                if card is not None
            )
        if self._stock and self._drawn < CHANCES and (self._chance_mode or self._hands[seat]):
            actions.append({"type": CHANCE})
        if pile:
            actions.append({"type": COLLECT, "cards": list(pile)})
        return actions

    def _hand_plays(self, hand: Sequence[str], out: list[dict[str, Any]]) -> None:
        """The short list of plays from the hand (see the module docstring).

        Hands are kept sorted (``ORDER``): each rank's cards lie together."""
        playable = self._playable()
        rank_of = RANK
        append = out.append
        size = len(hand)
        i = 0
        while i < size:
            card = hand[i]
            rank = rank_of[card]
            j = i + 1
            while j < size and rank_of[hand[j]] == rank:
                j += 1
            if j == i + 1:  # the common case: one card of that rank
                if playable[card]:
                    append({"type": PLAY, "cards": [card]})
                i = j
                continue
            cards = list(hand[i:j])
            i = j
            legal = [c for c in dict.fromkeys(cards) if playable[c]]
            if not legal:
                continue
            for c in legal:
                append({"type": PLAY, "cards": [c]})
            self._group_plays(rank, cards, legal, playable, out)

    def _group_plays(
        self,
        rank: str,
        cards: list[str],
        legal: list[str],
        playable: dict[str, bool],
        out: list[dict[str, Any]],
    ) -> None:
        """Plays of 2 or more of the ``cards`` of one rank (at least one of them ``legal``)."""
        m = len(cards)
        distinct = list(dict.fromkeys(cards))
        terminator = not self._jokers and rank == JACK and len(distinct) == 4
        first = legal[0]
        rest = list(cards)
        rest.remove(first)
        for k in range(2, min(m, 5)):
            if terminator and k == 4:
                out.append({"type": PLAY, "cards": list(TERMINATOR)})
            else:
                out.append({"type": PLAY, "cards": [first, *rest[: k - 1]]})
        if terminator and m == 4:
            out.append({"type": PLAY, "cards": list(TERMINATOR)})
            return
        for top in distinct:
            others = list(cards)
            others.remove(top)
            if not playable[top]:
                lead = next(c for c in others if playable[c])
                others.remove(lead)
                others.insert(0, lead)
            out.append({"type": PLAY, "cards": [*others, top]})

    def _chance_plays(self, seat: int, out: list[dict[str, Any]]) -> None:
        """The latest chance card alone if legal, and with hand cards of its rank when that
        makes four of a kind on top of the pile."""
        card = self._chance[-1]
        playable = self._playable()
        if playable[card]:
            out.append({"type": PLAY, "cards": [card]})
        rank = RANK[card]
        same = [c for c in sort_cards(self._hands[seat]) if RANK[c] == rank]
        if not same:
            return
        pile = self._pile
        run = top_run(pile) if pile and RANK[pile[-1]] == rank else 0
        need = max(1, 3 - run)
        for k in range(need, len(same) + 1):
            cards = [*same[:k], card]
            if any(playable[c] for c in cards):
                out.append({"type": PLAY, "cards": cards})

    def _targets(self, seat: int) -> list[int]:
        """Who may take the pile after a joker: the others still playing, from the left."""
        n = self._n
        out = set(self._out)
        return [t for t in ((seat + k) % n for k in range(1, n)) if t not in out]

    def _cards_left(self, seat: int) -> int:
        return len(self._hands[seat]) + sum(c is not None for c in self._table[seat])

    def auto_action(self, player: str) -> dict[str, Any]:
        """The turn timer's move: collect when a play is not obvious (module docstring)."""
        if self._phase == OVER:
            raise IllegalAction("the game is over", "speahx.game_over")
        self._check_turn(player)
        seat = self._turn
        phase = self._phase
        hand = self._hands[seat]
        if phase == SUIT_ACTION:
            counts = [sum(SUIT[c] == s for c in hand) for s in SUITS]
            return {"type": SUIT_ACTION, "suit": SUITS[counts.index(max(counts))]}
        if phase == TARGET:
            target = min(self._targets(seat), key=self._cards_left)
            return {"type": TARGET, "player": self._players[target], "cards": list(self._pile)}
        if phase == SHOW:
            return {"type": SHOW, "show": False}
        pile = self._pile
        if self._chance_mode:
            card = self._chance[-1]
            if self._playable()[card]:  # always so on an empty pile
                return {"type": PLAY, "cards": [card]}
            return {"type": COLLECT, "cards": list(pile)}
        if not hand:  # then the stock is empty and table cards are left (else the turn ended)
            return {"type": TABLE_ACTION, "position": self._table_cards(seat)[0]}
        plays: list[dict[str, Any]] = []
        self._hand_plays(hand, plays)
        ordinary = [a for a in plays if not SPECIAL_CARD[a["cards"][0]]]
        # Coins that the turn count flips, so that absent players never repeat the same
        # exchange of piles forever: 1 time in 4 the second lowest rank, 1 in 4 fewer cards
        # of it, 1 in 2 a 2 rather than collecting.
        coins = auto_coins(self._rng.state, self._turns)
        if ordinary:
            held = Counter(SUIT[c] for c in hand)

            def key(action: dict[str, Any]) -> tuple[int, int, int, int]:
                cards = action["cards"]
                top = SUIT[cards[-1]]
                left = held[top] - sum(SUIT[c] == top for c in cards)
                return (VALUE[cards[0]], -len(cards), -left, SUIT_INDEX[top])

            ordinary.sort(key=key)
            ranks = list(dict.fromkeys(RANK[a["cards"][0]] for a in ordinary))
            rank = ranks[1] if len(ranks) > 1 and coins & 6 == 0 else ranks[0]
            group = [a for a in ordinary if RANK[a["cards"][0]] == rank]
            return group[-1] if coins & 24 == 0 else group[0]
        if not pile:
            return {"type": PLAY, "cards": [min(hand, key=ORDER.__getitem__)]}
        for rank in (TEN, JOKER, TWO) if coins & 1 else (TEN, JOKER):
            special = [c for c in hand if RANK[c] == rank]
            if special:
                return {"type": PLAY, "cards": [min(special, key=ORDER.__getitem__)]}
        return {"type": COLLECT, "cards": list(pile)}

    def _table_cards(self, seat: int) -> list[int]:
        return [i for i, c in enumerate(self._table[seat]) if c is not None]

    # ---------------------------------------------------------------- apply

    def apply(self, player: str, action: Action) -> list[Event]:
        phase = self._phase
        if phase == OVER:
            self._seat_of(player)
            raise IllegalAction("the game is over", "speahx.game_over")
        self._check_turn(player)
        if not isinstance(action, Mapping):
            raise IllegalAction("I did not understand that move", "speahx.bad_action", got="")
        kind = action.get("type")
        if kind not in ACTION_TYPES:
            raise IllegalAction(f"unknown action {kind!r}", "speahx.bad_action", got=str(kind)[:40])
        seat = self._turn
        if phase != PLAY:
            if kind != phase:
                raise IllegalAction(PENDING[phase], f"speahx.pending_{phase}")
        elif kind in (SUIT_ACTION, TARGET, SHOW):
            raise IllegalAction("there is no such choice to make now", "speahx.no_decision")
        events: list[Event] = []
        if kind == PLAY:
            self._apply_play(seat, action, events)
        elif kind == COLLECT:
            self._apply_collect(seat, events)
        elif kind == CHANCE:
            self._apply_chance(seat, events)
        elif kind == TABLE_ACTION:
            self._apply_table(seat, action, events)
        elif kind == SUIT_ACTION:
            self._apply_suit(seat, action, events)
        elif kind == TARGET:
            self._apply_target(seat, action, events)
        else:
            self._apply_show(seat, action, events)
        self._last = events
        self._turn_events.extend(events)
        if events[-1]["type"] in TURN_ENDS:
            self._last_turn = {"player": player, "events": self._turn_events}
            self._turn_events = []
        return _copy_events(events)

    def _seat_of(self, player: str) -> int:
        return seat_of(self._seat, player, KIND)

    def _check_turn(self, player: str) -> None:
        check_turn(self._players, self._turn, self._seat, player, KIND)

    # ---- play

    def _check_cards(self, action: Action) -> list[str]:
        cards = action.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise IllegalAction("a play needs a list of cards", "speahx.bad_action", got="cards")
        if not cards:
            raise IllegalAction("play at least one card", "speahx.empty_play")
        for card in cards:
            if card not in RANK:
                raise IllegalAction(
                    f"{card[:10]} is not in your hand", "speahx.not_in_hand", card=card[:10]
                )
        if len({RANK[c] for c in cards}) > 1:
            raise IllegalAction(
                "cards played together must all have the same rank", "speahx.mixed_ranks"
            )
        return list(cards)

    def _apply_play(self, seat: int, action: Action, events: list[Event]) -> None:
        cards = self._check_cards(action)
        hand = self._hands[seat]
        source = "hand"
        if self._chance_mode:
            chance = self._chance[-1]
            if chance not in cards:
                if not hand or _has_all(hand, cards) is not None:
                    raise IllegalAction(
                        f"you may only play your chance card {chance} now",
                        "speahx.not_the_chance",
                        card=chance,
                    )
                raise IllegalAction(
                    "after drawing a chance card you cannot play hand cards this turn",
                    "speahx.after_chance",
                )
            from_hand = list(cards)
            from_hand.remove(chance)
            missing = _has_all(hand, from_hand)
            if missing is not None:
                raise IllegalAction(
                    f"{missing} is not in your hand", "speahx.not_in_hand", card=missing
                )
            if from_hand and top_run([*self._pile, *cards]) < 4:
                raise IllegalAction(
                    "after drawing a chance card, hand cards may join it only to make "
                    "four of a kind on top of the pile",
                    "speahx.after_chance",
                )
            source = "chance"
        else:
            if not hand and not self._stock:
                raise IllegalAction(
                    "your hand is empty: turn one of your table cards", "speahx.hand_empty"
                )
            missing = _has_all(hand, cards)
            if missing is not None:
                raise IllegalAction(
                    f"{missing} is not in your hand", "speahx.not_in_hand", card=missing
                )
        playable = self._playable()
        if not any(playable[c] for c in cards):
            follow = self._follow()
            top = self._pile[-1]
            raise IllegalAction(
                f"{', '.join(cards)} matches neither the suit to follow "
                f"({SUIT_NAMES[follow]}) nor the top card ({top})",
                "speahx.no_match",
                cards=", ".join(cards),
                suit=SUIT_SYMBOLS[follow],
                top=top,
            )
        # Legal: move the cards.
        if source == "chance":
            self._chance.remove(self._chance[-1])
            _remove_all(hand, from_hand)
            self._forget(seat, from_hand)
        else:
            _remove_all(hand, cards)
            self._forget(seat, cards)
        self._lay(seat, cards, source, None, events)

    def _lay(
        self, seat: int, cards: list[str], source: str, position: int | None, events: list[Event]
    ) -> None:
        """Put legal cards on the pile and resolve what they do."""
        player = self._players[seat]
        before = self._follow()
        pile = self._pile
        pile.extend(cards)
        event: Event = {"type": "play", "player": player, "cards": list(cards), "source": source}
        if position is not None:
            event["position"] = position
        events.append(event)
        if TORKEL in cards:
            events.append({"type": "torkel", "player": player})
        rank = RANK[cards[0]]
        if rank == JOKER or is_terminator(cards, self._jokers):
            del pile[-len(cards) :]
            self._removed.extend(cards)
            why = "joker" if rank == JOKER else "terminator"
            events.append(
                {"type": "burn", "player": player, "why": why, "cards": list(cards), "again": False}
            )
            self._named = ""
            if pile:
                self._phase = TARGET
                return
            self._end_turn(seat, events)
            return
        if rank == TEN:
            self._burn_all(seat, "ten", events)
            return
        run = top_run(pile)
        if run == 4:
            self._burn_all(seat, "four", events)
            return
        if run > 4:
            cut = len(pile) - (run - 4)
            burned = pile[:cut]
            del pile[:cut]
            self._burned.extend(burned)
            events.append(
                {"type": "burn", "player": player, "why": "four", "cards": burned, "again": False}
            )
        if rank == TWO:
            self._before = before
            self._named = ""
            self._phase = SUIT_ACTION
            return
        self._named = ""
        self._speah(seat, before, events)
        self._end_turn(seat, events)

    def _remember(self, seat: int, cards: Sequence[str]) -> None:
        """Everyone saw ``cards`` go into the hand of ``seat``."""
        known = self._known[seat]
        for card in cards:
            known[card] = known.get(card, 0) + 1

    def _forget(self, seat: int, cards: Sequence[str]) -> None:
        """``seat`` played ``cards`` from their hand: those that were known leave it."""
        known = self._known[seat]
        if not known:
            return
        for card in cards:
            count = known.get(card, 0)
            if count > 1:
                known[card] = count - 1
            elif count == 1:
                del known[card]

    def _speah(self, seat: int, before: str, events: list[Event]) -> None:
        if before and before != SPADES and self._follow() == SPADES:
            events.append({"type": "speah", "player": self._players[seat]})

    def _burn_all(self, seat: int, why: str, events: list[Event]) -> None:
        """The whole pile burns; the same player plays again when they can."""
        self._burned.extend(self._pile)
        events.append(
            {
                "type": "burn",
                "player": self._players[seat],
                "why": why,
                "cards": list(self._pile),
                "again": True,
            }
        )
        self._pile = []
        self._named = ""
        if self._chance:
            self._keep_chance(seat, events)
        self._chance_mode = False
        hand = self._hands[seat]
        if hand or (not self._stock and self._table_cards(seat)):
            return
        self._end_turn(seat, events)

    def _keep_chance(self, seat: int, events: list[Event]) -> None:
        events.append(
            {"type": "chance_kept", "player": self._players[seat], "count": len(self._chance)}
        )
        hand = self._hands[seat]
        hand.extend(self._chance)
        hand.sort(key=ORDER.__getitem__)
        self._chance = []

    # ---- other actions

    def _apply_collect(self, seat: int, events: list[Event]) -> None:
        pile = self._pile
        if not pile:
            raise IllegalAction("the pile is empty: you must play a card", "speahx.empty_pile")
        hand = self._hands[seat]
        hand.extend(pile)
        hand.sort(key=ORDER.__getitem__)
        events.append({"type": "collect", "player": self._players[seat], "cards": list(pile)})
        self._remember(seat, pile)
        self._pile = []
        self._named = ""
        self._end_turn(seat, events)

    def _apply_chance(self, seat: int, events: list[Event]) -> None:
        if self._drawn >= CHANCES:
            raise IllegalAction(
                f"you may draw at most {CHANCES} chance cards per turn", "speahx.chance_limit"
            )
        if not self._stock:
            raise IllegalAction("the stock is empty: no chance card left", "speahx.stock_empty")
        card = self._stock.pop()
        self._chance.append(card)
        self._drawn += 1
        self._chance_mode = True
        events.append(
            {
                "type": "chance_drawn",
                "player": self._players[seat],
                "number": self._drawn,
                "stock": len(self._stock),
            }
        )

    def _apply_table(self, seat: int, action: Action, events: list[Event]) -> None:
        position = action.get("position")
        if self._chance_mode:
            raise IllegalAction(
                "after drawing a chance card you cannot turn a table card this turn",
                "speahx.table_chance",
            )
        if self._hands[seat]:
            raise IllegalAction(
                "table cards come only once your hand is empty", "speahx.table_hand"
            )
        if self._stock:
            raise IllegalAction(
                "table cards come only once the stock is empty", "speahx.table_stock"
            )
        row = self._table[seat]
        card = (
            row[position]
            if isinstance(position, int)
            and not isinstance(position, bool)
            and 0 <= position < TABLE
            else None
        )
        if card is None or not isinstance(position, int):
            raise IllegalAction(
                f"there is no face-down table card at position {str(position)[:10]}",
                "speahx.no_table_card",
                position=str(position)[:10],
            )
        row[position] = None
        if self._playable()[card]:
            self._lay(seat, [card], "table", position, events)
            return
        hand = self._hands[seat]
        pile = self._pile
        events.append(
            {
                "type": "table_failed",
                "player": self._players[seat],
                "position": position,
                "cards": list(pile),
            }
        )
        hand.append(card)
        hand.extend(pile)
        hand.sort(key=ORDER.__getitem__)
        self._remember(seat, pile)
        self._pile = []
        self._named = ""
        self._turned = card
        self._phase = SHOW

    def _apply_suit(self, seat: int, action: Action, events: list[Event]) -> None:
        suit = action.get("suit")
        if suit not in SUITS:
            raise IllegalAction("name a suit: S, H, D or C", "speahx.bad_suit", suit=str(suit)[:10])
        self._named = suit
        self._phase = PLAY
        events.append({"type": "suit_named", "player": self._players[seat], "suit": suit})
        self._speah(seat, self._before, events)
        self._before = ""
        self._end_turn(seat, events)

    def _apply_target(self, seat: int, action: Action, events: list[Event]) -> None:
        target = action.get("player")
        if target == self._players[seat]:
            raise IllegalAction(
                "the pile must go to another player, not to you", "speahx.joker_self"
            )
        tseat = self._seat.get(target) if isinstance(target, str) else None
        if tseat is None:
            raise IllegalAction(
                f"{str(target)[:30]} is not playing in this game",
                "speahx.not_a_target",
                player=str(target)[:30],
            )
        if tseat in self._out:
            raise IllegalAction(
                f"{_player_text(self._players[tseat])} has finished: choose a player still in",
                "speahx.joker_finished",
                player=self._players[tseat],
            )
        hand = self._hands[tseat]
        hand.extend(self._pile)
        hand.sort(key=ORDER.__getitem__)
        events.append(
            {
                "type": "joker_target",
                "player": self._players[seat],
                "target": self._players[tseat],
                "cards": list(self._pile),
            }
        )
        self._remember(tseat, self._pile)
        self._pile = []
        self._phase = PLAY
        self._end_turn(seat, events)

    def _apply_show(self, seat: int, action: Action, events: list[Event]) -> None:
        show = action.get("show")
        if not isinstance(show, bool):
            raise IllegalAction("answer whether to show the card: true or false", "speahx.bad_show")
        player = self._players[seat]
        if show:
            events.append({"type": "table_shown", "player": player, "card": self._turned})
            self._remember(seat, [self._turned])
        else:
            events.append({"type": "table_hidden", "player": player})
        self._turned = ""
        self._phase = PLAY
        self._end_turn(seat, events)

    # ---- turn end

    def _end_turn(self, seat: int, events: list[Event]) -> None:
        """Unplayed chance cards join the hand, refill to 5, out?, game over?, next turn."""
        player = self._players[seat]
        if self._chance:
            self._keep_chance(seat, events)
        self._chance_mode = False
        self._drawn = 0
        self._turns += 1
        hand = self._hands[seat]
        stock = self._stock
        take = min(HAND - len(hand), len(stock))
        self._refilled[seat] = []
        if take > 0:
            drawn = sort_cards(stock[-take:])
            hand.extend(drawn)
            del stock[-take:]
            hand.sort(key=ORDER.__getitem__)
            self._refilled[seat] = drawn
            events.append({"type": "refill", "player": player, "count": take, "stock": len(stock)})
        if not hand and all(c is None for c in self._table[seat]):
            self._out.append(seat)
            events.append({"type": "out", "player": player, "place": len(self._out)})
        out = set(self._out)
        alive = [s for s in range(self._n) if s not in out]
        if len(alive) <= 1:
            self._out.extend(alive)
            self._phase = OVER
            loser = self._players[alive[0]] if alive else None
            events.append({"type": "game_over", "ranking": self._ranking(), "loser": loser})
        else:
            n = self._n
            nxt = (seat + 1) % n
            while nxt in out:
                nxt = (nxt + 1) % n
            self._turn = nxt
            self._refilled[nxt] = []  # their turn: what they drew is in their hand now
            events.append({"type": "turn", "player": self._players[nxt]})

    def _ranking(self) -> list[list[str]]:
        return [[self._players[s]] for s in self._out]

    # ---------------------------------------------------------------- views

    def public_view(self) -> dict[str, Any]:
        players = self._players
        over = self._phase == OVER
        last_turn = self._last_turn
        recent = self._turn_events or (last_turn["events"] if last_turn else [])
        pile = self._pile
        return {
            "kind": KIND,
            "players": list(players),
            "phase": self._phase,
            "turn": None if over else players[self._turn],
            "to_act": self.to_act(),
            "dealer": players[self._dealer],
            "jokers": self._jokers,
            "decks": decks_for(self._n),
            "pile": list(pile),
            "top": pile[-1] if pile else None,
            "suit": self._follow() or None,
            "named": self._named or None,
            "hand_sizes": {p: len(self._hands[i]) for i, p in enumerate(players)},
            "table_cards": {p: self._table_cards(i) for i, p in enumerate(players)},
            "stock": len(self._stock),
            "turns": self._turns,
            "burned": len(self._burned),
            "seen": {
                "burned": _counts(self._burned),
                "held": {
                    p: dict(sorted(self._known[i].items(), key=_by_order))
                    for i, p in enumerate(players)
                },
            },
            "removed": len(self._removed),
            "out": [players[s] for s in (self._out[:-1] if over else self._out)],
            "chance": None
            if over or not self._drawn
            else {"player": players[self._turn], "drawn": self._drawn, "held": len(self._chance)},
            "last": _copy_events(self._last),
            "last_turn": None
            if last_turn is None
            else {"player": last_turn["player"], "events": _copy_events(last_turn["events"])},
            "announcements": [dict(e) for e in recent if e["type"] in ("speah", "torkel")],
            "loser": players[self._out[-1]] if over else None,
        }

    def view(self, player: str) -> dict[str, Any]:
        view = self.public_view()
        seat = self._seat.get(player)
        if seat is None:
            return view
        mine = seat == self._turn and self._phase != OVER
        view["you"] = {
            "id": player,
            "hand": sort_cards(self._hands[seat]),
            "legal_actions": self.legal_actions(player),
            "table_positions": self._table_cards(seat),
            "chance": list(self._chance) if mine else [],
            "turned": self._turned or None if mine else None,
            "drawn": list(self._refilled[seat]),
        }
        return view

    def result(self) -> dict[str, Any]:
        players = self._players
        order = list(self._out)
        if self._phase != OVER:
            rest = [s for s in range(self._n) if s not in order]
            ranking = [[players[s]] for s in order] + ([[players[s] for s in rest]] if rest else [])
            return {"ranking": ranking, "loser": None, "scores": {}}
        return {
            "ranking": [[players[s]] for s in order],
            "loser": players[order[-1]],
            "scores": {players[s]: place for place, s in enumerate(order, 1)},
        }


def _by_order(item: tuple[str, int]) -> int:
    return ORDER[item[0]]


def _counts(cards: Sequence[str]) -> dict[str, int]:
    """How many of each card, in hand order."""
    counts = Counter(cards)
    return {c: counts[c] for c in sort_cards(list(counts))}


def _copy_events(events: Sequence[Event]) -> list[Event]:
    """Fresh events: lists copied, the ranking's groups too (events hold nothing deeper)."""
    return [
        {
            k: ([list(g) for g in v] if k == "ranking" else v[:]) if type(v) is list else v
            for k, v in e.items()
        }
        for e in events
    ]


def _playable_table() -> dict[tuple[str, str], dict[str, bool]]:
    """``(suit to follow, top rank) -> {card: playable alone}``, for every pile top."""
    table: dict[tuple[str, str], dict[str, bool]] = {}
    for follow in SUITS:
        for top in (*RANKS,):
            table[(follow, top)] = {
                c: SPECIAL_CARD[c] or SUIT[c] == follow or RANK[c] == top for c in ALL_CARDS
            }
    return table


_PLAYABLE: Final = _playable_table()
_ALWAYS: Final[dict[str, bool]] = dict.fromkeys(ALL_CARDS, True)
