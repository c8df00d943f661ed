"""The sandbox keeps to itself: its page answers only to its own names (no DNS rebinding), its
inner Discord only to the bot's token of this run, and bad requests get a 4xx, never a 500.

Plain HTTP through the running sandbox (``sandbox`` fixture), no browser."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from bot.sandbox.page import AllowedHosts, split_authority
from tests.sandbox.conftest import Sandbox

pytestmark = pytest.mark.e2e

REBOUND = "evil.example"
"""A name an attacker's DNS points at 127.0.0.1 once a page of theirs is open."""


def port_of(sandbox: Sandbox) -> int:
    return int(sandbox.url.rsplit(":", 1)[1])


def routes(sandbox: Sandbox) -> list[tuple[str, str, Any]]:
    """(method, path, JSON body) of every route the page serves, with working arguments."""
    fake = sandbox.page.fake
    ana = sandbox.user("Ana")
    general = str(fake.general().id)
    return [
        ("GET", "/", None),
        ("GET", "/static/app.js", None),
        ("GET", "/static/style.css", None),
        ("GET", f"/ws?user={ana}", None),
        ("GET", "/api/state", None),
        ("POST", "/api/act", {"user": ana, "kind": "slash", "channel": general, "command": "help"}),
        ("POST", "/api/clock", {"to": "day"}),
        ("POST", "/api/play", {}),
        ("POST", "/api/user", {"user": ana, "locale": "fr", "dms_open": False}),
        ("GET", "/attachments/1/x.png", None),
        ("GET", "/emojis/1.png", None),
        ("GET", "/no/such/route", None),
    ]


async def request(
    sandbox: Sandbox, method: str, path: str, body: Any, headers: dict[str, str]
) -> tuple[int, str]:
    async with sandbox.http.request(method, sandbox.url + path, json=body, headers=headers) as res:
        return res.status, await res.text()


def unchanged(sandbox: Sandbox) -> None:
    """Nothing the refused requests asked for happened."""
    fake = sandbox.page.fake
    assert not fake.interactions
    assert sandbox.page.clock.offset.total_seconds() == 0
    assert sandbox.page._playing is None
    ana = fake.users[int(sandbox.user("Ana"))]
    assert ana.locale != "fr" and ana.dms_open


async def test_a_rebound_name_gets_nothing_from_any_route(sandbox: Sandbox) -> None:
    port = port_of(sandbox)
    names = [sandbox.user(n) for n in ("Ana", "Bob")]
    for host in (f"{REBOUND}:{port}", REBOUND, f"127.0.0.1.{REBOUND}:{port}", "127.0.0.1:1"):
        for with_origin in (True, False):
            headers = {"Host": host}
            if with_origin:
                headers["Origin"] = f"http://{host}"
            for method, path, body in routes(sandbox):
                status, text = await request(sandbox, method, path, body, headers)
                assert status == 421, (host, method, path, status)
                assert not any(n in text for n in names) and "Gamenight" not in text
    unchanged(sandbox)


async def test_a_foreign_origin_is_refused_on_every_route(sandbox: Sandbox) -> None:
    port = port_of(sandbox)
    for origin in (f"http://{REBOUND}:{port}", "null", "http://127.0.0.1:1", "file://"):
        for method, path, body in routes(sandbox):
            status, text = await request(sandbox, method, path, body, {"Origin": origin})
            assert status == 403, (origin, method, path, status)
            assert "Gamenight" not in text
    unchanged(sandbox)


async def test_the_live_view_is_refused_to_a_rebound_name(sandbox: Sandbox) -> None:
    port = port_of(sandbox)
    ana = sandbox.user("Ana")
    for headers in (
        {"Host": f"{REBOUND}:{port}", "Origin": f"http://{REBOUND}:{port}"},
        {"Host": f"{REBOUND}:{port}"},
        {"Origin": f"http://{REBOUND}:{port}"},
    ):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={ana}", headers=headers):
                pass
        assert refused.value.status in (403, 421), headers
    assert not sandbox.page.views.get(int(ana))
    # The page's own names still get the view, with or without the page's Origin.
    for name in ("127.0.0.1", "localhost", "[::1]"):
        own = f"{name}:{port}"
        headers = {"Host": own, "Origin": f"http://{own}"}
        async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={ana}", headers=headers) as ws:
            assert json.loads((await ws.receive()).data)["t"] == "hello"
        status, _ = await request(sandbox, "GET", "/api/state", None, {"Host": own})
        assert status == 200


