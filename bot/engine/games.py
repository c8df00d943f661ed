"""Imports every game module so each registers itself in ``GAMES``."""

from bot.engine import papayoo, spaye, speahx  # noqa: F401
