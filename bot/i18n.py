"""Translations: one helper, :func:`t`, over the catalogs in ``bot/locales/``.

Catalogs are flat JSON objects ``{"key": "text with {placeholders}"}``, one per language:
``en.json`` and ``fr.json``, plus any ``<topic>.en.json`` / ``<topic>.fr.json`` pair a cog adds
(e.g. ``spaye.en.json`` with keys prefixed ``spaye.``). A game's own pair also holds its
``/help`` texts, ``help.<game>.*`` (``cogs/help.py``). Every language has the same keys and
the same placeholders (a test checks it); a key missing in French falls back to English, a
key missing everywhere shows as itself.

Slash commands are localised by :class:`GamenightTranslator`. A command's name and
description need nothing more than catalog entries under derived keys::

    cmd.config.name / cmd.config.description                 (group or command)
    cmd.config.timezone.name / cmd.config.timezone.description
    cmd.config.timezone.zone.name / ...description           (parameter ``zone``)

Parameter texts and choice names are translated only when declared with
``app_commands.locale_str("English text")`` (optionally ``key="..."`` to pick the key; choices
need one). Game terms stay as the rules name them: däye, nikäye, Späye, Papayoo, Speah!.

Plurals: a placeholder followed by ``:plural:`` and two forms, singular then plural, picks the
form that agrees with its number, and shows only that form::

    "{count} {count:plural:card|cards} left"          -> "1 card left", "0 cards left"
    "{count} {count:plural:carte|cartes} restante{count:plural:|s}"  -> "0 carte restante"
    "{players} {count:plural:wins|win}"               -> "@Ana wins", "@Ana and @Bob win"

English takes the singular for 1 only, French for 0 and 1 (any number below 2). The number
may also be a list or another sized value (its length counts). A form holds no ``{``, ``}``,
``|`` or ``:``; an empty form is allowed (``{n:plural:|s}``). The plural's number is a
placeholder like any other (:func:`placeholders`): en and fr name the same ones, each
language choosing where it needs a plural. The catalog tests check every plural has two
forms and that no text writes one by hand ("card(s)").
"""

from __future__ import annotations

import json
import logging
import string
from collections.abc import Mapping, Sized
from pathlib import Path
from typing import Any, Final, Literal, Protocol, TypeAlias

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

__all__ = [
    "CATALOGS",
    "DEFAULT_LOCALE",
    "LOCALES",
    "GamenightTranslator",
    "Lang",
    "has_key",
    "load_catalogs",
    "locale_for_guild",
    "locale_for_user",
    "normalize_locale",
    "placeholders",
    "plural_forms",
    "t",
]

log = logging.getLogger("gamenight.i18n")

Lang: TypeAlias = Literal["en", "fr"]
LOCALES: tuple[Lang, ...] = ("en", "fr")
DEFAULT_LOCALE: Lang = "en"
LOCALES_DIR = Path(__file__).parent / "locales"


def load_catalogs(directory: Path = LOCALES_DIR) -> dict[Lang, dict[str, str]]:
    """Read ``<lang>.json`` and ``<topic>.<lang>.json`` for every language.

    A key defined in two files of one language is an error (two cogs fighting over it).
    """
    catalogs: dict[Lang, dict[str, str]] = {lang: {} for lang in LOCALES}
    for path in sorted(directory.glob("*.json")):
        lang = path.name.removesuffix(".json").rsplit(".", 1)[-1]
        if lang not in LOCALES:
            raise ValueError(f"{path.name}: unknown language {lang!r}")
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise ValueError(f"{path.name}: a catalog is a flat object of strings")
        target = catalogs[lang]
        clash = sorted(set(target) & set(data))
        if clash:
            raise ValueError(f"{path.name}: keys defined twice: {', '.join(clash)}")
        target.update(data)
    return catalogs


CATALOGS: dict[Lang, dict[str, str]] = load_catalogs()


class _KeepMissing(dict[str, Any]):
    """Leaves ``{unknown}`` placeholders visible rather than failing a reply."""

    def __missing__(self, key: str) -> str:
        log.warning("missing translation parameter", extra={"param": key})
        return _Missing("{" + key + "}")


PLURAL: Final = "plural:"
"""The format spec that starts a plural choice (see the module docstring)."""


def plural_forms(spec: str) -> tuple[str, str] | None:
    """The (singular, plural) forms of a ``plural:one|other`` format spec; ``None`` for any
    other spec, and :class:`ValueError` for a plural spec without exactly two forms."""
    if not spec.startswith(PLURAL):
        return None
    forms = spec.removeprefix(PLURAL).split("|")
    if len(forms) != 2:
        raise ValueError(f"a plural takes two forms (one|other), not {spec!r}")
    return forms[0], forms[1]


