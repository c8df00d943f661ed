"""Späye: one guild's office game of one working day, scored per month (docs/rules/spaye.md).

``new_game("spaye", players, seed, options)`` opens the day; the bot opens at most one
per guild and day. ``players`` is the roster so far (it may be empty or just the opener).

Options (all optional)
    ``exercise``       the day's exercise, default ``"push-ups"`` (``DEFAULT_EXERCISE``).
    ``bonuses``        ``{title: holder}`` for titles whose one-use bonus the holder still
                       has this month (titles: ``TITLES``).
    ``month_spayins``  ids who already played this month (the Grand Späyin's partners).
    ``committee``      ids of committee-role members who may answer adjustments too.

Newcomers. A challenge may name anyone in the guild. A player joins the roster when
they challenge, when a challenge or a recruiting späyin names them, or when the Grand
Späyin shares an exercise with them.

Actions. ``None`` in a legal action is a blank the bot fills in; ``id`` is an
exercise id and may be left out when the player has only one exercise (or, for
approve/refuse, only one adjustment to answer).
    ``{"type": "challenge", "target": id}``         anyone, while no däye or challenge is
                                                    under way and more than 3 cards remain
    ``{"type": "challenge", "targets": [id, id]}``  the same with 3 cards left: the final
    ``{"type": "accept"}`` / ``{"type": "decline"}``  the challenged or recruited player
    ``{"type": "draw"}``                            a späyin of the däye, once per round
    ``{"type": "recruit", "player": id}``           either späyin, when a tie left 3 cards
    ``{"type": "exercise_done", "id": n}``          confirm an exercise
    ``{"type": "give_up", "id": n}``                give an exercise up (earns nothing)
    ``{"type": "ask_committee", "id": n, "reps": r, "exercise": name}``  ask an adjustment:
                                                    fewer reps (1..current) and/or another
                                                    exercise; a missing or ``None`` field
                                                    keeps its value
    ``{"type": "approve", "id": n}`` / ``{"type": "refuse", "id": n}``  the däye's other
                                                    players or a committee member; the first
                                                    answer decides
    ``{"type": "bonus_share", "id": n, "with": id}``  Grand Späyin (legal actions list
                                                    every partner)
    ``{"type": "bonus_tyrant", "id": n}``           Mastäye
    ``{"type": "bonus_double", "id": n}``           Tikäo
    ``{"type": "propose_exercise", "exercise": name}``  anyone, before the first däye and
                                                    while no other proposal is pending
    ``{"type": "agree_exercise", "exercise": name}``  anyone but the proposer: the proposed
                                                    exercise becomes the day's (``exercise``
                                                    may be left out; if given it must be the
                                                    one pending)
    ``{"type": "expire"}``  SYSTEM: the pending challenge or recruit invitation timed out
    ``{"type": "void"}``    SYSTEM: closing time with cards left: the day is voided
    ``{"type": "close"}``   SYSTEM: closing time, whatever is left: voids the day when cards
                            remain, otherwise finishes it (unconfirmed exercises lapse)
    ``{"type": "committee", "player": id}``  SYSTEM: the bot saw that ``id`` holds the
                            guild's committee role (roles are only learnt from a member's own
                            interaction); they may answer adjustments from then on. Not
                            listed in ``legal_actions``: only the bot knows when it applies.

``legal_actions(id)`` of anyone holds the challenge template when challenging is open
(so it can't list guild members); ``to_act()`` lists only the players the game waits for:
invited players, späyins who must draw or recruit, players with an exercise, approvers
of an adjustment. It may be empty while the day runs: then anyone may challenge.
Bonus actions are offered only to their holder and only when they apply.

Events. All public: they never hold a card before its reveal nor a table or discard card.
    ``challenge`` {by, targets, final}; ``challenge_accepted`` {by, player};
    ``challenge_declined`` {by, targets, player}; ``challenge_expired`` {by, targets,
    accepted}; ``daye_started`` {daye, players, final}; ``card_drawn`` {daye, player,
    waiting, table}; ``reveal`` {daye, round, final, cards: [{player, card}], table};
    ``nikaye_reinserted`` {table}; ``tie`` {daye, round, players}; ``recruit_needed``
    {daye, players}; ``recruit_offered`` / ``recruit_declined`` / ``recruit_expired``
    {daye, by, player}; ``recruit_accepted`` {daye, by, player, players, final};
    ``points`` {player, column, points, daye}; ``daye_over`` {daye, final, players,
    winner, nikayes, table}; ``exercise_set`` / ``exercise_changed`` /
    ``exercise_exempted`` / ``exercise_given_up`` / ``exercise_lapsed`` {id, player, daye,
    final, origin, exercise, reps, sets, bonus, stake: {reps, victory}};
    ``exercise_done`` (the same plus adjusted, points: {victory, reps});
    ``adjustment_asked`` {id, player, reps, exercise, was: {reps, exercise}, final,
    approvers}; ``adjustment_approved`` {id, player, by, reps, exercise,
    victory_cancelled}; ``adjustment_refused`` {id, player, by, reps, exercise};
    ``bonus_used`` {title, player, id} plus {partner} (share), {players} (tyrant) or
    {card, double} (Tikäo's redrawn card); ``day_finished`` {ranking, scores};
    ``day_voided`` {table, bonuses_returned}; ``committee_joined`` {player};
    ``exercise_proposed`` {by, exercise, was}; ``exercise_agreed`` {by, player, exercise,
    was}; ``exercise_proposal_lapsed`` {by, exercise} (the first däye started first).
    An exercise's ``origin`` is ``nikaye`` (drawn), ``share`` or ``tyrant`` (handed over
    by a bonus, worth no points); ``sets`` is 2 for a Tikäo who drew the nikäye again.

Views. ``public_view()``: kind, status (running | finished | voided), exercise, players,
table (a count), final_next, challenge ({by, targets, final, accepted} or None), daye
and last_daye ({number, players, final, rounds: revealed rounds as [{player, card}],
drawn, waiting, recruiting, offer: {by, player} or None, over, winner, nikayes} or
None), dayes (started), exercises (id, player, daye, final, origin, exercise, reps,
sets, adjusted, bonus, stake, request: {reps, exercise, approvers} or None), points
({player: {daye, victory, reps}}, provisional), scores, spayins, bonuses (still
available {title: holder}), bonuses_used ({title: holder}), proposal ({by, exercise} or None). ``view(id)`` adds ``you``:
{id, to_act, legal_actions, exercises (ids), bonuses (titles available to them)}.
Only the current and the last däye show their cards: the discard can't be consulted.

Result. ``result()``: status, ranking (by total points, ties grouped), scores, points
({player: {daye, victory, reps}}), timeline ([{seq, player, column, points, daye}] in
the order earned), spayins, dayes, bonuses_used ({title: holder}: mark them spent once
the day is finished) and bonuses_returned (a voided day's bonuses, given back). A voided
day's points and timeline are zero and empty. ``month_standings(results)`` turns the
month's day results into its points and titles.

Rulings beyond docs/rules/spaye.md
    - Nobody sees a drawn card before the reveal, the drawer included: the cards lie face
      down until everyone in the round has drawn, and nothing depends on them before.
    - Nikäye reinsertion happens at the reveal of the round that drew the last one, so a
      face-down card never gives itself away.
    - A pending challenge blocks other challenges like a däye under way.
    - The final is challenged as a whole: both colleagues must accept; one refusal or
      the timer calls it off. After a tie that left 3 cards, either späyin invites one
      colleague at a time; a refusal or the timer lets them invite someone else.
    - A nikäyé with an exercise to confirm may play the next däye.
    - In the final däye the victory points are at stake with the exercise: earned on
      confirming it as drawn, lost when it is adjusted, given up or not confirmed.
    - An adjusted exercise earns the reps actually done (reps x sets), never more than the
      rep points at stake. Adjustments may be asked again after a refusal.
    - A bonus applies to the holder's own nikäye exercise before any adjustment. Its
      points: the Mastäye earns them at once; a shared exercise earns them on the holder's
      confirmation (the partner earns nothing); the Tikäo earns them at once when exempted,
      on confirming both sets when doubled. The Mastäye's späyins of today include the
      opponent; the Grand Späyin's partner may be the opponent.
    - The day finishes when the table is empty and every exercise is settled, or at
      closing time (``close``) once the table is empty.
    - A voided day still lists its späyins: they are späyins of the month.
    - The day's exercise: the opener's (the ``exercise`` option) until a colleague proposes
      another and a second one agrees; one proposal at a time; from the first däye on it
      is fixed and a pending proposal lapses.
    - Points earned by one action are listed in the däye's drawing order, which decides
      the month's last tie-break.
"""

from bot.engine.spaye.game import SpayeGame
from bot.engine.spaye.month import month_standings
from bot.engine.spaye.rules import (
    COLUMN_OF_TITLE,
    COLUMNS,
    DEFAULT_EXERCISE,
    DEFAULT_OPTIONS,
    TITLE_NAMES,
    TITLE_OF_COLUMN,
    TITLES,
    card_value,
)

__all__ = [
    "COLUMNS",
    "COLUMN_OF_TITLE",
    "DEFAULT_EXERCISE",
    "DEFAULT_OPTIONS",
    "TITLES",
    "TITLE_NAMES",
    "TITLE_OF_COLUMN",
    "SpayeGame",
    "card_value",
    "month_standings",
]
