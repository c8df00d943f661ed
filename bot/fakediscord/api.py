"""What every part of the fake's REST API shares: Discord's error shape, JSON answers and
the request keys the middleware fills (the decoded payload, the uploaded files)."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

API = "/api/v10"


class ApiError(Exception):
    """Raised by a handler to answer with Discord's JSON error shape."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body: dict[str, Any] = {"code": code, "message": message}
        if errors:
            self.body["errors"] = errors

    @classmethod
    def from_problem(cls, problem: tuple[int, dict[str, Any]]) -> ApiError:
        status, body = problem
        return cls(status, body["code"], body["message"], body.get("errors"))

    @classmethod
    def form(cls, field: str, code: str, message: str) -> ApiError:
        return cls(
            400,
            50035,
            "Invalid Form Body",
            {field: {"_errors": [{"code": code, "message": message}]}},
        )


def json_response(data: Any, status: int = 200) -> web.Response:
    # discord.py only decodes JSON when the content type is exactly this.
    return web.Response(
        status=status,
        body=json.dumps(data).encode(),
        headers={"Content-Type": "application/json"},
    )


PAYLOAD: web.RequestKey[Any] = web.RequestKey("fake_payload", object)
FILES = web.RequestKey("fake_files", list)


def no_content() -> web.Response:
    return web.Response(status=204)
