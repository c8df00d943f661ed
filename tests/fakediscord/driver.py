"""Moved to :mod:`bot.fakediscord.driver`; this name stays for existing imports (same module)."""

import sys

from bot.fakediscord import driver

sys.modules[__name__] = driver
