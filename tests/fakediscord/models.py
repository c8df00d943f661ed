"""Moved to :mod:`bot.fakediscord.models`; this name stays for existing imports (same module)."""

import sys

from bot.fakediscord import models

sys.modules[__name__] = models
