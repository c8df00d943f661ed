"""The generic per-game settings store (``bot.store.game_settings``): one JSON object per
guild and game, validated by the game's own model before anything is written."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.spaye_settings import (
    SpayeSettings,
    parse_reminder,
    parse_weekdays,
    update_spaye_settings,
    validate,
)
from bot.storage import Store


async def test_a_guild_without_settings_gets_an_empty_object(store: Store) -> None:
    assert await store.game_settings.get(1, "spaye") == {}
    assert SpayeSettings.model_validate({}).reminder_minutes == 60


async def test_update_merges_per_game_and_keeps_games_apart(store: Store) -> None:
    await store.game_settings.update(1, "spaye", {"reminder_minutes": 30})
    await store.game_settings.update(1, "papayoo", {"rounds": 5})
    await store.game_settings.update(1, "spaye", {"open_time": "09:00"})
    assert await store.game_settings.get(1, "spaye") == {
        "reminder_minutes": 30,
        "open_time": "09:00",
    }
    assert await store.game_settings.get(1, "papayoo") == {"rounds": 5}
    assert await store.game_settings.get(2, "spaye") == {}
    assert list(await store.game_settings.guilds("spaye")) == [1]


async def test_a_refused_value_changes_nothing(store: Store) -> None:
    await store.game_settings.update(1, "spaye", {"reminder_minutes": 30}, validate=validate)
    for bad in ({"reminder_minutes": 0}, {"open_time": "9h"}, {"open_weekdays": [7]}):
        with pytest.raises(ValidationError):
            await store.game_settings.update(1, "spaye", bad, validate=validate)
    saved = await store.game_settings.get(1, "spaye")
    assert saved["reminder_minutes"] == 30 and saved["open_time"] is None


async def test_spaye_settings_have_their_defaults(store: Store) -> None:
    class Bot:
        pass

    bot = Bot()
    bot.store = store  # type: ignore[attr-defined]
    new = await update_spaye_settings(bot, 1, {"open_time": "9:05"})
    assert new.open_time == "09:05" and new.open_weekdays == (0, 1, 2, 3, 4)
    assert new.reminder_minutes == 60


def test_reminders_and_weekdays_are_read_in_both_languages() -> None:
    assert parse_reminder("1:00") == 60 and parse_reminder("0:30") == 30
    assert parse_reminder("off") is None
    for bad in ("soon", "0:00", "25:00", "1h"):
        with pytest.raises(ValueError):
            parse_reminder(bad)
    assert parse_weekdays("mon-fri") == (0, 1, 2, 3, 4)
    assert parse_weekdays("lun, mer ven") == (0, 2, 4)
    assert parse_weekdays("sat-mon") == (0, 5, 6)
    assert parse_weekdays("Friday") == (4,)
    for bad in ("", "someday", "mon-", "mon-tue-wed", "1-5"):
        with pytest.raises(ValueError):
            parse_weekdays(bad)
