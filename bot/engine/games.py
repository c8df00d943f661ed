"""Imports every game module so each registers itself in ``GAMES``."""

from bot.engine import papayoo, spaye, spit  # noqa: F401
