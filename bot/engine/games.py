"""Imports every game module so each registers itself in ``GAMES``."""

from bot.engine import lobby, papayoo, spaye, speahx, spit  # noqa: F401
