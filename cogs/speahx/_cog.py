"""``/speahx begin|end|stats``: Speahx on the seated-game kit.

The kit (:mod:`bot.seated`) runs the lobby, the table, the hands, the turn timer (and its bounds), notices,
abandon and stats; this cog says which options ``/speahx begin`` takes and how the game looks
(:mod:`cogs.speahx._render`). A hand's controls are Speahx's own (:mod:`cogs.speahx._controls`):
one per distinct move, Draw and Collect always as buttons; a hand of any size reaches every
legal move (a huge one in selects, paged). Their custom ids are the kit's, so the kit's
stamp check answers a click on controls of a decision that is gone.
"""

from __future__ import annotations

from typing import Final

from bot.i18n import Lang
from bot.seated import OptionSpec, SeatedCog, SeatedSpec, seated_group, turn_option
from bot.storage import StoredGame
from bot.ui import PayloadView
from cogs.speahx._controls import hand_controls
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
        """Speahx's own controls: one per distinct move, Draw and Collect always buttons."""
        view = self.named(stored, stored.game.view(player))
        return hand_controls(KIND, stored.id, view, RENDERER.look, locale, page=page)
