"""Catalogs: same keys and placeholders in every language; t(); slash-command localisation."""

from __future__ import annotations

import json
import re
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
    for lang, catalog in CATALOGS.items():
        for key, text in catalog.items():
            if not key.startswith("cmd."):
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
