"""Ratings and seasons across games, pure (no I/O, no clock, no Discord).

- :mod:`bot.ratings.seasons`: a server's seasons (a month, a quarter or a year in its time
  zone): their keys, bounds and labels.
- :mod:`bot.ratings.model`: the rating model (OpenSkill's Plackett-Luce), the displayed
  number, the provisional mark and the softened carry-over into a new season.
- :mod:`bot.ratings.ledger`: one finished game's update of every scope it counts in,
  the same code for the live update and for the rebuild (so both give the same numbers).

The storage is :mod:`bot.storage.ratings` (``bot.store.ratings``).
"""

from __future__ import annotations
