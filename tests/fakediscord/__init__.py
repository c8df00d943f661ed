"""The fake Discord moved to :mod:`bot.fakediscord` (the sandbox uses it too).

``tests.fakediscord`` and its submodules ``server``, ``models``, ``driver`` and ``validation``
stay as aliases of the same modules, so existing imports keep working and see the same
classes (``isinstance`` checks agree).
"""

from bot.fakediscord import *  # noqa: F403
from bot.fakediscord import __all__ as __all__