def is_singular(value: Any, lang: Lang) -> bool:
    """Whether ``value`` takes the singular in ``lang`` (a sized value counts its items)."""
    if isinstance(value, Sized) and not isinstance(value, str):
        value = len(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return abs(number) < 2 if lang == "fr" else number == 1


class _Formatter(string.Formatter):
    """``str.format_map`` plus the plural specs of the catalogs."""

    def __init__(self, lang: Lang) -> None:
        self.lang = lang

    def get_value(self, key: int | str, args: Any, kwargs: Mapping[str, Any]) -> Any:
        if isinstance(key, int):
            return super().get_value(key, args, kwargs)
        return kwargs[key]

    def format_field(self, value: Any, format_spec: str) -> str:
        forms = plural_forms(format_spec)
        if forms is None:
            return str(super().format_field(value, format_spec))
        if isinstance(value, _Missing):
            return str(value)
        return forms[0] if is_singular(value, self.lang) else forms[1]


class _Missing(str):
    """A parameter missing from a ``t()`` call: shown as its placeholder."""


def normalize_locale(value: str | discord.Locale | None) -> Lang:
    """Any Discord or catalog locale -> ``"fr"`` for French variants, ``"en"`` otherwise."""
    text = str(value or "").lower()
    return "fr" if text.startswith("fr") else "en"


def t(key: str, locale: str | discord.Locale | None = DEFAULT_LOCALE, /, **params: Any) -> str:
    """The text for ``key`` in ``locale`` with ``{placeholders}`` filled from ``params``."""
    lang = normalize_locale(locale)
    text = CATALOGS[lang].get(key)
    if text is None:
        text = CATALOGS[DEFAULT_LOCALE].get(key)
        if text is None:
            log.warning("missing translation", extra={"key": key, "locale": lang})
            return key
    if not params:
        return text
    try:
        if PLURAL in text:
            return _Formatter(lang).vformat(text, (), _KeepMissing(params))
        return text.format_map(_KeepMissing(params))
    except (ValueError, IndexError, AttributeError, KeyError):
        log.exception("bad translation template", extra={"key": key, "locale": lang})
        return text


def has_key(key: str, locale: str | discord.Locale | None = DEFAULT_LOCALE) -> bool:
    """Whether ``key`` has a text in ``locale`` or in English."""
    return key in CATALOGS[normalize_locale(locale)] or key in CATALOGS[DEFAULT_LOCALE]


def placeholders(text: str) -> set[str]:
    """The named placeholders of a catalog text (``"{a} and {b}"`` -> ``{"a", "b"}``)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def locale_for_user(interaction: discord.Interaction[Any]) -> Lang:
    """The language of the person who clicked or typed: French if their client is in French."""
    return normalize_locale(interaction.locale)


class _HasLocale(Protocol):
    locale: str


def locale_for_guild(source: discord.Guild | _HasLocale | None) -> Lang:
    """The language of public messages in a guild.

    Pass the guild's :class:`~bot.storage.GuildSettings` (its ``locale`` is the admin's choice or
    the guild's preferred locale), or a :class:`discord.Guild` to use its preferred locale.
    """
    if source is None:
        return DEFAULT_LOCALE
    if isinstance(source, discord.Guild):
        return normalize_locale(source.preferred_locale)
    return normalize_locale(source.locale)


def command_key(context: app_commands.TranslationContextTypes) -> str | None:
    """The catalog key derived from where a slash-command string sits (see module doc)."""
    data: Any = context.data
    loc = context.location
    if loc in (Where.command_name, Where.group_name):
        return f"cmd.{_dotted(data)}.name"
    if loc in (Where.command_description, Where.group_description):
        return f"cmd.{_dotted(data)}.description"
    if loc in (Where.parameter_name, Where.parameter_description):
        part = "name" if loc is Where.parameter_name else "description"
        return f"cmd.{_dotted(data.command)}.{data.name}.{part}"
    return None


def _dotted(command: Any) -> str:
    name = getattr(command, "qualified_name", None) or command.name
    return str(name).replace(" ", ".")


class GamenightTranslator(app_commands.Translator):
    """Gives slash commands their French names and descriptions from the ``fr`` catalog.

    English is the source text declared in code; Discord shows it for every other locale.
    """

    def __init__(self, catalogs: Mapping[Lang, Mapping[str, str]] | None = None) -> None:
        self._catalogs = catalogs if catalogs is not None else CATALOGS

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        lang = normalize_locale(locale)
        if lang == DEFAULT_LOCALE:
            return None
        key = string.extras.get("key") or command_key(context)
        if not key:
            return None
        return self._catalogs[lang].get(key)
