"""The seated-game kit: what every game played at a table shares on Discord.

A game's cog configures it instead of copying it::

    SPEC = SeatedSpec("papayoo", PapayooRenderer(), options=(turn_option(engine=True), ...))

    class PapayooCog(SeatedCog, name="Papayoo"):
        spec = SPEC
        papayoo = seated_group("papayoo", "Papayoo", SPEC.options, "3 to 8")

A game imports everything from here, hooks included: the stored game and the stats a hook
receives (:class:`StoredGame`, :class:`PlayerResult`, :class:`PlayerStats`, ``Lang``), and
what a ``controls`` or ``board_controls`` override builds with (:class:`PayloadView`,
:class:`GameView`, :func:`button_payload`, :func:`action_button`, :func:`hand_controls`,
:func:`stamp`, :func:`group_rows`).

See :mod:`bot.seated.cog` for what the kit does and its rooms, :mod:`bot.seated.hooks` for
everything a game may change, :mod:`bot.seated.spec` for what it declares,
:mod:`bot.seated.render` for what a game writes (how it looks), :mod:`bot.seated.controls`
for the hand picker.
"""

from bot.i18n import Lang
from bot.seated.cog import SeatedCog
from bot.seated.commands import seated_group
from bot.seated.controls import action_button, group_rows, hand_controls, stamp
from bot.seated.hooks import GameHooks
from bot.seated.render import HandContext, Label, MultiPick, SeatedRenderer, TableContext
from bot.seated.spec import Challenge, OptionSpec, SeatedSpec, turn_option
from bot.seated.start import new_seed
from bot.storage import PlayerResult, PlayerStats, StoredGame
from bot.ui import GameView, PayloadView, button_payload, option_payload, select_payload

__all__ = [
    "Challenge",
    "GameHooks",
    "GameView",
    "HandContext",
    "Label",
    "Lang",
    "MultiPick",
    "OptionSpec",
    "PayloadView",
    "PlayerResult",
    "PlayerStats",
    "SeatedCog",
    "SeatedRenderer",
    "SeatedSpec",
    "StoredGame",
    "TableContext",
    "action_button",
    "button_payload",
    "group_rows",
    "hand_controls",
    "new_seed",
    "option_payload",
    "seated_group",
    "select_payload",
    "stamp",
    "turn_option",
]