async def test_the_inner_discord_answers_only_the_bots_token_of_this_run(
    sandbox: Sandbox,
) -> None:
    fake = sandbox.page.fake
    token = fake.token
    assert token is not None and len(token) >= 32 and token != "fake-token"
    me = fake.api_base + "/users/@me"
    async with aiohttp.ClientSession() as http:
        for wrong in ("Bot fake-token", "Bot ", f"Bot {token[:-1]}", token, ""):
            async with http.get(me, headers={"Authorization": wrong}) as res:
                assert res.status == 401, wrong
        channel = fake.channels[fake.general().id]
        before = len(fake.messages)
        async with http.post(
            f"{fake.api_base}/channels/{channel.id}/messages",
            json={"content": "<@everyone> from a web page"},
            headers={"Authorization": "Bot fake-token"},
        ) as res:
            assert res.status == 401
        assert len(fake.messages) == before
        right = {"Authorization": f"Bot {token}"}
        async with http.get(me, headers=right) as res:
            assert res.status == 200
        # Under a rebound name, or from a web page, even the right token gets nothing.
        for headers in (
            {"Host": f"{REBOUND}:{fake.port}"},
            {"Origin": f"http://{REBOUND}:{fake.port}"},
            {"Origin": sandbox.url},
        ):
            async with http.get(me, headers=right | headers) as res:
                assert res.status in (403, 421), headers
                assert "Gamenight" not in await res.text()
        # The gateway closes a session identified with any other token.
        async with http.ws_connect(fake.gateway_url) as ws:
            assert json.loads((await ws.receive()).data)["op"] == 10  # HELLO
            identify = {"token": "fake-token", "intents": 0, "properties": {}}
            await ws.send_str(json.dumps({"op": 2, "d": identify}))
            async with asyncio.timeout(10):
                while not ws.closed:
                    await ws.receive()
            assert ws.close_code == 4004
        with pytest.raises(aiohttp.WSServerHandshakeError):
            async with http.ws_connect(fake.gateway_url, origin=sandbox.url):
                pass
    # The token is never kept: not in the sandbox's database.
    await sandbox.page.save_all()
    database = sandbox.page.store.path
    for path in database.parent.glob(database.name + "*"):
        assert token.encode() not in path.read_bytes(), path.name


async def raw(sandbox: Sandbox, request_line: str, body: bytes = b"", **headers: str) -> int:
    """The status of a request sent byte for byte (no client tidies its path)."""
    host, port = sandbox.url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        fields = {"Host": f"{host}:{port}", "Connection": "close", **headers}
        if body:
            fields["Content-Length"] = str(len(body))
        head = "".join(f"{k}: {v}\r\n" for k, v in fields.items())
        writer.write(f"{request_line} HTTP/1.1\r\n{head}\r\n".encode() + body)
        await writer.drain()
        async with asyncio.timeout(30):
            status_line = await reader.readline()
    finally:
        writer.close()
    return int(status_line.split()[1])


async def test_bad_paths_and_methods_get_a_4xx(sandbox: Sandbox) -> None:
    paths = [
        "/static/app.js%00.css",
        "/static/app.js%00",
        "/static/../x",
        "/static/..%2Fpage.py",
        "/static/..%2F..%2Fsettings.py",
        "/static/%2e%2e/page.py",
        "/static/index.html",
        "/static/",
        "/static/.js",
        "/static/" + "a" * 5000 + ".js",
        "/" + "a" * 9000,
        "/%ff%fe",
        "/no/such/route",
        "/api",
        "/api/nope",
        "/ws",
        "/ws?user=x",
        "/ws?user=" + "9" * 5000,
        f"/ws?user={sandbox.page.fake.bot_user.id}",
        "/attachments/x/y.png",
        "/attachments/" + "9" * 5000 + "/y.png",
        "/emojis/" + "9" * 5000 + ".png",
        "/emojis/1.exe",
    ]
    for path in paths:
        status = await raw(sandbox, f"GET {path}")
        assert 400 <= status < 500, (path[:60], status)
    wrong_methods = [
        ("GET", "/api/act"),
        ("PUT", "/api/act"),
        ("DELETE", "/api/user"),
        ("PATCH", "/api/clock"),
        ("POST", "/api/state"),
        ("POST", "/"),
        ("DELETE", "/static/app.js"),
        ("BREW", "/"),
    ]
    for method, path in wrong_methods:
        status = await raw(
            sandbox, f"{method} {path}", b"{}", **{"Content-Type": "application/json"}
        )
        assert 400 <= status < 500, (method, path, status)
    unchanged(sandbox)


