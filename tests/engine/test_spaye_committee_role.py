"""The committee role: the bot adds a member it saw holding the role (docs/rules/spaye.md,
"Exercise", committee *(option)*)."""

from __future__ import annotations

import pytest

from bot.engine import SYSTEM, IllegalAction, load_game
from tests.engine.test_spaye_support import NK, A, B, E, daye, illegal, own, stacked, table


def test_a_member_seen_with_the_role_may_answer_an_adjustment() -> None:
    g = stacked(table(NK, "9S", size=5), [A, B])
    daye(g, A, B)
    own(g, A, "ask_committee", reps=5)
    illegal(g, E, {"type": "approve"}, "spaye.no_request")
    events = g.apply(SYSTEM, {"type": "committee", "player": E})
    assert events == [{"type": "committee_joined", "player": E}]
    g = load_game(g.dumps())
    assert E in g.public_view()["exercises"][0]["request"]["approvers"]
    events = g.apply(E, {"type": "approve"})
    assert events[0]["type"] == "adjustment_approved" and events[0]["by"] == E


def test_only_the_bot_adds_committee_members_and_only_once() -> None:
    g = stacked(table(size=5), [A, B])
    illegal(g, A, {"type": "committee", "player": A}, "spaye.system_only")
    g.apply(SYSTEM, {"type": "committee", "player": E})
    with pytest.raises(IllegalAction) as err:
        g.apply(SYSTEM, {"type": "committee", "player": E})
    assert err.value.key == "spaye.already_committee"
    with pytest.raises(IllegalAction):
        g.apply(SYSTEM, {"type": "committee", "player": SYSTEM})
    assert {"type": "committee", "player": None} not in g.legal_actions(SYSTEM)
