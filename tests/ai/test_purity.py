"""The computer players are pure like the engine: importing them pulls in nothing impure."""

import subprocess
import sys

FORBIDDEN = ["discord", "asyncio", "aiosqlite", "sqlite3", "apscheduler", "datetime", "time"]
# Nor the bot's runtime: the players see views, never the storage, the UI or a cog.
FORBIDDEN_BOT = ["bot.storage", "bot.ui", "bot.private", "bot.client", "bot.timers", "bot.clock"]


def impure_imports(
    statement: str,
    forbidden: list[str] = FORBIDDEN,
    forbidden_bot: list[str] = FORBIDDEN_BOT,
    libraries: tuple[str, ...] = (),
) -> str:
    """The forbidden modules (comma-separated) that running ``statement`` imports, in a
    fresh interpreter.

    ``libraries`` are imported first and are not counted: what a library the code may use
    imports for itself (some pydantic-core releases import ``asyncio``) is not the code's
    doing."""
    preload = "".join(f"import {name}\n" for name in libraries)
    code = (
        f"import sys\n{preload}"
        "before = set(sys.modules)\n"
        f"{statement}\n"
        "new = set(sys.modules) - before\n"
        f"bad = sorted(m for m in new if m.split('.')[0] in {forbidden!r}\n"
        f"             or m.split('.')[0] == 'cogs'\n"
        f"             or any(m == b or m.startswith(b + '.') for b in {forbidden_bot!r}))\n"
        "print(','.join(bad))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_ai_imports_nothing_impure() -> None:
    out = impure_imports("import bot.ai")
    assert out == "", f"bot.ai imported: {out}"


def test_papayoo_ai_registered() -> None:
    from bot.ai import AIS

    assert "papayoo" in AIS


def test_speahx_ai_registered() -> None:
    from bot.ai import AIS

    assert "speahx" in AIS


def test_spit_ai_registered() -> None:
    from bot.ai import AIS

    assert "spit" in AIS


def test_every_ai_module_is_found() -> None:
    """No list of AIs: the package imports each of its modules, and each AI registers the
    kind it plays, a registered game."""
    import pkgutil
    import sys

    import bot.ai
    from bot.ai import AIS
    from bot.engine import GAMES

    modules = {m.name for m in pkgutil.iter_modules(bot.ai.__path__)}
    assert {f"bot.ai.{name}" for name in modules} <= set(sys.modules)
    assert {"papayoo", "speahx", "spit"} <= set(AIS) <= set(GAMES)
