"""Catalogs: same keys and placeholders in every language; t(); slash-command localisation."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import discord
import pytest
from discord import app_commands

from bot.i18n import (
    CATALOGS,
    LOCALES,
    LOCALES_DIR,
    GamenightTranslator,
    has_key,
    load_catalogs,
    locale_for_guild,
    locale_for_user,
    normalize_locale,
    placeholders,
    plural_forms,
    t,
)
from bot.storage import GuildSettings
from tests.bot.fakes import FakeInteraction

NAME = re.compile(r"^[-_\w]{1,32}$")
PAIRS = (("en", "fr"), ("fr", "en"))


def test_every_language_has_the_same_keys() -> None:
    only = {lang: sorted(set(CATALOGS[lang]) - set(CATALOGS[other])) for lang, other in PAIRS}
    assert only == {"en": [], "fr": []}, f"keys in one language only: {only}"


def test_nothing_empty() -> None:
    empty = [f"{key} ({lang})" for lang in LOCALES for key, text in CATALOGS[lang].items()
             if not text.strip()]  # fmt: skip
    assert not empty, f"{len(empty)} empty texts: {', '.join(empty)}"


def test_same_placeholders() -> None:
    differ = [
        f"{key}: en {sorted(placeholders(en))} fr {sorted(placeholders(fr))}"
        for key, en in sorted(CATALOGS["en"].items())
        if (fr := CATALOGS["fr"].get(key)) is not None and placeholders(en) != placeholders(fr)
    ]
    assert not differ, "placeholders differ:\n" + "\n".join(differ)


def _specs(text: str) -> list[tuple[str, str]]:
    return [(name, spec) for _, name, spec, _ in string.Formatter().parse(text) if name and spec]


def test_plurals_are_well_formed() -> None:
    """Every ``{n:plural:one|other}`` has two forms. Its number counts as a placeholder (the
    same in en and fr, :func:`test_same_placeholders`), whichever language needs the plural:
    English agrees a verb ("wins"), French an adjective too ("brûlées")."""
    bad = []
    for lang in LOCALES:
        for key, text in CATALOGS[lang].items():
            try:
                for _, spec in _specs(text):
                    plural_forms(spec)
            except ValueError as err:
                bad.append(f"{key} ({lang}): {err}")
    assert not bad, "bad plurals:\n" + "\n".join(bad)
    assert placeholders("{n} {n:plural:card|cards}") == placeholders("{n} cartes") == {"n"}


def test_no_catalog_text_writes_a_plural_by_hand() -> None:
    """No "card(s)" nor "jeu(x)": a text says the form its number takes (``{n:plural:...}``)."""
    hand = re.compile(r"\w\((s|x|e|es)\)")
    found = [f"{key} ({lang})" for lang in LOCALES for key, text in CATALOGS[lang].items()
             if hand.search(text)]  # fmt: skip
    assert not found, f"plurals written by hand: {', '.join(found)}"


@pytest.mark.parametrize(
    ("lang", "count", "expected"),
    [
        ("en", 0, "0 cards left · Ana and Bob win"),
        ("en", 1, "1 card left · Ana wins"),
        ("en", 2, "2 cards left · Ana and Bob win"),
        ("fr", 0, "0 carte restante · Ana et Bob gagnent"),
        ("fr", 1, "1 carte restante · Ana gagne"),
        ("fr", 2, "2 cartes restantes · Ana et Bob gagnent"),
    ],
)
def test_t_picks_the_plural_form_of_each_language(
    lang: str, count: int, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = {
        "en": "{n} {n:plural:card|cards} left · {who} {names:plural:wins|win}",
        "fr": "{n} {n:plural:carte|cartes} restante{n:plural:|s} · {who} {names:plural:gagne|gagnent}",
    }
    monkeypatch.setitem(CATALOGS[lang], "test.plural", texts[lang])  # type: ignore[index]
    names = ["Ana"] if count == 1 else ["Ana", "Bob"]
    who = names[0] if count == 1 else {"en": "Ana and Bob", "fr": "Ana et Bob"}[lang]
    assert t("test.plural", lang, n=count, who=who, names=names) == expected
    assert placeholders(texts[lang]) == {"n", "who", "names"}


def test_the_catalogs_say_one_and_several_right() -> None:
    """The texts that said "1 deck(s)", "(1 cards)", "0 card(s) left", "(2 to 2 players)" and
    "@Cid win and do the exercise"."""
    assert t("speahx.title", "en", game_id=4, players=2, decks=1).endswith("2 players · 1 deck")
    assert t("speahx.title", "fr", game_id=4, players=3, decks=2).endswith("3 joueurs · 2 jeux")
    assert t("speahx.ev.collect", "en", player="Ana", count=1) == "Ana collects the pile (1 card)."
    assert "(0 carte)" in t("speahx.ev.collect", "fr", player="Ana", count=0)
    assert t("spit.result_line", "en", player="Ana", left=0) == "Ana: 0 cards left"
    assert t("spit.result_line", "fr", player="Ana", left=1) == "Ana : 1 carte restante"
    assert t("lobby.seats", "en", min=2, max=2) == "2 players"
    assert t("lobby.seats_range", "fr", min=3, max=8) == "3 à 8 joueurs"
    one = t("spaye.reveal.final_nikayes", "en", players="Cid", count=1)
    assert one.endswith("Cid wins and does the exercise.")
    two = t("spaye.reveal.final_nikayes", "fr", players="Ana et Cid", count=2)
    assert two.endswith("Ana et Cid gagnent et font l'exercice.")
    assert t("spaye.reveal.final_nikayes", "fr", players="Cid", count=1).endswith(
        "Cid gagne et fait l'exercice."
    )
    assert t("papayoo.trick.won_line", "en", winner="Bob", cards="5♠", points=1).endswith(
        "1 point."
    )


def test_a_plural_without_its_number_shows_the_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CATALOGS["en"], "test.plural", "{n} {n:plural:card|cards} for {who}")
    assert t("test.plural", "en", who="Ana") == "{n} {n} for Ana"
    assert plural_forms("plural:a|b") == ("a", "b") and plural_forms(">3") is None
    with pytest.raises(ValueError, match="two forms"):
        plural_forms("plural:a|b|c")


def test_a_game_keeps_its_help_in_its_own_catalog() -> None:
    """``help.<game>.*`` lives in ``<game>.<lang>.json``; the core catalogs keep the shared
    ``help.*`` texts only."""
    misplaced = []
    for path in sorted(LOCALES_DIR.glob("*.json")):
        topic, _, _ = path.name.removesuffix(".json").rpartition(".")
        for key in json.loads(path.read_text(encoding="utf-8")):
            parts = key.split(".")
            if parts[0] == "help" and len(parts) == 3 and parts[1] != topic:
                misplaced.append(f"{key} in {path.name}")
    assert not misplaced, f"help keys outside their game's catalog: {', '.join(misplaced)}"


def test_each_catalog_file_pair_matches() -> None:
    files = sorted(LOCALES_DIR.glob("*.json"))
    topics: dict[str, dict[str, set[str]]] = {}
    for path in files:
        topic, _, lang = path.name.removesuffix(".json").rpartition(".")
        topics.setdefault(topic, {})[lang] = set(json.loads(path.read_text(encoding="utf-8")))
    for topic, langs in topics.items():
        assert set(langs) == {"en", "fr"}, f"{topic or 'main'} catalog missing a language"
        assert langs["en"] == langs["fr"], f"{topic or 'main'} catalogs differ"


def test_t_formats_and_falls_back() -> None:
    assert t("errors.cooldown", "en", seconds=3) == "Not so fast: try again in 3 s."
    assert t("errors.cooldown", "fr", seconds=3) == "Pas si vite : réessayez dans 3 s."
    assert t("errors.cooldown", "de", seconds=3) == t("errors.cooldown", "en", seconds=3)
    assert t("no.such.key", "fr") == "no.such.key"
    assert t("errors.cooldown", "en") == "Not so fast: try again in {seconds} s."
    assert "{seconds}" in t("errors.cooldown", "en", other=1)
    assert has_key("errors.generic", "fr") and not has_key("nope")


def test_french_missing_key_falls_back_to_english(tmp_path: Path) -> None:
    (tmp_path / "en.json").write_text('{"a": "hello {name}"}', encoding="utf-8")
    (tmp_path / "fr.json").write_text("{}", encoding="utf-8")
    catalogs = load_catalogs(tmp_path)
    assert catalogs["fr"] == {}
    assert catalogs["en"]["a"] == "hello {name}"


def test_topic_catalogs_merge_and_clashes_fail(tmp_path: Path) -> None:
    (tmp_path / "en.json").write_text('{"a": "x"}', encoding="utf-8")
    (tmp_path / "spaye.en.json").write_text('{"spaye.b": "y"}', encoding="utf-8")
    (tmp_path / "fr.json").write_text("{}", encoding="utf-8")
    assert load_catalogs(tmp_path)["en"] == {"a": "x", "spaye.b": "y"}
    (tmp_path / "zz.en.json").write_text('{"a": "z"}', encoding="utf-8")
    with pytest.raises(ValueError, match="defined twice"):
        load_catalogs(tmp_path)
    (tmp_path / "zz.en.json").unlink()
    (tmp_path / "de.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown language"):
        load_catalogs(tmp_path)


def test_locales() -> None:
    assert normalize_locale(discord.Locale.french) == "fr"
    assert normalize_locale("fr-CA") == "fr"
    assert normalize_locale("en-GB") == "en"
    assert normalize_locale(None) == "en"
    assert locale_for_user(FakeInteraction(locale=discord.Locale.french)) == "fr"  # type: ignore[arg-type]
    assert locale_for_user(FakeInteraction(locale=discord.Locale.german)) == "en"  # type: ignore[arg-type]
    assert locale_for_guild(GuildSettings(guild_id=1, locale="fr")) == "fr"
    assert locale_for_guild(None) == "en"


def test_command_keys_are_valid_discord_names_and_descriptions() -> None:
    """The shared commands' texts (``cmd.*``) and every game's (``<game>.cmd.*``): Discord
    refuses a name over 32 characters or a description over 100 in any language, and the
    sync would fail with the command missing."""
    for lang, catalog in CATALOGS.items():
        for key, text in catalog.items():
            if not (key.startswith("cmd.") or ".cmd." in key):
                continue
            if key.endswith(".name"):
                assert NAME.match(text) and text == text.lower(), f"{lang} {key}: {text!r}"
            elif key.endswith(".description"):
                assert 1 <= len(text) <= 100, f"{lang} {key}"
            else:
                pytest.fail(f"{key}: command keys end in .name or .description")
        for key, text in catalog.items():
            if key.startswith("choice."):
                assert 1 <= len(text) <= 100


async def test_translator_localises_declared_and_derived_keys() -> None:
    translator = GamenightTranslator()
    group = app_commands.Group(name="config", description="Gamenight settings for this server")

    @group.command(name="timezone", description="Time zone of the server's days and months")
    @app_commands.rename(zone=app_commands.locale_str("zone"))
    @app_commands.describe(zone=app_commands.locale_str("An IANA time zone such as Europe/Paris"))
    async def timezone(interaction: discord.Interaction, zone: str) -> None: ...

    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    tree_payload = await group.get_translated_payload(tree, translator)
    assert tree_payload["name_localizations"] == {"fr": "config"}
    sub = tree_payload["options"][0]
    assert sub["name_localizations"] == {"fr": "fuseau-horaire"}
    assert sub["description_localizations"]["fr"].startswith("Fuseau horaire")
    option = sub["options"][0]
    assert option["name_localizations"] == {"fr": "fuseau"}
    explicit = app_commands.locale_str("English", key="choice.language.auto")
    context = app_commands.TranslationContext(app_commands.TranslationContextLocation.other, None)
    assert await translator.translate(explicit, discord.Locale.french, context) == (
        "Automatique (langue du serveur)"
    )
    assert await translator.translate(explicit, discord.Locale.british_english, context) is None
