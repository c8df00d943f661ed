"""The sandbox (``python -m bot --sandbox``): how fast it starts, how fast the page answers.

1. Start-up: ``python -m bot --sandbox`` as a new process on a new database, until ``GET /``
   answers 200 (median over ``--starts`` runs).
2. Clicks: a Papayoo game of three colleagues (one round) played in Chromium through the page,
   three views side by side; for every click (the pass: the suggested one, Pass these; then every card),
   the time from the click in the browser to the clicked message updated on the page.

Needs Playwright and a Chromium (``/usr/bin/chromium`` or ``CHROMIUM``), as the browser tests.

    python -m bench.sandbox_page [--starts 5]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench._latency import percentile
from tests.sandbox.browser import chromium, missing_browser
from tests.sandbox.conftest import Sandbox, run_sandbox

ROOT = Path(__file__).resolve().parents[1]

CLICK = """async ([viewSel, articleId, selector]) => {
    const view = document.querySelector(viewSel);
    const old = view.querySelector('#' + articleId);
    const button = old.querySelector(selector);
    return await new Promise((resolve) => {
        const observer = new MutationObserver(() => {
            if (view.querySelector('#' + articleId) !== old) {
                observer.disconnect();
                resolve(performance.now() - t0);
            }
        });
        observer.observe(view.querySelector('.messages'), {childList: true, subtree: true});
        setTimeout(() => { observer.disconnect(); resolve(-1); }, 5000);
        const t0 = performance.now();
        button.click();
    });
}"""

PLAYABLE = """list => {
    const buttons = Array.from(list.querySelectorAll('article.msg button[data-action=click]'));
    if (!buttons.length) return null;
    const article = buttons[buttons.length - 1].closest('article');
    return [article.id, article.querySelector('button[data-action=click]').dataset.customId];
}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_once(folder: Path) -> float:
    """Seconds from starting ``python -m bot --sandbox`` to the page answering."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DISCORD_TOKEN", "LOG_LEVEL"}}
    env["PYTHONPATH"] = str(ROOT)
    started = time.perf_counter()
    proc = subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "bot", "--sandbox", "--port", str(port)],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as res:
                    if res.status == 200:
                        return time.perf_counter() - started
            except OSError:
                if proc.poll() is not None or time.perf_counter() - started > 60:
                    raise RuntimeError("the sandbox did not start") from None
                time.sleep(0.01)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


async def click(page: Any, user: str, article: str, selector: str) -> float:
    ms = await page.evaluate(CLICK, [f'.view[data-user="{user}"]', article, selector])
    if ms < 0:
        raise RuntimeError(f"no update of {article} after a click on {selector}")
    return float(ms)


async def play_round(box: Sandbox, page: Any, ids: dict[str, str]) -> dict[str, list[float]]:
    views = {n: page.locator(f'.view[data-user="{i}"]') for n, i in ids.items()}
    general = views["Ana"].locator(".channel-messages:not([hidden])")
    box_input = views["Ana"].get_by_role("textbox", name="Command")
    await box_input.click()
    await box_input.fill("/papayoo begin")
    await views["Ana"].locator('.suggest [role=option][data-path="papayoo begin"]').click()
    await views["Ana"].locator('.opt-field[data-option="rounds"] .opt-input').fill("1")
    await views["Ana"].get_by_role("button", name="Send").click()
    for name in ("Bob", "Cid"):
        await views[name].get_by_role("button", name="Join").last.click()
        await general.locator("article.msg").filter(has_text=f"@{name}").last.wait_for()
    await general.get_by_role("button", name="Start").last.click()
    times: dict[str, list[float]] = {"pass": [], "card": []}
    dms = {}
    for name, view in views.items():
        await view.locator(".tab").filter(has_text="@").click()
        dms[name] = view.locator(".channel-messages:not([hidden])")
    for name in views:
        accept = 'button[data-custom-id*=":pick:"]:not([disabled])'  # "Pass these"
        hand = dms[name].locator("article.msg").filter(has=page.locator(accept)).last
        await hand.wait_for()
        article = await hand.get_attribute("id")
        times["pass"].append(await click(page, ids[name], article, accept))
    clicked: set[str] = set()
    idle_since = time.perf_counter()
    while time.perf_counter() - idle_since < 5:
        for name in views:
            found = await dms[name].evaluate(PLAYABLE)
            if found and found[1] not in clicked:
                article, custom_id = found
                clicked.add(custom_id)
                selector = f'button[data-custom-id="{custom_id}"]'
                times["card"].append(await click(page, ids[name], article, selector))
                idle_since = time.perf_counter()
                break
        else:
            await asyncio.sleep(0.02)
    return times


async def clicks(folder: Path) -> dict[str, list[float]]:
    async with (
        run_sandbox(folder / "data" / "sandbox.sqlite3", users=3) as box,
        chromium(folder / "profile") as context,
    ):
        ids = {n: box.user(n) for n in ("Ana", "Bob", "Cid")}
        page = context.pages[0] if context.pages else await context.new_page()
        page.set_default_timeout(10_000)
        await page.goto(f"{box.url}/#as={','.join(ids.values())}")
        for i in ids.values():
            await page.locator(f'.view[data-user="{i}"] .tab').first.wait_for()
        times = await play_round(box, page, ids)
        (game,) = await box.page.bot.store.games.find(kind="papayoo", status=None)
        times["status"] = [1.0 if game.status == "over" else 0.0]
        return times


def line(label: str, ms: list[float]) -> str:
    return (
        f"{label}: {len(ms)} clicks, p50 {statistics.median(ms):.1f} ms, "
        f"p90 {percentile(ms, 0.9):.1f} ms, max {max(ms):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=5, help="start-ups to time (default 5)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        starts = []
        for n in range(args.starts):
            folder = Path(tmp) / f"start{n}"
            folder.mkdir()
            starts.append(start_once(folder))
        print(
            f"start-up to the page answering: median {statistics.median(starts):.2f} s "
            f"over {len(starts)} starts (min {min(starts):.2f} s, max {max(starts):.2f} s)"
        )
        reason = missing_browser()
        if reason:
            print(f"clicks: skipped ({reason})")
            return
        times = asyncio.run(clicks(Path(tmp) / "clicks"))
    over = "the game ended" if times.pop("status") == [1.0] else "the game did NOT end"
    print(f"Papayoo, 3 colleagues, 1 round in Chromium ({over}):")
    print("  " + line("pass (Pass these)", times["pass"]))
    print("  " + line("cards", times["card"]))
    print("  " + line("every click", times["pass"] + times["card"]))


if __name__ == "__main__":
    main()
