"""The sandbox page in a real browser (Playwright driving Debian's Chromium): Späye, Papayoo
and time, as colleagues would play them. Skipped, with the reason, without a Chromium."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox.browser import PageDriver, chromium, missing_browser, without_emoji_fonts
from tests.sandbox.conftest import Sandbox

REASON = missing_browser()
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(REASON is not None, reason=REASON or "")]

TIMEOUT = 30_000  # ms, for anything the page waits for (generous: CI machines are shared)
ARTICLE = "article.msg"


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Any]:
    async with chromium(tmp_path / "chromium-profile") as context:
        context.set_default_timeout(TIMEOUT)
        yield context


async def open_page(sandbox: Sandbox, browser: Any, *names: str) -> PageDriver:
    driver = await PageDriver.open(browser, sandbox.url, {n: sandbox.user(n) for n in names})
    return driver


async def test_the_page_opens_and_refuses_what_discord_refuses(
    sandbox: Sandbox, browser: Any
) -> None:
    page = await open_page(sandbox, browser, "Ana", "Bob")
    assert await page.page.locator(".view").count() == 2
    who = page.view("Bob").get_by_role("combobox", name="Colleague")
    assert await who.input_value() == sandbox.user("Bob")
    await page.view("Ana").get_by_role("textbox", name="Command").click()
    suggestions = page.view("Ana").locator(".suggest .suggestion")
    help_command = suggestions.filter(has_text=re.compile(r"^/help"))
    await help_command.first.wait_for()  # the list is drawn after the click, not with it
    assert await help_command.count() == 1
    # A value out of range is refused in the command box; the bot never sees it.
    await page.slash("Ana", "config challenge-expiry", {"minutes": "5000"})
    error = page.view("Ana").locator(".cmd-error")
    await error.filter(has_text="less than or equal to 1440").wait_for()
    assert not sandbox.page.fake.interactions
    assert not page.errors


NEXT_ROUND = """([sel, cid]) => {
    const list = document.querySelector(sel);
    if (/wins the däye|nikäye!/i.test(list.textContent)) return true;
    return Array.from(list.querySelectorAll('button[data-custom-id]'))
        .some(b => /draw/i.test(b.textContent) && b.dataset.customId !== cid);
}"""


async def test_a_spaye_day_challenge_accept_draw_and_reveal(sandbox: Sandbox, browser: Any) -> None:
    page = await open_page(sandbox, browser, "Ana", "Bob")
    ana_general = await page.tab("Ana", "general")
    bob_general = await page.tab("Bob", "general")
    await page.slash("Ana", "spaye start")
    await bob_general.locator(ARTICLE).first.wait_for()
    await page.slash("Ana", "daye", {"colleague": "Bob"})
    accept = bob_general.get_by_role("button", name=re.compile("accept", re.I)).last
    await accept.click()
    wins = re.compile("wins the däye|nikäye!", re.I)  # the däye is over: a winner, or a nikäye
    for _ in range(6):  # a tie draws again, with new Draw buttons
        draw = ana_general.get_by_role("button", name=re.compile("draw", re.I)).last
        round_id = await draw.get_attribute("data-custom-id")
        for general in (ana_general, bob_general):
            await general.get_by_role("button", name=re.compile("draw", re.I)).last.click()
        await page.page.wait_for_function(
            NEXT_ROUND, arg=[f'.view[data-user="{page.ids["Ana"]}"] .messages', round_id]
        )
        if await ana_general.locator(ARTICLE).filter(has_text=wins).count():
            break
    reveal = re.compile(r"Däye #1, round \d+:")
    for general in (ana_general, bob_general):  # the reveal, seen by both
        await general.locator(ARTICLE).filter(has_text=reveal).filter(has_text=wins).wait_for()
    assert not page.errors


PLAYABLE = """list => {
    const button = Array.from(list.querySelectorAll('article.msg button[data-action=click]')).pop();
    return button ? button.closest('article').id : null;
}"""


async def private_hand(page: PageDriver, name: str) -> Any:
    """The colleague's latest private message with controls (their DMs)."""
    dm = await page.tab(name, "dm")
    hand = dm.locator(ARTICLE).filter(has=page.page.locator(".select, button[data-action=click]"))
    await hand.last.wait_for()
    return hand.last


