"""Imports every game module so each registers itself in ``GAMES``."""

<<<<<<< HEAD
from bot.engine import lobby, papayoo, spaye  # noqa: F401
=======
from bot.engine import papayoo, spaye, speahx  # noqa: F401
>>>>>>> speahx
