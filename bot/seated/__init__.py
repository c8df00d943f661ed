"""The seated-game kit: what Papayoo, Speahx and Spit share on Discord.

A game's cog configures it instead of copying it::

    SPEC = SeatedSpec("papayoo", PapayooRenderer(), options=(OptionSpec("rounds", ...),))

    class PapayooCog(SeatedCog, name="Papayoo"):
        spec = SPEC
        papayoo = seated_group("papayoo", "Papayoo", SPEC.options, "3 to 8")

See :mod:`bot.seated.cog` for what the kit does, :mod:`bot.seated.render` for what a game
writes (how it looks), :mod:`bot.seated.controls` for the hand picker.
"""

from bot.seated.cog import SeatedCog, SeatedSpec, new_seed
from bot.seated.commands import OptionSpec, seated_group
from bot.seated.render import HandContext, Label, MultiPick, SeatedRenderer, TableContext, mention

__all__ = [
    "HandContext",
    "Label",
    "MultiPick",
    "OptionSpec",
    "SeatedCog",
    "SeatedRenderer",
    "SeatedSpec",
    "TableContext",
    "mention",
    "new_seed",
    "seated_group",
]
