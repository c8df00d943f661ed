"""The lobby of every seated game: seats, host powers, computer seats, limits from the game."""

from __future__ import annotations

import pytest

from bot.engine import SYSTEM, IllegalAction, load_game, new_game
from bot.engine.lobby import Lobby, is_computer

HOST, ANA, BEN, CAT = "100", "200", "300", "400"


def lobby(**options: object) -> Lobby:
    game = new_game("lobby", [HOST], 1, {"game": "papayoo", **options})
    assert isinstance(game, Lobby)
    return game


def refused(game: Lobby, player: str, action: dict[str, object], key: str) -> None:
    before = game.dumps()
    with pytest.raises(IllegalAction) as err:
        game.apply(player, action)
    assert err.value.key == key
    assert game.dumps() == before


def test_host_sits_first_and_others_join_in_order() -> None:
    game = lobby()
    game.apply(ANA, {"type": "join"})
    game.apply(BEN, {"type": "join"})
    assert game.public_view()["players"] == [HOST, ANA, BEN]


def test_limits_come_from_the_game_class() -> None:
    view = lobby().public_view()
    assert (view["min_players"], view["max_players"]) == (3, 8)


def test_options_are_validated_by_the_game_itself() -> None:
    with pytest.raises(ValueError, match="rounds"):
        lobby(rounds=99)
    with pytest.raises(ValueError, match="unknown option"):
        lobby(colour="red")


def test_unknown_or_unseated_game_is_refused() -> None:
    with pytest.raises(ValueError, match="not a game played at a table"):
        new_game("lobby", [HOST], 1, {"game": "spaye"})
    with pytest.raises(ValueError, match="not a game played at a table"):
        new_game("lobby", [HOST], 1, {"game": "chess"})


def test_joining_twice_is_refused_and_changes_nothing() -> None:
    game = lobby()
    game.apply(ANA, {"type": "join"})
    refused(game, ANA, {"type": "join"}, "lobby.already_in")


def test_start_needs_min_players_and_the_host() -> None:
    game = lobby()
    game.apply(ANA, {"type": "join"})
    refused(game, HOST, {"type": "start"}, "lobby.too_few")
    game.apply(BEN, {"type": "join"})
    refused(game, ANA, {"type": "start"}, "lobby.not_host")
    events = game.apply(HOST, {"type": "start"})
    assert events == [
        {"type": "started", "game": "papayoo", "players": [HOST, ANA, BEN], "options": {}}
    ]
    assert game.is_over() and game.result()["status"] == "started"


def test_host_cancels_rather_than_leaves() -> None:
    game = lobby()
    refused(game, HOST, {"type": "leave"}, "lobby.host_leaves")
    game.apply(HOST, {"type": "cancel"})
    assert game.result()["status"] == "voided"
    refused(game, ANA, {"type": "join"}, "lobby.closed")


def test_a_full_table_refuses_a_colleague_and_a_computer() -> None:
    game = lobby()
    for i in range(7):
        game.apply(str(500 + i), {"type": "join"})
    refused(game, ANA, {"type": "join"}, "lobby.full")
    refused(game, HOST, {"type": "add_computer", "level": "easy"}, "lobby.full")


def test_computer_seats_are_added_and_removed_by_the_host() -> None:
    game = lobby()
    refused(game, ANA, {"type": "add_computer", "level": "easy"}, "lobby.not_host")
    game.apply(HOST, {"type": "add_computer", "level": "hard"})
    game.apply(HOST, {"type": "add_computer", "level": "easy"})
    view = game.public_view()
    assert view["players"] == [HOST, "cpu1", "cpu2"]
    assert view["computers"] == {"cpu1": "hard", "cpu2": "easy"}
    assert all(is_computer(p) for p in view["players"][1:])
    refused(game, HOST, {"type": "add_computer", "level": "genius"}, "lobby.bad_level")
    refused(game, HOST, {"type": "remove_computer", "player": ANA}, "lobby.not_computer")
    game.apply(HOST, {"type": "remove_computer", "player": "cpu1"})
    game.apply(HOST, {"type": "add_computer", "level": "normal"})
    assert game.public_view()["computers"] == {"cpu2": "easy", "cpu1": "normal"}


def test_only_the_bot_expires_a_lobby() -> None:
    game = lobby()
    refused(game, HOST, {"type": "expire"}, "lobby.system_only")
    assert game.auto_action(SYSTEM) == {"type": "expire"}
    game.apply(SYSTEM, {"type": "expire"})
    assert game.public_view()["status"] == "expired"


def test_round_trip_keeps_everything() -> None:
    game = lobby(rounds=2)
    game.apply(HOST, {"type": "add_computer", "level": "easy"})
    assert load_game(game.dumps()).dumps() == game.dumps()


def test_an_old_papayoo_lobby_row_loads() -> None:
    old = '{"kind":"lobby","host":"1","players":["1","2"],"options":{"rounds":2},"status":"open"}'
    game = load_game(old)
    assert isinstance(game, Lobby) and game.game == "papayoo"
