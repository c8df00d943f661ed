"""Who sits at which table when a game night starts, and where a latecomer goes.

The rule, in order:

1. Each attendee says which of the night's games they would play (a set of game kinds, or
   :data:`ANY`). An attendee who wished only games the night does not offer waits
   (``no_such_game``).
2. Attendees with one game go to it. The others (several games, or any) are given, in the
   order they answered, the game that most needs them: one still short of its smallest
   table first, then one whose players then split into full tables (Spit needs an even
   count), then the one with the fewest players so far. Then, while a game's count cannot
   be split into tables (without computer seats), a flexible attendee is moved in or out
   where that helps both games.
3. A game whose count still cannot be split leaves its last arrivals waiting: all of them
   (``too_few``) when there are fewer than its smallest table, else the fewest needed
   (``no_seat``: Spit's odd one out).
4. Each game's players are split into the fewest tables its largest table allows. Sorted by
   their rating *in that game* (an attendee's rating for the game when they have one, else
   their overall rating: see :meth:`Attendee.rating_in`), they are cut into contiguous groups (sizes within the game's counts) that
   minimise the sum of the rating spreads (strongest minus weakest) inside the tables,
   then the unevenness of the sizes: players of close rating sit together. When computer
   seats are allowed, a game short of players gets one table filled with computers instead
   of waiting, and never more computer seats than needed.

Equal ratings are ordered by a draw from ``seed`` (a local :class:`random.Random`), so the
same attendees and seed always give the same tables. The player counts come from the
engine's game classes (:func:`table_games`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from bot.engine import GAMES
from bot.engine.lobby import seated_class

__all__ = [
    "ANY",
    "NO_SEAT",
    "NO_SUCH_GAME",
    "TOO_FEW",
    "Attendee",
    "Placement",
    "PlayerCount",
    "Seating",
    "Table",
    "Waiting",
    "open_from_waiting",
    "place_latecomer",
    "seat",
    "table_games",
    "without",
]

ANY: Final = None
"""An attendee's wish: any of the night's games."""
NO_SUCH_GAME: Final = "no_such_game"
TOO_FEW: Final = "too_few"
NO_SEAT: Final = "no_seat"


@dataclass(frozen=True, slots=True)
class PlayerCount:
    """How many players a game's table seats (computer seats included)."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not 1 <= self.low <= self.high:
            raise ValueError(f"player counts {self.low}..{self.high}")

    def splits(self, count: int) -> bool:
        """Whether ``count`` players fill whole tables (no computer seat), 0 included."""
        if count == 0:
            return True
        tables = math.ceil(count / self.high)
        return tables * self.low <= count


def table_games() -> dict[str, PlayerCount]:
    """Every game played at a table, with the engine's player counts (Papayoo 3-8, Speahx
    2-14, Spit 2)."""
    out: dict[str, PlayerCount] = {}
    for kind in sorted(GAMES):
        try:
            cls = seated_class(kind)
        except ValueError:
            continue
        out[kind] = PlayerCount(cls.min_players, cls.max_players)
    return out


@dataclass(frozen=True, slots=True)
class Attendee:
    """One person at the night: their id, the games they would play (``None``: any), their
    overall rating, and their rating in the games where it says something (``by_game``:
    ``(game, rating)`` pairs; a game missing there is judged by the overall one)."""

    user_id: int
    wishes: frozenset[str] | None
    rating: float
    by_game: tuple[tuple[str, float], ...] = ()

    def wants(self, game: str) -> bool:
        return self.wishes is None or game in self.wishes

    def rating_in(self, game: str) -> float:
        """Their rating at ``game``: the game's own, else the overall one."""
        return next((r for g, r in self.by_game if g == game), self.rating)


@dataclass(frozen=True, slots=True)
class Table:
    """One table: its game, its people (strongest first) and its computer seats."""

    game: str
    players: tuple[Attendee, ...]
    computers: int = 0

    @property
    def size(self) -> int:
        return len(self.players) + self.computers

    @property
    def spread(self) -> float:
        """Strongest minus weakest rating at the table's game among its people."""
        ratings = [p.rating_in(self.game) for p in self.players]
        return max(ratings) - min(ratings) if ratings else 0.0

    @property
    def mean_rating(self) -> float:
        ratings = [p.rating_in(self.game) for p in self.players]
        return sum(ratings) / len(ratings) if ratings else 0.0

    def user_ids(self) -> tuple[int, ...]:
        return tuple(p.user_id for p in self.players)


@dataclass(frozen=True, slots=True)
class Waiting:
    """Someone not seated, and why (:data:`NO_SUCH_GAME`, :data:`TOO_FEW`, :data:`NO_SEAT`)."""

    attendee: Attendee
    reason: str


@dataclass(frozen=True, slots=True)
class Seating:
    """The night's tables and its waiting list (oldest first)."""

    tables: tuple[Table, ...] = ()
    waiting: tuple[Waiting, ...] = ()

    def seated(self) -> list[int]:
        return [uid for t in self.tables for uid in t.user_ids()]

    def waiting_ids(self) -> list[int]:
        return [w.attendee.user_id for w in self.waiting]

    def table_of(self, user_id: int) -> int | None:
        """The index of the user's table, or None."""
        for index, table in enumerate(self.tables):
            if user_id in table.user_ids():
                return index
        return None


