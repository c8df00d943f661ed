"""Moved to :mod:`bot.fakediscord.validation`; this name stays for existing imports (same module)."""

import sys

from bot.fakediscord import validation

sys.modules[__name__] = validation