async def test_a_papayoo_table_of_three_the_pass_and_a_first_trick(
    sandbox: Sandbox, browser: Any
) -> None:
    names = ("Ana", "Bob", "Cid")
    page = await open_page(sandbox, browser, *names)
    generals = {n: await page.tab(n, "general") for n in names}
    await page.slash("Ana", "papayoo begin")
    for name in ("Bob", "Cid"):
        await generals[name].get_by_role("button", name=re.compile("join", re.I)).last.click()
        await generals["Ana"].locator(ARTICLE).filter(has_text=f"@{name}").last.wait_for()
    await generals["Ana"].get_by_role("button", name=re.compile("start", re.I)).last.click()

    # The pass: each colleague's own hand, in their own view, with its suggested pass; Ana
    # chooses herself (one card of the suggestion swapped), the others take it in one click.
    for name in names:
        hand = await private_hand(page, name)
        hand_id = await hand.get_attribute(
            "id"
        )  # the locator stops matching once it has no controls
        view = f'.view[data-user="{page.ids[name]}"] #{hand_id}'
        shown = page.page.locator(view)
        if name == "Ana":
            await shown.get_by_role("button", name="Choose myself").click()
            ticked = shown.locator("button[data-action=click]").filter(has_text="✓")
            await ticked.first.wait_for()
            assert await ticked.count() == 5
            await ticked.first.click()  # unticked: the pass waits for a fifth card
            await shown.locator("button").filter(has_text="(4/5)").wait_for()
            spare = shown.locator("button[data-action=click]:not([disabled])")
            cards = spare.filter(has_not_text="✓").filter(has_not_text="(")
            await cards.filter(has_not_text="Untick all").last.click()
            await shown.get_by_role("button", name="Pass these").wait_for()
        before = await shown.inner_html()
        await shown.get_by_role("button", name="Pass these").click()
        # The pass is the whole choice, made at once: the hand is redrawn without it.
        await page.page.wait_for_function(
            "([id, html]) => { const a = document.querySelector(id); return a && a.innerHTML !== html; }",
            arg=[view, before],
        )
        await shown.get_by_role("button", name="Pass these").wait_for(state="detached")

    # The first trick: whoever may play has the legal cards enabled; one card each.
    played: list[str] = []
    for _ in names:
        for name in (n for n in names if n not in played):
            dm = await page.tab(name, "dm")
            hand_id = await dm.evaluate(PLAYABLE)
            if hand_id:
                break
        else:
            pytest.fail("nobody may play a card")
        card = dm.locator(f"#{hand_id}").locator("button[data-action=click]").first
        played_id = await card.get_attribute("data-custom-id")
        await card.click()
        # The hand is updated: the control of the card played is gone (a card's button shows
        # its picture and its rank, so a card of another suit may read the same).
        await page.page.wait_for_function(
            "([sel, cid]) => { const a = document.querySelector(sel);"
            " return !a || !Array.from(a.querySelectorAll('button')).some("
            "b => b.dataset.customId === cid); }",
            arg=[f'.view[data-user="{page.ids[name]}"] #{hand_id}', played_id],
        )
        played.append(name)
    assert sorted(played) == sorted(names)
    (game,) = await sandbox.page.bot.store.games.find(kind="papayoo")
    assert game.version > 1 + len(names) * 2  # the passes and three cards were applied
    assert not page.errors


async def test_moving_the_clock_past_closing_time_closes_the_day(
    sandbox: Sandbox, browser: Any
) -> None:
    page = await open_page(sandbox, browser, "Ana")
    general = await page.tab("Ana", "general")
    await page.slash("Ana", "spaye start")
    await general.locator(ARTICLE).first.wait_for()
    count = await general.locator(ARTICLE).count()
    await page.page.get_by_role("button", name="Closing time").click()
    await page.page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length > n",
        arg=[
            f'.view[data-user="{page.ids["Ana"]}"] .channel-messages:not([hidden]) {ARTICLE}',
            count,
        ],
    )
    closed = general.locator(ARTICLE).filter(has_text=re.compile(r"closed|voided|over", re.I))
    await closed.last.wait_for()
    days = await sandbox.page.bot.store.games.find(kind="spaye", status=None)
    assert [d.status for d in days] == ["voided"]
    assert not page.errors


async def times(article: Any) -> list[str]:
    """The timestamps written in a message's text, as the page shows them."""
    return [t.strip() for t in await article.locator(".content time.ts").all_inner_texts()]


PI_DAY = 1773489600  # 2026-03-14 12:00 UTC: the 14th in all but the farthest time zones


