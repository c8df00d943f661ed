"""``/help``: every game's rules and rulings in both languages, within Discord's limits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine import GAMES
from bot.engine.lobby import Lobby
from bot.i18n import CATALOGS, LOCALES, Lang, has_key, t
from bot.settings import Settings
from cogs.help import HELP_GAMES, HelpCog, game_embeds, game_pages, overview_embed
from tests.fakediscord import FakeDiscord

RULING_KEYS = ("rulings", "bot_rulings")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
RULING_ITEM = re.compile(r"^\s*(?:-|\d+\.)\s+\*\*\[R\]\*\*", re.MULTILINE)
"""A ruling in a game's page of the docs: a list item that starts with **[R]**."""


def documented_rulings(game: str) -> int:
    """The rulings ``docs/rules/<game>.md`` lists: ``/help`` states each of them."""
    return len(RULING_ITEM.findall((DOCS / f"{game}.md").read_text(encoding="utf-8")))


NOT_PLAYABLE_YET = tuple(game for game in HELP_GAMES if game not in GAMES)
"""Games without an engine yet."""

SPAYE_ADDED = {
    "en": [
        "the drawer included",
        "the reveal of the round that drew the last one",
        "A challenge waiting for an answer blocks",
        "The final däye is challenged as a whole",
        "may play the next däye",
        "victory points are at stake with the exercise",
        "members of the committee role",
        "asked again after a refusal",
        "before any adjustment",
        "every exercise is settled",
        "happens twice",
        "closes when the clock jumps past it",
        "even if that day is later voided",
        "drawing order",
        "first day of the next month in the server's time zone",
    ],
    "fr": [
        "pas même celui qui l'a tirée",
        "la révélation du tour qui a tiré le dernier",
        "Un défi qui attend sa réponse bloque",
        "Le däye final se lance d'un bloc",
        "peut jouer le däye suivant",
        "les points de victoire sont en jeu avec l'exercice",
        "les membres du rôle du comité",
        "redemandé après un refus",
        "avant tout ajustement",
        "chaque exercice est réglé",
        "deux fois",
        "quand l'horloge saute au-delà",
        "même si la journée est ensuite annulée",
        "l'ordre de tirage",
        "premier jour du mois suivant dans le fuseau du serveur",
    ],
}
PAPAYOO_ADDED = {
    "en": ["**Pass these**", "**Choose myself**", "when everyone has passed", "90 seconds", "0 for none",
           "plays under the card winning the trick", "leads low", "passes the most dangerous cards",
           "Equal lowest scores share the win"],
    "fr": ["**Passer celles-ci**", "**Choisir moi-même**",
           "quand tout le monde a fait son écart", "90 secondes",
           "0 pour aucun", "passe sous la carte qui remporte le pli", "entame petit",
           "écarte les cartes les plus dangereuses", "partagent la victoire"],
}  # fmt: skip


SPEAHX_ADDED = {
    "en": ["the last on top", "count for the whole turn", "Only the chance card just drawn",
           "count towards the 5", "your turn ends with the refill", "may still collect",
           "exactly four jacks", "four 2s burn", "switches nothing", "gives nothing",
           "turn timer"],
    "fr": ["la dernière dessus", "valent pour tout le tour", "Seule la carte chance",
           "comptent dans les 5", "votre tour se termine", "pouvez encore ramasser",
           "exactement quatre valets", "quatre 2 brûlent", "ne change rien",
           "ne donne rien", "minuteur de tour"],
}  # fmt: skip


def test_the_games_explained_are_found_from_the_games() -> None:
    """Every registered kind with help texts, no list kept: the day game first, then the
    table games by kind; the slash command offers the same, named by their titles."""
    assert sorted(HELP_GAMES) == sorted(kind for kind in GAMES if has_key(f"help.{kind}.title"))
    assert set(HELP_GAMES) == {kind for kind in GAMES if kind != Lobby.kind}  # all explained
    order = [(GAMES[kind].max_players > 1, kind) for kind in HELP_GAMES]
    assert order == sorted(order)
    (game,) = HelpCog.help.parameters
    assert [(c.value, c.name) for c in game.choices] == [
        (kind, t(f"help.{kind}.title", "en")) for kind in HELP_GAMES
    ]
    french = [c._locale_name.extras["key"] for c in game.choices if c._locale_name is not None]
    assert french == [f"help.{kind}.title" for kind in HELP_GAMES]  # named in French too


def page_text(game: str, lang: Lang) -> str:
    return "\n".join(e.description or "" for page in game_pages(game, lang) for e in page)


@pytest.mark.parametrize("game", HELP_GAMES)
@pytest.mark.parametrize("lang", LOCALES)
def test_every_game_has_help_in_both_languages(game: str, lang: Lang) -> None:
    catalog = CATALOGS[lang]
    for part in ("title", "summary", "rules", "rulings"):
        assert catalog.get(f"help.{game}.{part}", "").strip(), f"help.{game}.{part} ({lang})"
    assert (f"help.{game}.bot_rulings" in CATALOGS["en"]) == (
        f"help.{game}.bot_rulings" in CATALOGS["fr"]
    )


