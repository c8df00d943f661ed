"""Drive the sandbox page with Playwright and Debian's Chromium (no browser download).

Browser tests skip, with the reason, when Playwright or the Chromium binary is missing
(``CHROMIUM`` overrides ``/usr/bin/chromium``). Controls are found by role and label, or by
the page's own structure (a colleague's view, a channel's list), rarely by a bot's text.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e '.[dev]')"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set CHROMIUM)"
    return None


NO_COLOUR_EMOJI = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont>
    <rejectfont>
      <glob>*moji*</glob>
      <glob>*ymbola*</glob>
      <pattern><patelt name="color"><bool>true</bool></patelt></pattern>
    </rejectfont>
  </selectfont>
</fontconfig>
"""
"""The machine's fonts but its emoji fonts (fontconfig's own configuration language)."""


def without_emoji_fonts(folder: Path) -> dict[str, str]:
    """The environment of a Chromium that has no emoji font, whatever the machine has: as a
    colleague's machine without Debian's ``fonts-noto-color-emoji``."""
    folder.mkdir(parents=True, exist_ok=True)
    conf = folder / "fonts.conf"
    conf.write_text(NO_COLOUR_EMOJI, encoding="utf-8")
    return {**os.environ, "FONTCONFIG_FILE": str(conf)}


@contextlib.asynccontextmanager
async def chromium(profile: Path, env: Mapping[str, str] | None = None) -> AsyncIterator[Any]:
    """A headless Chromium context with a new, empty profile (``env``: its environment)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        context = await p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1600, "height": 1000},
            env=dict(env) if env is not None else None,
        )
        try:
            yield context
        finally:
            await context.close()


class PageDriver:
    """The sandbox page open in one tab, with one view per colleague named in ``names``."""

    def __init__(self, page: Any, ids: Mapping[str, str]) -> None:
        self.page = page
        self.ids = dict(ids)
        self.errors: list[str] = []
        page.on("pageerror", lambda err: self.errors.append(str(err)))

    @classmethod
    async def open(cls, context: Any, url: str, ids: Mapping[str, str]) -> PageDriver:
        page = context.pages[0] if context.pages else await context.new_page()
        driver = cls(page, ids)
        await page.goto(f"{url}/#as={','.join(ids.values())}")
        for name in ids:
            await driver.view(name).locator(".tab").first.wait_for()
        return driver

    def view(self, name: str) -> Any:
        return self.page.locator(f'.view[data-user="{self.ids[name]}"]')

    async def tab(self, name: str, kind: str) -> Any:
        """Show the view's ``general`` channel or its ``dm``; returns that channel's list."""
        view = self.view(name)
        label = re.compile(r"^@") if kind == "dm" else re.compile(rf"^# {kind}")
        await view.locator(".tab").filter(has_text=label).click()
        return view.locator(".channel-messages:not([hidden])")

    async def slash(
        self, name: str, command: str, options: Mapping[str, str] | None = None
    ) -> None:
        """Type ``/command``, pick it, fill its options (pickers by visible label) and send."""
        view = self.view(name)
        box = view.get_by_role("textbox", name="Command")
        await box.click()
        await box.fill("/" + command)
        await view.locator(f'.suggest [role=option][data-path="{command}"]').click()
        for option, value in (options or {}).items():
            field = view.locator(f'.opt-field[data-option="{option}"] .opt-input')
            if await field.evaluate("e => e.tagName") == "SELECT":
                await field.select_option(label=value)
            else:
                await field.fill(value)
        await view.get_by_role("button", name="Send").click()

    async def command_error(self, name: str) -> str:
        return str(await self.view(name).locator(".cmd-error").inner_text())
