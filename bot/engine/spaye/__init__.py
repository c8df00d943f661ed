"""Späye: one guild's office game of one working day, scored per month (RULES.md section 1).

``new_game("spaye", players, seed, options)`` opens the day. ``players`` is the
roster so far (it may be empty or just the opener).

Options (all optional)
    ``exercise``       the day's exercise, default ``"push-ups"``.
    ``bonuses``        ``{title: holder}`` for titles whose one-use bonus the holder still
                       has this month (titles: ``TITLES``).
    ``month_spayins``  ids who already played this month (the Grand Späyin's partners).
    ``committee``      ids of committee members who may answer adjustments too.

Newcomers. A challenge may name anyone in the guild. A player joins the roster
when they challenge, when a challenge or a recruiting späyin names them, or when
the Grand Späyin shares an exercise with them.

Actions (``None`` in a legal action is a blank the bot fills in)
    ``{"type": "challenge", "target": id}``         any player, while no däye or challenge
                                                    is under way and more than 3 cards remain
    ``{"type": "challenge", "targets": [id, id]}``  the same when 3 cards remain (the final)
    ``{"type": "accept"}`` / ``{"type": "decline"}``  the challenged or recruited player
    ``{"type": "draw"}``                            a späyin of the däye, once per round
    ``{"type": "recruit", "player": id}``           either späyin, after a tie left 3 cards
    ``{"type": "exercise_done", "id": n}``          confirm an exercise (``id`` may be left
    ``{"type": "give_up", "id": n}``                out when the player has only one)
    ``{"type": "ask_committee", "id": n, "reps": r, "exercise": name}``  an adjustment: fewer
                                                    reps and/or another exercise; a missing
                                                    or ``None`` field keeps its value
    ``{"type": "approve", "id": n}`` / ``{"type": "refuse", "id": n}``  the däye's other
                                                    players or a committee member; the first
                                                    answer decides
    ``{"type": "bonus_share", "id": n, "with": id}``  Grand Späyin
    ``{"type": "bonus_tyrant", "id": n}``           Mastäye
    ``{"type": "bonus_double", "id": n}``           Tikäo
    ``{"type": "expire"}``  SYSTEM: the pending challenge or recruit invitation timed out
    ``{"type": "void"}``    SYSTEM: closing time with cards left: the day is voided
    ``{"type": "close"}``   SYSTEM: closing time, whatever is left: voids the day when cards
                            remain, otherwise finishes it (unconfirmed exercises lapse)

``legal_actions(id)`` of anyone returns the challenge template when challenging is
open; ``to_act()`` lists only those the game waits for (invited players, späyins
who must draw or recruit, players with an exercise, approvers of an adjustment).

Events (all public: no card that is not revealed to everyone)
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
    ``bonus_used`` {title, player, id, + partner | players | card and double};
    ``day_finished`` {ranking, scores}; ``day_voided`` {table, bonuses_returned}.

Rulings beyond RULES.md
    - Nobody sees a drawn card before the reveal, the drawer included: the cards lie face
      down until everyone in the round has drawn, and nothing depends on them before.
    - Nikäye reinsertion happens at the reveal of the round that drew the last one, so a
      hidden card never gives itself away.
    - A pending challenge blocks other challenges like a däye under way.
    - In the final däye the victory points are at stake with the exercise: earned on
      confirming it as drawn, lost when it is adjusted, given up or not confirmed.
    - An adjusted exercise earns the reps actually done (reps x sets), never more than the
      rep points at stake. Several adjustments may be asked in turn.
    - A bonus applies to the holder's own nikäye exercise before any adjustment. Its
      points: the Mastäye earns them at once; a shared exercise earns them on the holder's
      confirmation (the partner earns nothing); the Tikäo earns them at once when exempted,
      on confirming both sets when doubled.
    - The day finishes when the table is empty and every exercise is settled, or at
      closing time (``close``) once the table is empty.
    - A voided day's result counts nothing (zero points, empty timeline) and lists its
      bonuses under ``bonuses_returned``; its ``spayins`` are still listed.
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
