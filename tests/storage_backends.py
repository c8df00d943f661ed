"""A throwaway PostgreSQL server for the tests (one per session), when its binaries exist.

The server runs from a temporary folder (data and unix socket) and listens on 127.0.0.1 on
a free port, with ``trust`` authentication and no fsync. PostgreSQL refuses to run as root:
as root (CI containers) it runs as the ``postgres`` user through ``runuser``. Each test gets
a database of its own (:meth:`PostgresServer.new_database`).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["PostgresServer", "find_binaries", "unavailable_reason"]

RUN_AS = "postgres"


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (PATH first, then Debian's folders)."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def unavailable_reason() -> str | None:
    """Why no server can be started here (``None``: it can)."""
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        return "asyncpg is not installed (pip install -e '.[postgres]')"
    if find_binaries() is None:
        return "PostgreSQL binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql"
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root, and runuser is missing to start PostgreSQL as another user"
        try:
            import pwd

            pwd.getpwnam(RUN_AS)
        except KeyError:
            return f"running as root, and there is no {RUN_AS!r} user to run PostgreSQL"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    def __init__(self) -> None:
        bins = find_binaries()
        assert bins is not None
        self.bins = bins
        self.root = Path(tempfile.mkdtemp(prefix="gamenight-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.user = RUN_AS if os.geteuid() == 0 else os.environ.get("USER", "postgres")
        self._count = 0

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bins / args[0]), *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", RUN_AS, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=60)

    def start(self) -> None:
        if os.geteuid() == 0:
            import pwd

            entry = pwd.getpwnam(RUN_AS)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.root.chmod(0o700)
        done = self._run(
            "initdb", "-D", str(self.data), "-U", self.user, "-A", "trust", "-E", "UTF8",
            "--no-locale", "--no-sync",
        )  # fmt: skip
        if done.returncode:
            raise RuntimeError(f"initdb failed: {done.stderr.strip()}")
        self.launch()

    def launch(self) -> None:
        """Start the server on its data (again, after :meth:`halt`)."""
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories={self.root}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            " -c max_connections=200"
        )
        done = self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-o", options,
            "-w", "-t", "60", "start",
        )  # fmt: skip
        if done.returncode:
            log = (self.root / "log").read_text() if (self.root / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()} {log[-2000:]}")

    def halt(self) -> None:
        """Stop the server as an operator would (``pg_ctl stop -m fast``): it closes every
        connection, rolling back what is not committed."""
        done = self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        if done.returncode:
            raise RuntimeError(f"pg_ctl stop failed: {done.stderr.strip()}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    async def new_database(self) -> str:
        """A new empty database; its URL."""
        import asyncpg

        self._count += 1
        name = f"t{os.getpid()}_{self._count}_{int(time.time() * 1000) % 100000}"
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        finally:
            await conn.close()
        return self.url(name)

    async def drop_database(self, url: str) -> None:
        import asyncpg

        name = url.rsplit("/", 1)[-1]
        conn = await asyncpg.connect(self.url())
        try:
            with contextlib.suppress(asyncpg.PostgresError):
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