@dataclass(frozen=True, slots=True)
class Placement:
    """A latecomer placed: the new seating, and their table's index (None: waiting).
    ``opened``: the indices of tables the waiting list filled just now."""

    seating: Seating
    table: int | None
    opened: tuple[int, ...] = field(default=())


# -- the start of the night ------------------------------------------------------------------


def seat(
    attendees: Sequence[Attendee],
    games: Mapping[str, PlayerCount],
    *,
    computers: bool = False,
    seed: int = 0,
) -> Seating:
    """Split ``attendees`` (in the order they answered) into tables of ``games`` (module
    docstring). Every attendee ends at exactly one table or on the waiting list."""
    _check_unique(attendees)
    kinds = sorted(games)
    waiting: list[Waiting] = []
    options: dict[int, list[str]] = {}
    for person in attendees:
        wanted = [g for g in kinds if person.wants(g)]
        if wanted:
            options[person.user_id] = wanted
        else:
            waiting.append(Waiting(person, NO_SUCH_GAME))
    playing = [p for p in attendees if p.user_id in options]
    assigned = _assign(playing, options, games)
    order = _tiebreak(attendees, seed)
    tables: list[Table] = []
    for game in kinds:
        group = [p for p in playing if assigned[p.user_id] == game]
        kept, left = _fit(group, games[game], computers=computers)
        reason = TOO_FEW if not kept else NO_SEAT
        waiting.extend(Waiting(p, reason) for p in left)
        tables.extend(_split(game, kept, games[game], computers=computers, order=order))
    rank = {p.user_id: i for i, p in enumerate(attendees)}
    waiting.sort(key=lambda w: rank[w.attendee.user_id])
    return Seating(tuple(tables), tuple(waiting))


def _check_unique(attendees: Iterable[Attendee]) -> None:
    seen: set[int] = set()
    for person in attendees:
        if person.user_id in seen:
            raise ValueError(f"attendee {person.user_id} is listed twice")
        seen.add(person.user_id)


def _tiebreak(attendees: Iterable[Attendee], seed: int) -> dict[int, float]:
    """A draw per attendee from ``seed``, independent of the order they came in."""
    rng = random.Random(seed)
    return {uid: rng.random() for uid in sorted(p.user_id for p in attendees)}


def _assign(
    playing: Sequence[Attendee],
    options: Mapping[int, list[str]],
    games: Mapping[str, PlayerCount],
) -> dict[int, str]:
    assigned: dict[int, str] = {}
    count = dict.fromkeys(games, 0)
    flexible = [p for p in playing if len(options[p.user_id]) > 1]
    for person in playing:
        if len(options[person.user_id]) == 1:
            game = options[person.user_id][0]
            assigned[person.user_id] = game
            count[game] += 1

    for person in flexible:
        choices = options[person.user_id]
        best = max(
            choices,
            key=lambda g: (
                count[g] < games[g].low,
                games[g].splits(count[g] + 1),
                -count[g],
                -choices.index(g),
            ),
        )
        assigned[person.user_id] = best
        count[best] += 1
    # Repair: a game whose count does not split takes a flexible player from, or gives one
    # to, a game that stays splittable (the latest to answer moves first). With computer
    # seats allowed this spares computer seats; without, it spares people a wait.
    for _ in range(len(playing) + 1):
        moved = False
        broken = [g for g in sorted(games) if count[g] and not games[g].splits(count[g])]
        for game in broken:
            for person in reversed(flexible):
                here = assigned[person.user_id]
                if here != game and game in options[person.user_id]:
                    ok = games[game].splits(count[game] + 1)
                    if ok and games[here].splits(count[here] - 1):
                        assigned[person.user_id] = game
                        count[here] -= 1
                        count[game] += 1
                        moved = True
                        break
                if here == game:
                    targets = [
                        g
                        for g in options[person.user_id]
                        if g != game and games[g].splits(count[g] + 1)
                    ]
                    if targets and games[game].splits(count[game] - 1):
                        target = min(targets, key=lambda g: (count[g], g))
                        assigned[person.user_id] = target
                        count[game] -= 1
                        count[target] += 1
                        moved = True
                        break
            if moved:
                break
        if not moved:
            break
    return assigned


def _fit(
    group: Sequence[Attendee], counts: PlayerCount, *, computers: bool
) -> tuple[list[Attendee], list[Attendee]]:
    """(kept, left waiting): the last arrivals wait until the rest split into tables."""
    kept = list(group)
    if computers:
        return kept, []
    if len(kept) < counts.low:
        return [], kept
    left: list[Attendee] = []
    while not counts.splits(len(kept)):
        left.insert(0, kept.pop())
    return kept, left


