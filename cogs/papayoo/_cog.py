"""``/papayoo begin|end|stats``: Papayoo on the seated-game kit.

Everything that is not about Papayoo (lobby, table, hands, turn timer and its bounds,
notices, abandon, stats) is the kit's (:mod:`bot.seated`); this cog says which options
``/papayoo begin`` takes, how results are kept and how the game looks
(:mod:`cogs.papayoo._render`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from bot.i18n import Lang, t
from bot.seated import OptionSpec, SeatedCog, SeatedSpec, seated_group, turn_option
from bot.storage import PlayerResult, PlayerStats, StoredGame, default_results
from cogs.papayoo._render import PapayooRenderer

KIND: Final = "papayoo"
SPEC: Final = SeatedSpec(
    KIND,
    PapayooRenderer(),
    options=(
        OptionSpec("rounds", "Number of rounds, 1 to 20 (default 4)", 4, 1, 20),
        turn_option(90, engine=True),
    ),
    refresh_all=frozenset({"pass_complete", "deal", "game_over"}),
)


class PapayooCog(SeatedCog, name="Papayoo"):
    """Papayoo for 3 to 8 players."""

    spec = SPEC
    papayoo = seated_group(KIND, "Papayoo", SPEC.options, "3 to 8")

    def results(self, stored: StoredGame) -> list[PlayerResult]:
        """The engine's ranking and totals, with the rounds played (for points per round)."""
        per_round: list[dict[str, int]] = stored.game.result()["rounds"]
        lines = [
            replace(
                line,
                rounds=len(per_round),
                details={"rounds": [r.get(str(line.user_id), 0) for r in per_round]},
            )
            for line in default_results(stored)
        ]
        return self.file_results(stored, lines)

    def stats_fields(self, stats: PlayerStats, locale: Lang) -> list[tuple[str, str]]:
        average = f"{stats.points / stats.rounds:.1f}" if stats.rounds else "—"
        return [(t("papayoo.stats.average", locale), average)]
