"""``/speahx begin|end|stats``: Speahx on the seated-game kit.

The kit (:mod:`bot.seated`) runs the lobby, the table, the hands, the turn timer (and its bounds), notices,
abandon and stats; this cog says which options ``/speahx begin`` takes and how the game looks
(:mod:`cogs.speahx._render`). A hand's controls are Speahx's own (:mod:`cogs.speahx._controls`):
the cards by rank and count, then the top card only when it matters, at most eight controls
at once, Draw and Collect always as buttons. The second step is a *page* of the kit's
(``page:<stamp>.<screen>``): drawn from the stored game, so it survives a restart, and the
kit's stamp check answers a click on controls of a decision that is gone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bot.i18n import Lang
from bot.seated import OptionSpec, SeatedCog, SeatedSpec, seated_group, turn_option
from bot.storage import StoredGame
from bot.ui import PayloadView
from cogs.speahx._controls import hand_controls, move_for
from cogs.speahx._render import SpeahxRenderer

KIND: Final = "speahx"
RENDERER: Final = SpeahxRenderer()
SPEC: Final = SeatedSpec(
    KIND,
    RENDERER,
    options=(
        OptionSpec("jokers", "Play with 2 jokers (default: no)", False),
        turn_option(90),
    ),
)


class SpeahxCog(SeatedCog, name="Speahx"):
    """Speahx for 2 to 14 players."""

    spec = SPEC
    speahx = seated_group(KIND, "Speahx", SPEC.options, "2 to 14")

    def controls(
        self, stored: StoredGame, player: str, locale: Lang, *, page: int = 0
    ) -> PayloadView | None:
        """Speahx's own controls: screen ``page`` (0: the cards; then the top card's screens)."""
        view = self.named(stored, stored.game.view(player))
        return hand_controls(KIND, stored.id, view, RENDERER, locale, page=page)

    def offered_action(
        self, stored: StoredGame, player: str, action: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The legal action the controls offer for ``action``: the one kept for the same
        move (the same rank, count and pile left to follow); ``action`` itself when it is
        not legal."""
        move = move_for(stored.game.view(player), action)
        return dict(action) if move is None else dict(move.action)