def _split(
    game: str,
    group: Sequence[Attendee],
    counts: PlayerCount,
    *,
    computers: bool,
    order: Mapping[int, float],
) -> list[Table]:
    """The fewest tables for ``group``, cut from its rating order so that the sum of the
    spreads is smallest (then the computer seats, then the unevenness of the sizes)."""
    n = len(group)
    if n == 0:
        return []
    ranked = sorted(group, key=lambda p: (-p.rating_in(game), order.get(p.user_id, 0.0), p.user_id))
    k = math.ceil(n / counts.high)
    smallest = 1 if computers else counts.low
    ratings = [p.rating_in(game) for p in ranked]
    inf = (math.inf, math.inf, math.inf)
    # best[j][i]: (computer seats, spread, sum of squared sizes) of the first i in j tables.
    best = [[inf] * (n + 1) for _ in range(k + 1)]
    cut = [[0] * (n + 1) for _ in range(k + 1)]
    best[0][0] = (0.0, 0.0, 0.0)
    for j in range(1, k + 1):
        for i in range(1, n + 1):
            for size in range(smallest, min(counts.high, i) + 1):
                before = best[j - 1][i - size]
                if before == inf:
                    continue
                spread = ratings[i - size] - ratings[i - 1]
                cost = (
                    before[0] + max(0, counts.low - size),
                    before[1] + spread,
                    before[2] + size * size,
                )
                if cost < best[j][i]:
                    best[j][i] = cost
                    cut[j][i] = size
    if best[k][n] == inf:
        raise ValueError(f"{n} players do not split into {k} tables of {game}")
    sizes: list[int] = []
    i = n
    for j in range(k, 0, -1):
        sizes.append(cut[j][i])
        i -= cut[j][i]
    sizes.reverse()
    tables: list[Table] = []
    start = 0
    for size in sizes:
        people = tuple(ranked[start : start + size])
        tables.append(Table(game, people, max(0, counts.low - size)))
        start += size
    return tables


# -- after the start ---------------------------------------------------------------------------


def place_latecomer(
    seating: Seating,
    attendee: Attendee,
    games: Mapping[str, PlayerCount],
    *,
    closed: Collection[int] = (),
    seed: int = 0,
) -> Placement:
    """Seat someone who came late: at an open table (not in ``closed``, the indices of tables
    already playing) of a game they wish with room, taking a computer's seat first, else the
    one whose mean rating is closest to theirs; otherwise on the waiting list, which opens a
    table (appended) as soon as enough people wait for one game."""
    if attendee.user_id in seating.seated() or attendee.user_id in seating.waiting_ids():
        raise ValueError(f"attendee {attendee.user_id} is already at the night")
    candidates = [
        (index, table)
        for index, table in enumerate(seating.tables)
        if index not in closed
        and table.game in games
        and attendee.wants(table.game)
        and (table.computers > 0 or table.size < games[table.game].high)
    ]
    if candidates:
        index, table = min(
            candidates,
            key=lambda it: (
                it[1].computers == 0,
                abs(it[1].mean_rating - attendee.rating_in(it[1].game)),
                len(it[1].players),
                it[0],
            ),
        )
        people = tuple(sorted((*table.players, attendee), key=lambda p: -p.rating_in(table.game)))
        grown = replace(table, players=people, computers=max(0, table.computers - 1))
        tables = list(seating.tables)
        tables[index] = grown
        return Placement(Seating(tuple(tables), seating.waiting), index)
    wanted = [g for g in sorted(games) if attendee.wants(g)]
    reason = NO_SEAT if wanted else NO_SUCH_GAME
    waiting = (*seating.waiting, Waiting(attendee, reason))
    after, opened = open_from_waiting(Seating(seating.tables, waiting), games, seed=seed)
    return Placement(after, after.table_of(attendee.user_id), opened)


def open_from_waiting(
    seating: Seating, games: Mapping[str, PlayerCount], *, seed: int = 0
) -> tuple[Seating, tuple[int, ...]]:
    """Open tables for the people waiting, game by game, as soon as at least a smallest
    table's worth of them (people, not computers) wish that game; the first to wait sit
    first. Returns the seating and the indices of the tables opened."""
    tables = list(seating.tables)
    waiting = list(seating.waiting)
    opened: list[int] = []
    order = _tiebreak((w.attendee for w in waiting), seed)
    for game in sorted(games):
        counts = games[game]
        while True:
            willing = [w.attendee for w in waiting if w.attendee.wants(game)]
            if len(willing) < counts.low:
                break
            group = willing[: counts.high]
            for table in _split(game, group, counts, computers=False, order=order):
                opened.append(len(tables))
                tables.append(table)
            ids = {p.user_id for p in group}
            waiting = [w for w in waiting if w.attendee.user_id not in ids]
    return Seating(tuple(tables), tuple(waiting)), tuple(opened)


def without(seating: Seating, user_id: int) -> Seating:
    """The seating once ``user_id`` left (their seat is simply free: the table decides)."""
    tables = tuple(
        replace(t, players=tuple(p for p in t.players if p.user_id != user_id))
        for t in seating.tables
    )
    waiting = tuple(w for w in seating.waiting if w.attendee.user_id != user_id)
    return Seating(tables, waiting)
