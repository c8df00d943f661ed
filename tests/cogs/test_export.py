"""``/config export`` end to end: the server's results as CSV attachments, safe to open in a
spreadsheet, cut to Discord's upload size or refused, for Manage Server members only."""

from __future__ import annotations

import csv
import io
import sys

import discord
import pytest

from bot.export import HEADER
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_rest_budget import bot_token_calls
from tests.cogs.test_speahx import same_deal
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeMessage
from tests.seated.driver import Seats

pytestmark = pytest.mark.e2e
COGS = ["cogs.config", "cogs.speahx"]

__fixtures__ = (same_deal,)
"""The same deal as the Speahx tests (autouse)."""


def rows_of(fake: FakeDiscord, message: FakeMessage) -> list[list[str]]:
    [attachment] = message.attachments
    data = fake.attachment_data[int(attachment["id"])]
    assert data.startswith(b"\xef\xbb\xbf")
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


async def test_an_admin_exports_the_results_and_a_member_is_refused(
    fake_discord: FakeDiscord,
    make_bot: MakeBot,
    office: Office,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        owner, bob, cid = office.owner, office.bob, office.cid
        empty = await fake.slash(owner, office.general, "config export")
        assert empty.ephemeral and "nothing to export" in empty.text

        sly = fake.add_user("=HYPERLINK(1)")
        fake.add_member(office.guild, sly)
        seats = Seats(fake, bot, "speahx", office.general, [bob, cid, sly])
        await seats.open_and_start({"turn_seconds": 0})
        await seats.play_auto()
        over = await seats.stored()
        ranking = [p for group in over.game.result()["ranking"] for p in group]

        mark = len(fake.calls)
        sent = await fake.slash(owner, office.general, "config export")
        assert sent.ephemeral and "3 rows" in sent.text, sent.text
        assert sent.response is not None
        rows = rows_of(fake, sent.response)
        assert bot_token_calls(fake, mark) == []
        assert tuple(rows[0]) == HEADER
        names = {str(bob.id): "Bob", str(cid.id): "Cid", str(sly.id): "'=HYPERLINK(1)"}
        at = rows[1][2]
        assert at.endswith("+00:00") and at.startswith("2025-03-14T")
        assert rows[1:] == [
            ["speahx", "1", at, p, names[p], str(place), str(place), str(int(place == 1)), "0", "1"]
            for place, p in enumerate(ranking, start=1)
        ]

        # Several files when one would pass the upload size (one a message), and a clear
        # refusal when even the most files allowed would not hold it (the module as the bot
        # loaded it: discord.py loads an extension afresh).
        config_module = sys.modules[type(bot.get_cog("Config")).__module__]
        monkeypatch.setattr(
            config_module, "EXPORT_MARGIN", discord.utils.DEFAULT_FILE_SIZE_LIMIT_BYTES - 200
        )
        split = await fake.slash(owner, office.general, "config export")
        parts = [m for m in split.messages if m.attachments]
        assert len(parts) == 3 and "in 3 files" in split.text, split.text
        assert all(rows_of(fake, m)[0] == list(HEADER) for m in parts)
        assert sum(len(rows_of(fake, m)) - 1 for m in parts) == 3
        monkeypatch.setattr(config_module, "EXPORT_PARTS", 2)
        refused = await fake.slash(owner, office.general, "config export")
        assert (
            refused.ephemeral
            and "too large" in refused.text
            and not refused.messages[0].attachments
        )

        # A member without Manage Server, whom a server admin let see /config: refused.
        monkeypatch.setattr(type(fake), "_check_command_allowed", lambda *args: None)
        denied = await fake.slash(bob, office.general, "config export")
        assert denied.ephemeral and "Manage Server" in denied.text, denied.text
        assert not denied.response.attachments
    await bot.store.close()