async def test_bad_bodies_to_the_api_get_a_4xx(sandbox: Sandbox) -> None:
    fake = sandbox.page.fake
    ana = sandbox.user("Ana")
    general = str(fake.general().id)
    status, answer = await sandbox.act(ana, "slash", channel=general, command="help")
    assert status == 200
    message = answer["message"]
    interactions = set(fake.interactions)
    not_objects = [b"", b"{", b"[]", b"null", b'"x"', b"1", b"\xff\xfe", b'{"user": 1}x', b"[{}]"]
    for path in ("/api/act", "/api/clock", "/api/user"):
        for body in not_objects:
            status = await raw(
                sandbox, f"POST {path}", body, **{"Content-Type": "application/json"}
            )
            assert 400 <= status < 500, (path, body, status)
    junk: list[Any] = [None, [], {}, [[]], {"a": {}}, 1.5, -1, 10**30, True, "", "x" * 5000]
    fields = {
        "user": ana,
        "channel": general,
        "command": "help",
        "options": {},
        "focused": "game",
        "message": message,
        "custom_id": "nope",
        "values": ["1"],
        "interaction": "1",
    }
    for kind in ("slash", "autocomplete", "click", "select", "modal", None, [], "x"):
        for field in ("kind", *fields):
            for value in junk:
                body = {"kind": kind, **fields, field: value}
                if field == "user" and value in ("", None):
                    continue
                async with sandbox.http.post(sandbox.url + "/api/act", json=body) as res:
                    assert 400 <= res.status < 500 or res.status == 200, (body, res.status)
                    assert (await res.json()).get("ok") is not True or kind in (
                        "slash",
                        "autocomplete",
                    ), body
    for body in ({"to": None}, {"to": []}, {"to": {}}, {"to": "x" * 5000}, {}):
        async with sandbox.http.post(sandbox.url + "/api/clock", json=body) as res:
            assert res.status == 400, body
    for extra in ({"locale": []}, {"locale": {}}, {"locale": "xx"}, {"dms_open": "no"}):
        async with sandbox.http.post(sandbox.url + "/api/user", json={"user": ana, **extra}) as res:
            assert res.status == 400, extra
    for who in (None, [], {}, "x", 1, fake.bot_user.id):
        async with sandbox.http.post(sandbox.url + "/api/user", json={"user": who}) as res:
            assert 400 <= res.status < 500, who
    assert set(fake.interactions) >= interactions
    assert sandbox.page.clock.offset.total_seconds() == 0
    assert fake.users[int(ana)].locale == "en-US" and fake.users[int(ana)].dms_open
    assert not fake.internal_errors


def test_a_host_is_one_of_the_pages_names_with_its_port() -> None:
    hosts = AllowedHosts.serving("127.0.0.1", 8765, "127.0.0.1")
    for good in ("127.0.0.1:8765", "localhost:8765", "LocalHost:8765", "[::1]:8765"):
        assert hosts.allows(good), good
    for bad in (
        None,
        "",
        "evil.example:8765",
        "localhost",
        "localhost:8766",
        "localhost.:8765",
        "127.0.0.1.evil.example:8765",
        "192.168.1.2:8765",
        "::1:8765",
        "[::1:8765",
        "localhost:8765/x",
        "user@localhost:8765",
        "localhost:+8765",
        "localhost:08765x",
        "localhost: 8765",
        "localhöst:8765",
        "localhost:99999",
        "localhost:0",
    ):
        assert not hosts.allows(bad), bad
    assert hosts.allows_origin("http://localhost:8765")
    for origin in ("null", "http://evil.example:8765", "localhost:8765", "ws://localhost:8765"):
        assert not hosts.allows_origin(origin), origin
    assert split_authority("[::1]") == ("::1", 80)
    assert split_authority("Example.ORG:443") == ("example.org", 443)


def test_the_name_asked_for_and_every_address_when_listening_on_all() -> None:
    named = AllowedHosts.serving("10.0.0.5", 80, "office-box.lan")
    assert named.allows("office-box.lan") and named.allows("10.0.0.5:80")
    assert not named.allows("10.0.0.6") and not named.allows("evil.example")
    everywhere = AllowedHosts.serving("0.0.0.0", 8765, "0.0.0.0")  # noqa: S104
    assert everywhere.allows("192.168.1.2:8765") and everywhere.allows("[fe80::1]:8765")
    assert not everywhere.allows("evil.example:8765")
    assert not everywhere.allows("192.168.1.2:8766")
