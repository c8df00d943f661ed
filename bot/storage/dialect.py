"""The one place where the repositories' SQLite SQL becomes PostgreSQL SQL.

The repositories write SQLite's SQL and never know which backend runs it;
:class:`bot.storage.postgres.PostgresDatabase` passes every statement through
:func:`translate` (cached: the repositories send a few dozen distinct statements). What
changes:

- placeholders: ``?`` becomes ``$1, $2...``; ``:name`` becomes ``$n`` with the dict's values
  in that order (:func:`bind`);
- ``BEGIN IMMEDIATE`` becomes ``BEGIN`` (the write lock is the process's own, see
  :mod:`bot.storage.postgres`);
- ``INSERT OR IGNORE`` becomes ``INSERT ... ON CONFLICT DO NOTHING``; ``INSERT OR REPLACE``
  becomes ``INSERT ... ON CONFLICT (primary key) DO UPDATE SET`` every other column given
  (the keys come from :data:`bot.storage.pg_schema.PRIMARY_KEYS`);
- functions: ``json_extract(x, '$.a.b')`` -> ``x::jsonb #>> '{a,b}'`` (text, as every JSON
  column is text on both sides), ``json_object(...)`` -> ``json_build_object(...)::text``,
  ``strftime(fmt, x)`` -> ``to_char(...)`` of the ISO text, ``datetime('now')``,
  ``ifnull`` -> ``coalesce``, ``group_concat`` -> ``string_agg``;
- ``lastrowid``: an ``INSERT`` into a table with an identity ``id``
  (:data:`bot.storage.pg_schema.IDENTITY_TABLES`) gets ``RETURNING id`` (:func:`returning_id`);
- ``rowcount``: from the command status (``UPDATE 3``, ``INSERT 0 1``; :func:`status_count`).

What needs no change, by design of the PostgreSQL schema (:mod:`bot.storage.pg_schema`):
flags stay integers 0/1 (``done = 0``, ``SUM(won)`` work as they are), JSON and timestamps
stay text (ISO 8601 UTC sorts as it compares; JSON text is compared and stored as the
repositories wrote it), ``ON CONFLICT (...) DO UPDATE SET x = excluded.x``, ``RETURNING``,
``substr``, ``coalesce``, ``||`` and ``LIMIT`` are the same in both.

Statements the bot sends to SQLite only (``PRAGMA``, ``sqlite_master``) have no
translation: :mod:`bot.storage.postgres` answers ``pragma("user_version")`` itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from bot.storage.pg_schema import IDENTITY_TABLES, PRIMARY_KEYS

__all__ = ["Translated", "bind", "returning_id", "returns_rows", "status_count", "translate"]


class Translated:
    """A statement in PostgreSQL's words, and the parameter names of a ``:name`` statement."""

    __slots__ = ("names", "sql")

    def __init__(self, sql: str, names: tuple[str, ...] | None) -> None:
        self.sql = sql
        self.names = names

    def __repr__(self) -> str:
        return f"Translated({self.sql!r}, {self.names!r})"


_NAME = re.compile(r"[A-Za-z_]\w*")


def _placeholders(sql: str) -> tuple[str, tuple[str, ...] | None]:
    """``?`` and ``:name`` to ``$n``, outside string literals, quoted names and comments."""
    out: list[str] = []
    names: list[str] = []
    count = 0
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            end = i + 1
            while end < n:
                if sql[end] == ch:
                    if end + 1 < n and sql[end + 1] == ch:  # '' inside a literal
                        end += 2
                        continue
                    break
                end += 1
            out.append(sql[i : end + 1])
            i = end + 1
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            out.append(sql[i:end])
            i = end
        elif ch == "?":
            count += 1
            out.append(f"${count}")
            i += 1
        elif ch == ":" and i + 1 < n and (sql[i + 1].isalpha() or sql[i + 1] == "_"):
            if i > 0 and sql[i - 1] == ":":  # a PostgreSQL cast (x::jsonb) is left alone
                out.append(ch)
                i += 1
                continue
            match = _NAME.match(sql, i + 1)
            name = match.group(0) if match else ""
            if name not in names:
                names.append(name)
            out.append(f"${names.index(name) + 1}")
            i += 1 + len(name)
        elif ch == ":" and i + 1 < n and sql[i + 1] == ":":
            out.append("::")
            i += 2
        else:
            out.append(ch)
            i += 1
    if names and count:
        raise ValueError("a statement mixes ? and :name placeholders")
    return "".join(out), (tuple(names) if names else None)


def _call_args(sql: str, start: int) -> tuple[list[str], int]:
    """The top-level arguments of the call whose ``(`` is at ``start``, and the index after
    its ``)``."""
    depth = 0
    args: list[str] = []
    current: list[str] = []
    i = start
    while i < len(sql):
        ch = sql[i]
        if ch == "'":
            end = sql.index("'", i + 1)
            while end + 1 < len(sql) and sql[end + 1] == "'":
                end = sql.index("'", end + 2)
            current.append(sql[i : end + 1])
            i = end + 1
            continue
        if ch == "(":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(current).strip())
                return [a for a in args if a], i + 1
        elif ch == "," and depth == 1:
            args.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    raise ValueError(f"unbalanced parentheses in {sql!r}")


def _json_path(path: str) -> str:
    """``'$.a.b'`` -> ``'{a,b}'`` (array indexes ``[0]`` become path items too)."""
    text = path.strip()
    if not (text.startswith("'$") and text.endswith("'")):
        raise ValueError(f"only literal JSON paths are translated, not {path}")
    parts = re.findall(r"\.([^.\[]+)|\[(\d+)\]", text[2:-1])
    return "'{" + ",".join(key or index for key, index in parts) + "}'"