@pytest.mark.parametrize("game", HELP_GAMES)
@pytest.mark.parametrize("lang", LOCALES)
def test_pages_fit_discord_limits(game: str, lang: Lang) -> None:
    pages = game_pages(game, lang)
    for page in pages:
        assert 1 <= len(page) <= 10
        assert sum(len(e) for e in page) <= 6000
        for embed in page:
            assert len(embed.title or "") <= 256
            assert len(embed.description or "") <= 4096
            assert len(embed.fields) <= 25
            assert len(embed.footer.text or "") <= 2048
    assert [e.description for page in pages for e in page] == [
        e.description for e in game_embeds(game, lang)
    ], "paging loses nothing and keeps the order"
    overview = overview_embed(lang, set())
    assert len(overview) <= 6000 and len(overview.fields) <= 25
    assert all(len(f.value or "") <= 1024 for f in overview.fields)


@pytest.mark.parametrize("game", HELP_GAMES)
def test_rulings_are_stated_in_both_languages(game: str) -> None:
    counts = {
        lang: sum(CATALOGS[lang].get(f"help.{game}.{key}", "").count("[R]") for key in RULING_KEYS)
        for lang in LOCALES
    }
    assert counts["en"] == counts["fr"] == documented_rulings(game) > 0
    for lang in LOCALES:
        assert page_text(game, lang).count("[R]") == documented_rulings(game)


@pytest.mark.parametrize("lang", LOCALES)
def test_spaye_states_the_rulings_the_bot_adds(lang: Lang) -> None:
    text = page_text("spaye", lang)
    missing = [phrase for phrase in SPAYE_ADDED[lang] if phrase not in text]
    assert not missing


@pytest.mark.parametrize("lang", LOCALES)
def test_papayoo_states_the_rulings_the_bot_adds(lang: Lang) -> None:
    text = page_text("papayoo", lang)
    missing = [phrase for phrase in PAPAYOO_ADDED[lang] if phrase not in text]
    assert not missing


@pytest.mark.parametrize("lang", LOCALES)
def test_speahx_states_the_rulings_the_bot_adds(lang: Lang) -> None:
    text = page_text("speahx", lang)
    missing = [phrase for phrase in SPEAHX_ADDED[lang] if phrase not in text]
    assert not missing


SPIT_ADDED = {
    "en": ["the two cards turn when the second one does", "row by row", "is refused",
           "the new layout comes at the block", "the first slap settles both piles",
           "fewer stock cards chooses", "decided again at every new layout",
           "then both lay out anew", "more stock cards left", "not yet a win", "500"],
    "fr": ["quand le second le fait", "rang par rang", "est refusé",
           "la nouvelle mise en place vient au blocage", "la première tape règle les deux piles",
           "le moins de cartes en réserve choisit", "se décide à nouveau",
           "refont leur mise en place", "le plus de cartes en réserve", "pas encore une victoire",
           "500"],
}  # fmt: skip


@pytest.mark.parametrize("lang", LOCALES)
def test_spit_states_the_rulings_the_bot_adds(lang: Lang) -> None:
    text = page_text("spit", lang)
    missing = [phrase for phrase in SPIT_ADDED[lang] if phrase not in text]
    assert not missing


@pytest.mark.parametrize("game", HELP_GAMES)
@pytest.mark.parametrize("lang", LOCALES)
def test_games_not_playable_yet_say_so(game: str, lang: Lang) -> None:
    first = game_pages(game, lang)[0][0].description or ""
    notice = t("help.not_playable", lang)
    assert first.startswith(notice) == (game in NOT_PLAYABLE_YET)
    here = set(HELP_GAMES[::2])  # every other game loaded here
    fields = {f.name: f.value for f in overview_embed(lang, here).fields}
    title = t(f"help.{game}.title", lang)
    key = "help.coming" if game in NOT_PLAYABLE_YET else "help.playable"
    if game not in NOT_PLAYABLE_YET and game not in here:
        key = "help.unavailable"
    status = t(key, lang)
    assert f"{title} · {status}" in fields
    assert game not in NOT_PLAYABLE_YET or "not playable yet" in t("help.coming", "en")


@pytest.mark.e2e
async def test_long_help_pages_with_buttons(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    owner = fake.add_user("Olga")
    guild = fake.add_guild("Office", owner=owner)
    general = fake.add_text_channel(guild, "general")
    ana = fake.add_user("Ana", locale="fr")
    fake.add_member(guild, ana)
    bot = GamenightBot(Settings(database_path=db_path), clock, ["cogs.help"])
    async with fake.run_client(bot):
        shown = await fake.slash(ana, general, "help", {"game": "spaye"})
        assert shown.ephemeral
        assert shown.embeds[0]["title"] == "Späye"
        assert "Page 1/2" in shown.embeds[-1]["footer"]["text"]
        buttons = {b.label: b for b in shown.buttons}
        assert buttons["Précédente"].disabled and not buttons["Suivante"].disabled

        second = await fake.click(ana, shown, label="Suivante")
        titles = [e.get("title") for e in second.embeds]
        assert t("help.bot_rulings_title", "fr") in titles
        assert any("l'horloge saute" in (e.get("description") or "") for e in second.embeds)
        assert {b.label: b.disabled for b in second.buttons} == {
            "Précédente": False,
            "Suivante": True,
        }
        back = await fake.click(ana, second, label="Précédente")
        assert back.embeds[0]["title"] == "Späye"

        short = await fake.slash(ana, general, "help", {"game": "papayoo"})
        assert short.buttons == [] and len(short.embeds) == 2
