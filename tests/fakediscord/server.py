"""Moved to :mod:`bot.fakediscord.server`; this name stays for existing imports (same module)."""

import sys

from bot.fakediscord import server

sys.modules[__name__] = server
