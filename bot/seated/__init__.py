"""The seated-game kit: what Papayoo, Speahx and Spit share on Discord.

A game's cog configures it instead of copying it::

    SPEC = SeatedSpec("papayoo", PapayooRenderer(), options=(turn_option(engine=True), ...))

    class PapayooCog(SeatedCog, name="Papayoo"):
        spec = SPEC
        papayoo = seated_group("papayoo", "Papayoo", SPEC.options, "3 to 8")

See :mod:`bot.seated.cog` for what the kit does and its rooms, :mod:`bot.seated.hooks` for
everything a game may change, :mod:`bot.seated.spec` for what it declares,
:mod:`bot.seated.render` for what a game writes (how it looks), :mod:`bot.seated.controls`
for the hand picker.
"""

from bot.seated.cog import SeatedCog
from bot.seated.commands import seated_group
from bot.seated.hooks import GameHooks
from bot.seated.render import HandContext, Label, MultiPick, SeatedRenderer, TableContext
from bot.seated.spec import Challenge, OptionSpec, SeatedSpec, turn_option
from bot.seated.start import new_seed

__all__ = [
    "Challenge",
    "GameHooks",
    "HandContext",
    "Label",
    "MultiPick",
    "OptionSpec",
    "SeatedCog",
    "SeatedRenderer",
    "SeatedSpec",
    "TableContext",
    "new_seed",
    "seated_group",
    "turn_option",
]
