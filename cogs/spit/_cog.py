"""``/spit``: Spit on the seated-game kit, played on one public board.

``/spit challenge @colleague`` asks one colleague (Accept / Decline: the kit's challenges,
:mod:`bot.seated.challenge`, turned on in the spec); ``/spit begin`` opens a lobby like the
other games (where the host may seat a computer opponent). The kit runs the rest: the board
is the table message, every click is answered by updating it, moves are applied in the
order Discord created them (:mod:`bot.seated.order`), and the game's lock is never held
during a Discord call.
"""

from __future__ import annotations

from typing import Any, Final

from bot.i18n import Lang, t
from bot.present import mention
from bot.seated import Challenge, OptionSpec, SeatedCog, SeatedSpec, seated_group
from bot.storage import StoredGame
from cogs.spit._render import COLOURS, SpitRenderer, decode

KIND: Final = "spit"
CHALLENGE_MINUTES: Final = 10
SPEC: Final = SeatedSpec(
    KIND,
    SpitRenderer(),
    options=(
        OptionSpec("piles", "Stock piles: 5 (1 to 5 cards) or 4 (1 to 4 cards)", 5, 4, 5),
        OptionSpec("alternate_colors", "Cards on a spit pile alternate black and red", False),
        OptionSpec("no_slap", "No slapping: who empties their stock first picks a pile", False),
    ),
    public_board=True,
    challenge=Challenge(minutes=CHALLENGE_MINUTES),
)


class SpitCog(SeatedCog, name="Spit"):
    """Spit for 2 players, in real time."""

    spec = SPEC
    spit = seated_group(KIND, "Spit", SPEC.options, "2", challenge=SPEC.challenge)
    COMPUTER_DELAY = 1.0
    """Scales a computer opponent's reaction time (tests set 0)."""
    REACTION: Final = {"easy": 1.6, "normal": 1.0, "hard": 0.6}
    """Seconds before a computer opponent reacts to the board, by level."""
    PER_OPTION: Final = {"easy": 0.25, "normal": 0.15, "hard": 0.08}
    """Seconds more for each move it could make: more choice, slower choice."""

    def computer_delay(self, stored: StoredGame, player: str) -> float:
        """A human-like pace: a reaction delay, plus a choice time that grows with the moves
        on offer. The move is the one it chose on that board; the kit drops it quietly if
        the board changed meanwhile."""
        level = str((stored.meta.get("computers") or {}).get(player, "normal"))
        options = len(stored.game.legal_actions(player))
        seconds = self.REACTION.get(level, 1.0) + self.PER_OPTION.get(level, 0.15) * options
        return seconds * self.COMPUTER_DELAY

    def board_owner(self, arg: str | None, stored: StoredGame) -> str | None:
        """``<seat>.<move>``: the player sitting in ``seat`` (``None``: no seat named)."""
        seat = (arg or "").partition(".")[0]
        players = stored.game.public_view()["players"]
        return str(players[int(seat)]) if seat.isdigit() and int(seat) < len(players) else None

    def board_action(
        self, arg: str | None, stored: StoredGame, player: str
    ) -> dict[str, Any] | None:
        """``<seat>.<move>``: the move itself, good while the board still allows it."""
        if self.board_owner(arg, stored) != player:
            return None
        return decode((arg or "").partition(".")[2])

    def not_your_controls(self, stored: StoredGame, owner: str, player: str, locale: Lang) -> str:
        """Whose buttons these are, and which colour marks the presser's own."""
        players = stored.game.public_view()["players"]
        return t(
            "spit.not_yours",
            locale,
            player=mention(owner, locale),
            marker=COLOURS[players.index(player) % 2] if player in players else "",
        )