_STRFTIME = {"%Y": "YYYY", "%m": "MM", "%d": "DD", "%H": "HH24", "%M": "MI", "%S": "SS"}


def _strftime(args: list[str]) -> str:
    fmt, value = args[0], args[1]
    if not (fmt.startswith("'") and fmt.endswith("'")):
        raise ValueError("strftime needs a literal format")
    pattern = fmt[1:-1]
    for sqlite_code, pg_code in _STRFTIME.items():
        pattern = pattern.replace(sqlite_code, pg_code)
    pattern = pattern.replace("T", '"T"')
    when = "now()" if value.strip().lower() == "'now'" else f"(({value})::text)::timestamptz"
    return f"to_char({when} AT TIME ZONE 'UTC', '{pattern}')"


_COMMA = "','"
_FUNCTIONS: dict[str, Callable[[list[str]], str]] = {
    "json_extract": lambda a: f"(({a[0]})::jsonb #>> {_json_path(a[1])})",
    "json_object": lambda a: f"json_build_object({', '.join(a)})::text",
    "strftime": _strftime,
    "datetime": lambda a: (
        "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')"
        if a == ["'now'"]
        else f"to_char(({a[0]})::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')"
    ),
    "ifnull": lambda a: f"coalesce({', '.join(a)})",
    "group_concat": lambda a: f"string_agg(({a[0]})::text, {a[1] if len(a) > 1 else _COMMA})",
}
_FUNCTION_CALL = re.compile(r"\b(" + "|".join(_FUNCTIONS) + r")\s*\(", re.IGNORECASE)


def _functions(sql: str) -> str:
    """SQLite functions with no PostgreSQL namesake (innermost calls first)."""
    while True:
        calls = list(_FUNCTION_CALL.finditer(sql))
        if not calls:
            return sql
        call = calls[-1]  # the last one starts after (or inside) every other
        args, end = _call_args(sql, call.end() - 1)
        args = [_functions(a) for a in args]
        sql = sql[: call.start()] + _FUNCTIONS[call.group(1).lower()](args) + sql[end:]


_INSERT_OR = re.compile(
    r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\w+)\s*(\(([^)]*)\))?", re.IGNORECASE
)
_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)


def _insert_or(sql: str) -> str:
    match = _INSERT_OR.match(sql)
    if match is None:
        return sql
    how, table, columns = match.group(1).upper(), match.group(2), match.group(4)
    body = f"INSERT INTO {table}" + sql[match.end(2) :]
    if how == "IGNORE":
        clause = " ON CONFLICT DO NOTHING"
    else:
        keys = PRIMARY_KEYS.get(table.lower())
        if keys is None or columns is None:
            raise ValueError(f"INSERT OR REPLACE INTO {table} needs its columns and a key")
        names = [c.strip() for c in columns.split(",")]
        rest = [c for c in names if c not in keys]
        sets = ", ".join(f"{c} = excluded.{c}" for c in rest)
        clause = f" ON CONFLICT ({', '.join(keys)}) " + (
            f"DO UPDATE SET {sets}" if sets else "DO NOTHING"
        )
    returning = _RETURNING.search(body)
    if returning is not None:
        return body[: returning.start()].rstrip() + clause + " " + body[returning.start() :]
    return body.rstrip().rstrip(";") + clause


@lru_cache(maxsize=2048)
def translate(sql: str) -> Translated:
    """``sql`` (SQLite's) as PostgreSQL runs it."""
    text, names = _placeholders(sql)
    if re.match(r"^\s*BEGIN\s+(IMMEDIATE|EXCLUSIVE|DEFERRED)\b", text, re.IGNORECASE):
        return Translated("BEGIN", None)
    text = _insert_or(text)
    if _FUNCTION_CALL.search(text):
        text = _functions(text)
    return Translated(text, names)


def bind(translated: Translated, params: Sequence[Any] | Mapping[str, Any]) -> list[Any]:
    """The arguments in ``$n`` order; booleans as the 0/1 integers the schema keeps."""
    if translated.names is not None:
        if not isinstance(params, Mapping):
            raise TypeError("a :name statement takes a dict of parameters")
        values: list[Any] = [params[name] for name in translated.names]
    elif isinstance(params, Mapping):
        raise TypeError("a ? statement takes a sequence of parameters")
    else:
        values = list(params)
    return [int(v) if isinstance(v, bool) else v for v in values]


_INSERT_INTO = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)", re.IGNORECASE)


@lru_cache(maxsize=512)
def returning_id(sql: str) -> str | None:
    """``sql`` + ``RETURNING id`` when it inserts into a table with an identity ``id`` and
    returns nothing yet (SQLite's ``lastrowid``); else ``None``."""
    match = _INSERT_INTO.match(sql)
    if match is None or match.group(1).lower() not in IDENTITY_TABLES or _RETURNING.search(sql):
        return None
    return sql.rstrip().rstrip(";") + " RETURNING id"


_ROWS = re.compile(r"^\s*(SELECT|WITH|VALUES|SHOW|TABLE)\b", re.IGNORECASE)


@lru_cache(maxsize=2048)
def returns_rows(sql: str) -> bool:
    """Whether the statement answers rows (fetched) rather than a status (executed)."""
    return bool(_ROWS.match(sql) or _RETURNING.search(sql))


def status_count(status: str | None) -> int:
    """Rows changed, from a command status (``UPDATE 3``, ``INSERT 0 1``, ``DELETE 0``)."""
    if not status:
        return -1
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else -1