async def test_a_language_switch_reaches_the_view_side_by_side_and_times_read_in_it(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """Ana and Bob side by side; Bob switches to French: his view's command list and the
    times of a message already shown follow at once (no reload), Ana's stay English. On a
    machine without an emoji font, an emoji no font draws shows its name, not a box."""
    env = without_emoji_fonts(tmp_path / "fonts")
    async with chromium(tmp_path / "chromium-profile", env) as browser:
        browser.set_default_timeout(TIMEOUT)
        page = await open_page(sandbox, browser, "Ana", "Bob")
        now = sandbox.page.clock.now()
        soon, before = (
            int((now + d).timestamp()) for d in (timedelta(hours=3), -timedelta(hours=2))
        )
        channel = sandbox.page.bot.get_channel(sandbox.page.fake.general().id)
        sent = await channel.send(
            f"⏱ The bot plays <t:{soon}:R> (asked <t:{before}:R>, since <t:{PI_DAY}:D>) 7♥"
        )
        articles = {}
        for name in ("Ana", "Bob"):
            general = await page.tab(name, "general")
            articles[name] = general.locator(f"#m-{sent.id}")
            await articles[name].wait_for()
            assert await times(articles[name]) == ["in 3 hours", "2 hours ago", "March 14, 2026"]
        await articles["Bob"].evaluate("a => { a.dataset.kept = 'yes'; }")

        bob = page.view("Bob")
        await bob.get_by_role("combobox", name="Language").select_option(label="Français")
        await page.page.wait_for_function(
            "sel => document.querySelector(sel).dataset.locale === 'fr'",
            arg=f'.view[data-user="{page.ids["Bob"]}"]',
        )
        french = ["dans 3 heures", "il y a 2 heures", "14 mars 2026"]
        assert await times(articles["Bob"]) == french
        assert await articles["Bob"].get_attribute("data-kept") == "yes"  # not drawn again
        assert await times(articles["Ana"]) == ["in 3 hours", "2 hours ago", "March 14, 2026"]
        for name, listed, absent in (("Bob", "/aide", "/help"), ("Ana", "/help", "/aide")):
            view = page.view(name)
            await view.get_by_role("textbox", name="Command").click()
            names = view.locator(".suggest .suggest-name")
            await names.first.wait_for()
            shown = set(await names.all_inner_texts())
            assert listed in shown and absent not in shown, name

        # No font here draws the stopwatch: its name instead of a box; the heart is drawn.
        for article in articles.values():
            stopwatch = article.locator(".emoji-char").first
            assert await stopwatch.inner_text() == ":stopwatch:"
            heart = article.locator(".emoji-char").last
            assert await heart.inner_text() == "♥"
        assert not page.errors


async def test_a_thread_opens_from_its_chip_and_commands_go_there(
    sandbox: Sandbox, browser: Any, tmp_path: Path
) -> None:
    fake = sandbox.page.fake
    page = await open_page(sandbox, browser, "Ana", "Bob")
    bob_general = await page.tab("Bob", "general")
    ana = fake.users[int(sandbox.user("Ana"))]
    opening = await fake.post_message(ana, fake.general(), "Who plays today?")
    thread = await fake.start_thread(ana, opening, "Späye · Monday")
    await fake.post_message(ana, thread, "me, in the thread")
    chip = bob_general.locator(".thread-chip").filter(has_text="Späye · Monday")
    await chip.filter(has_text="1 message").wait_for()
    # Listed under #general, as Discord's channel list shows it.
    tabs = page.view("Bob").locator(".tab")
    names = [t.strip() for t in await tabs.all_inner_texts()][:2]
    assert names[0] == "# general" and names[1].startswith("↳ Späye · Monday")  # + unread
    await chip.click()
    view = page.view("Bob")
    await view.locator(".channel-title").filter(has_text="Späye · Monday").wait_for()
    # Opened beside #general, as Discord's thread panel.
    shown = view.locator(".channel-messages.thread-panel:not([hidden])")
    await shown.locator(ARTICLE).filter(has_text="me, in the thread").wait_for()
    beside = view.locator(".channel-messages.parent-panel:not([hidden])")
    await beside.locator(".thread-chip").wait_for()
    await page.slash("Bob", "help")
    await shown.locator(f"{ARTICLE}.ephemeral").first.wait_for()
    answers = [m for m in fake.messages.values() if m.channel is thread and m.ephemeral]
    assert answers and answers[0].visible_to is fake.users[int(sandbox.user("Bob"))]
    await page.page.screenshot(path=str(tmp_path / "thread.png"))
    # A moderator archives it: the header and the chip say so.
    await fake.archive_thread(thread)
    await view.locator(".channel-topic").filter(has_text="Archived thread").wait_for()
    await (await page.tab("Bob", "general")).locator(".thread-chip.archived").wait_for()
    await page.page.screenshot(path=str(tmp_path / "thread-archived.png"))
    assert not page.errors


async def test_a_game_night_is_planned_and_answered_in_the_page(
    sandbox: Sandbox, browser: Any, tmp_path: Path
) -> None:
    from zoneinfo import ZoneInfo

    fake = sandbox.page.fake
    owner = fake.users[fake.office.owner_id or 0].global_name or ""
    page = await open_page(sandbox, browser, owner, "Bob")
    zone = (await sandbox.page.bot.guild_settings(fake.office.id)).timezone
    when = (fake.clock.now() + timedelta(days=2)).astimezone(ZoneInfo(zone))
    await page.slash(owner, "gamenight plan", {"when": when.strftime("%Y-%m-%d %H:%M"),
                                               "games": "papayoo, spit", "title": "Friday cards"})  # fmt: skip
    bob_general = await page.tab("Bob", "general")
    rsvp = bob_general.locator(ARTICLE).filter(has_text="Friday cards")
    await rsvp.get_by_role("button", name="I'm in").click()
    await bob_general.locator(f"{ARTICLE}.ephemeral").filter(has_text="Saved").wait_for()
    await rsvp.filter(has_text="I'm in (1)").wait_for()
    [night] = await sandbox.page.bot.store.nights.upcoming(fake.office.id)
    assert [r.user_id for r in await sandbox.page.bot.store.nights.attendees(night.id)] == [
        int(sandbox.user("Bob"))
    ]
    await page.page.screenshot(path=str(tmp_path / "gamenight.png"))
    assert not page.errors
