"""A server's rating settings (kept as the ``ratings`` entry of ``bot.store.game_settings``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from bot.ratings.seasons import DEFAULT_PERIOD, SeasonPeriod

__all__ = ["SETTINGS_KEY", "RatingSettings"]

SETTINGS_KEY = "ratings"


class RatingSettings(BaseModel):
    """``season_period``: how long a season lasts (``/config season``)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    season_period: SeasonPeriod = DEFAULT_PERIOD
