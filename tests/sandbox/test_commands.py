"""The sandbox's command box refuses what Discord's client refuses, before the bot sees it."""

from __future__ import annotations

import pytest

from bot.fakediscord import FakeDiscord
from bot.sandbox.commands import CommandRefused, command_menu, find_leaf, parse_options

PAPAYOO = {
    "name": "papayoo",
    "type": 1,
    "description": "Papayoo",
    "name_localizations": {"fr": "papayoo"},
    "options": [
        {
            "type": 1,
            "name": "new",
            "description": "Open a table",
            "name_localizations": {"fr": "nouvelle"},
            "description_localizations": {"fr": "Ouvrir une table"},
            "options": [
                {
                    "type": 4,
                    "name": "rounds",
                    "description": "Rounds",
                    "min_value": 1,
                    "max_value": 20,
                },
                {
                    "type": 3,
                    "name": "mode",
                    "description": "Mode",
                    "choices": [{"name": "Fast", "value": "fast"}],
                },
            ],
        },
        {
            "type": 1,
            "name": "duel",
            "description": "Challenge",
            "options": [
                {"type": 6, "name": "colleague", "description": "Who", "required": True},
                {
                    "type": 3,
                    "name": "note",
                    "description": "Note",
                    "min_length": 2,
                    "max_length": 5,
                },
                {"type": 5, "name": "loud", "description": "Loud"},
            ],
        },
    ],
}
CONFIG = {
    "name": "config",
    "type": 1,
    "description": "Settings",
    "default_member_permissions": "32",
    "options": [],
}


@pytest.fixture
def world() -> tuple[FakeDiscord, object, object, object]:
    fake = FakeDiscord()
    guild = fake.add_guild("Office")
    ana, bob, stranger = fake.add_user("Ana"), fake.add_user("Bob"), fake.add_user("Zed")
    fake.add_member(guild, ana)
    fake.add_member(guild, bob)
    return fake, guild, bob, stranger


def parse(
    world: tuple[FakeDiscord, object, object, object], path: str, raw: dict[str, object]
) -> dict[str, object]:
    fake, guild, _, _ = world
    return parse_options(find_leaf(PAPAYOO, path), path, raw, guild, fake.users)  # type: ignore[arg-type]


def test_menu_lists_runnable_paths_in_the_users_language() -> None:
    menu = command_menu([PAPAYOO], "fr")
    assert [c["label"] for c in menu] == ["papayoo duel", "papayoo nouvelle"]
    new = next(c for c in menu if c["path"] == "papayoo new")
    assert new["description"] == "Ouvrir une table"
    assert new["options"][0] == {
        "name": "rounds",
        "label": "rounds",
        "description": "Rounds",
        "kind": "integer",
        "required": False,
        "autocomplete": False,
        "min_value": 1,
        "max_value": 20,
    }


def test_menu_leaves_out_commands_a_member_may_not_use() -> None:
    menu = command_menu([PAPAYOO, CONFIG], "en-US", allowed=lambda c: c["name"] != "config")
    assert all(not c["path"].startswith("config") for c in menu)


def test_a_group_needs_its_subcommand() -> None:
    with pytest.raises(CommandRefused, match="needs a subcommand"):
        find_leaf(PAPAYOO, "papayoo")
    with pytest.raises(CommandRefused, match="not a command"):
        find_leaf(PAPAYOO, "papayoo fly")


def test_values_are_converted(world) -> None:  # type: ignore[no-untyped-def]
    _, _, bob, _ = world
    assert parse(world, "papayoo new", {"rounds": "3", "mode": "fast"}) == {
        "rounds": 3,
        "mode": "fast",
    }
    got = parse(world, "papayoo duel", {"colleague": str(bob.id), "loud": "true", "note": ""})
    assert got == {"colleague": bob, "loud": True}


@pytest.mark.parametrize(
    ("path", "raw", "message"),
    [
        ("papayoo duel", {}, "the option colleague is required"),
        ("papayoo new", {"rounds": "0"}, "greater than or equal to 1"),
        ("papayoo new", {"rounds": "21"}, "less than or equal to 20"),
        ("papayoo new", {"rounds": "2.5"}, "is not a whole number"),
        ("papayoo new", {"rounds": "nan"}, "is not a whole number"),
        ("papayoo new", {"mode": "slow"}, "pick one of the choices"),
        ("papayoo new", {"speed": "1"}, "has no option speed"),
        ("papayoo duel", {"colleague": "12", "note": "x"}, "no such member"),
        ("papayoo duel", {"colleague": "bob"}, "pick from the list"),
    ],
)
def test_what_discord_refuses_is_refused(
    world, path: str, raw: dict[str, object], message: str
) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CommandRefused, match=message):
        parse(world, path, raw)


def test_text_length_and_strangers(world) -> None:  # type: ignore[no-untyped-def]
    _, _, bob, stranger = world
    with pytest.raises(CommandRefused, match="at least 2 characters"):
        parse(world, "papayoo duel", {"colleague": str(bob.id), "note": "x"})
    with pytest.raises(CommandRefused, match="at most 5 characters"):
        parse(world, "papayoo duel", {"colleague": str(bob.id), "note": "xxxxxx"})
    with pytest.raises(CommandRefused, match="no such member"):
        parse(world, "papayoo duel", {"colleague": str(stranger.id)})
    with pytest.raises(CommandRefused, match="True or False"):
        parse(world, "papayoo duel", {"colleague": str(bob.id), "loud": "maybe"})
