"""Polls and scheduled events in the sandbox: drawn for each colleague (their own vote, their
"Interested"), their clicks sent to the fake as that member's own actions, a poll ended by
the moved clock, and both kept across a restart."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.fakediscord.polls import POLL_RESULT
from bot.sandbox.render import RenderContext, render_events, render_message, render_poll
from bot.sandbox.world import SandboxDiscord
from tests.sandbox.conftest import Sandbox, run_sandbox
from tests.sandbox.test_sandbox import frames_until

POLL = {
    "question": {"text": "Which <evening>?"},
    "answers": [{"poll_media": {"text": t}} for t in ("Tuesday", "Thursday")],
    "duration": 24,
}


def poll_json(*, ended: bool = False, mine: bool = True) -> dict[str, Any]:
    return {
        "question": {"text": "Which <evening>?"},
        "answers": [
            {"answer_id": 1, "poll_media": {"text": "Tuesday", "emoji": {"name": "🎴"}}},
            {"answer_id": 2, "poll_media": {"text": "Thursday"}},
        ],
        "expiry": "2030-01-02T20:00:00+00:00",
        "allow_multiselect": False,
        "layout_type": 1,
        "results": {
            "is_finalized": ended,
            "answer_counts": [
                {"id": 1, "count": 3, "me_voted": mine},
                {"id": 2, "count": 1, "me_voted": False},
            ],
        },
    }


def test_a_poll_is_drawn_with_counts_the_viewers_vote_and_its_end() -> None:
    ctx = RenderContext(viewer=1)
    open_html = render_poll(poll_json(), ctx)
    assert "Which &lt;evening&gt;?" in open_html and "<evening>" not in open_html
    assert open_html.count('data-action="vote"') == 2
    assert 'data-answer-id="1"' in open_html and "3 · 75%" in open_html
    assert "poll-answer mine" in open_html and "4 votes" in open_html
    ended = render_poll(poll_json(ended=True), ctx)
    assert 'data-action="vote"' not in ended and "Poll closed" in ended and "winner" in ended
    message = {
        "id": "5",
        "type": POLL_RESULT,
        "author": {"username": "gamenight", "global_name": "Gamenight", "bot": True},
        "embeds": [
            {
                "type": "poll_result",
                "fields": [
                    {"name": "poll_question_text", "value": "Which <evening>?"},
                    {"name": "total_votes", "value": "4"},
                    {"name": "victor_answer_id", "value": "1"},
                    {"name": "victor_answer_text", "value": "Tuesday"},
                    {"name": "victor_answer_votes", "value": "3"},
                ],
            }
        ],
    }
    html = render_message(message, ctx)
    assert "has closed" in html and "<strong>Tuesday</strong> won with 3 of 4 votes" in html
    assert "victor_answer_id" not in html


def test_events_are_drawn_with_the_viewers_toggle() -> None:
    event = {
        "id": "77",
        "name": "Game <night>",
        "scheduled_start_time": "2030-01-02T19:00:00+00:00",
        "status": 1,
        "entity_metadata": {"location": "Kitchen"},
        "user_count": 2,
    }
    mine = render_events([event], {77})
    assert "Game &lt;night&gt;" in mine and "2 interested" in mine
    assert 'data-action="interest" data-event-id="77"' in mine and "✓ Interested" in mine
    assert 'data-style="F"' in mine and "Kitchen" in mine
    assert "✓" not in render_events([event], set())
    assert render_events([], set()) == ""


async def kitchen_night(fake: SandboxDiscord, owner: str, name: str = "Game night") -> Any:
    """The office's owner creates an external event in two days, by hand."""
    start = fake.clock.now() + timedelta(days=2)
    return await fake.create_event_by_hand(
        fake.users[int(owner)],  # the owner may create events
        fake.office,
        name=name,
        scheduled_start_time=start,
        scheduled_end_time=start + timedelta(hours=3),
        entity_type=3,
        entity_metadata={"location": "Kitchen"},
    )


