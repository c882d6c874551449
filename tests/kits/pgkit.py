"""A PostgreSQL server of the tests' own: Debian's `postgresql` binaries, a cluster made in a
temporary folder (initdb) and listening on 127.0.0.1 on a free port, one for a whole test
session (`Cluster.started`), a fresh database for each test (`new_database`), stopped and
removed at the end. Run as root (as CI runs), the cluster is the `postgres` user's:
PostgreSQL refuses to run as root. Without the binaries or psycopg, `missing` says why, and
the tests that need a server are skipped with that reason.
"""

from __future__ import annotations

import glob
import importlib.util
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

USER = "postgres"  # the system user of Debian's package, who owns the cluster when we are root
SUPERUSER = "gother"  # the cluster's own superuser, made by initdb; trusted on 127.0.0.1 only


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian keeps it off the PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_major, reverse=True)
    if found:
        return Path(found[0]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def _major(path: str) -> int:
    return int(Path(path).parts[-3]) if Path(path).parts[-3].isdigit() else 0


def missing() -> str | None:
    """Why a PostgreSQL server cannot be run here, or None when it can."""
    if importlib.util.find_spec("psycopg") is None:
        return "psycopg is not installed (pip install -e '.[postgres]')"
    if binaries() is None:
        return "PostgreSQL is not installed (apt-get install postgresql; .ci/run does)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(USER)
        except KeyError:
            return f"running as root, and there is no {USER!r} user to run PostgreSQL as"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """One PostgreSQL server on 127.0.0.1, in a folder of its own; or in a network namespace
    of a test's own (tests/e2e/netnskit.py), on an address there, trusting its subnet."""

    def __init__(self, durable: bool = False, netns: str | None = None, host: str = "127.0.0.1"):
        self.durable = durable  # False: no fsync, for tests (a benchmark measures with it)
        self.netns = netns
        self.host = host
        bindir = binaries()
        assert bindir is not None, missing()
        self.bin = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="gother-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self._names = itertools.count(1)
        if os.geteuid() == 0:
            account = pwd.getpwnam(USER)
            os.chown(self.folder, account.pw_uid, account.pw_gid)

    @classmethod
    def started(
        cls, durable: bool = False, netns: str | None = None, host: str = "127.0.0.1"
    ) -> Cluster:
        cluster = cls(durable, netns, host)
        try:
            cluster._run(
                "initdb",
                "-D",
                str(cluster.data),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            )
            if host != "127.0.0.1":  # its namespace's others connect, as a host's machines do
                with (cluster.data / "pg_hba.conf").open("a") as hba:
                    hba.write(f"host all all {host}/24 trust\n")
            cluster.start()
        except BaseException:
            cluster.remove()
            raise
        return cluster

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@{self.host}:{self.port}/{database}"

    def start(self) -> None:
        settings = f"-c listen_addresses={self.host} -p {self.port} -k {self.folder}"
        if not self.durable:
            settings += " -c fsync=off -c full_page_writes=off"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "log"),
            "-w",
            "-o",
            settings,
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """`immediate` is a crash, as far as its clients can tell."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def new_database(self) -> str:
        """A database of its own, empty: its URL."""
        import psycopg

        name = f"test_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def remove(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", USER, "--", *command]
        if self.netns is not None:  # the server, started here, lives in it
            command = ["ip", "netns", "exec", self.netns, *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/")
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}):\n{done.stderr}")