async def test_colleagues_vote_and_the_moved_clock_ends_the_poll(sandbox: Sandbox) -> None:
    fake = sandbox.page.fake
    ana, bob = sandbox.user("Ana"), sandbox.user("Bob")
    general = fake.general()
    poll = fake._new_message(general, fake.bot_user, {"poll": POLL})
    await fake._announce_create(poll)
    async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={ana}") as ws:
        await frames_until(ws, lambda f: f.get("id") == str(poll.id))
        status, answer = await sandbox.act(ana, "vote", message=str(poll.id), answer=1)
        assert status == 200 and answer == {"ok": True}
        seen = await frames_until(ws, lambda f: f.get("id") == str(poll.id) and "mine" in f["html"])
        assert "1 vote" in seen[-1]["html"]
        # A single choice: Ana's click on the other answer moves her vote there.
        status, _ = await sandbox.act(ana, "vote", message=str(poll.id), answer=2)
        assert poll.poll.voted_by(fake.users[int(ana)]) == [2]
        status, _ = await sandbox.act(bob, "vote", message=str(poll.id), answer=2)
        assert poll.poll.count(2) == 2
        status, refused = await sandbox.act(bob, "vote", message=str(poll.id), answer=9)
        assert status == 400 and "no answer" in refused["error"]
        async with sandbox.http.post(sandbox.url + "/api/clock", json={"to": "day"}) as res:
            assert res.status == 200
        assert poll.poll.finalized
        seen = await frames_until(ws, lambda f: "poll-result" in f.get("html", ""))
        assert "<strong>Thursday</strong> won" in seen[-1]["html"]
        status, refused = await sandbox.act(ana, "vote", message=str(poll.id), answer=1)
        assert status == 400 and "ended" in refused["error"]


async def test_colleagues_mark_themselves_interested(sandbox: Sandbox) -> None:
    fake = sandbox.page.fake
    ana, bob = sandbox.user("Ana"), sandbox.user("Bob")
    connect = sandbox.http.ws_connect
    async with (
        connect(f"{sandbox.url}/ws?user={ana}") as ana_ws,
        connect(f"{sandbox.url}/ws?user={bob}") as bob_ws,
    ):
        await frames_until(ana_ws, lambda f: f["t"] == "events")
        await frames_until(bob_ws, lambda f: f["t"] == "events")
        event = await kitchen_night(fake, ana)
        seen = await frames_until(
            bob_ws, lambda f: f["t"] == "events" and "Game night" in f["html"]
        )
        assert "0 interested" in seen[-1]["html"]
        status, answer = await sandbox.act(bob, "interest", event=str(event.id))
        assert status == 200 and answer["interested"] is True
        seen = await frames_until(bob_ws, lambda f: f["t"] == "events" and "✓" in f["html"])
        assert "1 interested" in seen[-1]["html"]
        seen = await frames_until(
            ana_ws, lambda f: f["t"] == "events" and "1 interested" in f["html"]
        )
        assert "✓" not in seen[-1]["html"]
        status, answer = await sandbox.act(bob, "interest", event=str(event.id))
        assert answer["interested"] is False and event.user_count == 0
        status, _ = await sandbox.act(bob, "interest", event="123")
        assert status == 404


async def test_polls_and_events_survive_a_restart(sandbox_db: Path) -> None:
    async with run_sandbox(sandbox_db) as box:
        fake = box.page.fake
        ana = box.user("Ana")
        poll = fake._new_message(fake.general(), fake.bot_user, {"poll": POLL})
        await fake._announce_create(poll)
        await box.act(ana, "vote", message=str(poll.id), answer=1)
        event = await kitchen_night(fake, ana, "Night")
        await box.act(ana, "interest", event=str(event.id))
    async with run_sandbox(sandbox_db) as box:
        fake = box.page.fake
        again = fake.messages[poll.id].poll
        assert again is not None and again.count(1) == 1
        kept = fake.scheduled_events[event.id]
        assert kept.name == "Night" and list(kept.interested) == [int(ana)]
        assert event.id in fake.office.scheduled_events
