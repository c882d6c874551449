"""`gother serve --processes 2 --db postgresql://…` (the installed console script): two game
processes of one host, each on its own port with its own table log, sharing the lobby; one
killed -9 is started again with its tables (or the other took them over meanwhile), and the
host's SIGTERM stops both, each leaving the lobby as it goes."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import psycopg
import pytest

from server import processes
from server.edge.elsewhere import public_url
from tests.kits.netkit import Client, close_all
from tests.kits.poll import until
from tests.kits.prockit import LISTENING, ServerProcess, run_cli
from tests.store.test_lobby_across import Lobby

pytestmark = pytest.mark.usefixtures("postgres")

STARTED = re.compile(r"process (\d) started \(pid (\d+)\)")


async def test_a_host_of_two_processes_shares_its_lobby_and_keeps_its_processes(pg_url, tmp_path):
    log = tmp_path / "log.db"
    host = await ServerProcess.start(
        "--processes", "2", "--db", pg_url, "--table-log", str(log), "--bot-delay", "0"
    )
    try:
        urls = {(await host.log_line(LISTENING, nth=n)).group(1) for n in (1, 2)}
        assert len(urls) == 2  # a port each
        assert (tmp_path / "log-0.db").exists() and (tmp_path / "log-1.db").exists()
        one, two = sorted(urls)
        ann = await Client.connect(one, "Ann")
        table = (await ann.request("create", name="Ann's", seats=3, bots=1))["table"]
        joined = await ann.request("join", table=table, seat=0)
        at_two = Lobby(await Client.connect(two, "Bo"))
        await at_two.until("one's table at two", lambda rows: table in rows)

        pids = {m.group(2) for line in host.lines if (m := STARTED.search(line))}
        holder = await pid_listening_at(one, pids)
        await close_all(ann)
        killed = await asyncio.create_subprocess_exec("kill", "-9", holder)
        assert await killed.wait() == 0
        again = (await host.log_line(LISTENING, nth=3)).group(1)  # started again
        back = await Client.connect(again, "Ann")
        seat = {"token": joined["token"], "table": table}
        resumed: dict[str, Any] = {}

        async def resume() -> None:  # the one started again reads the others' tables first
            resumed.update(await back.request("resume", **seat))
            await asyncio.sleep(0.2)

        await until(
            "joined, or sent on",
            lambda: resumed.get("code") != "no_such_table" and resumed,
            pause=resume,
        )
        if resumed.get("code") == "elsewhere":  # two took it over meanwhile (issue 34 §3)
            await close_all(back)
            back = await Client.connect(resumed["url"], "Ann")
            resumed = await back.request("resume", **seat)
        assert resumed["t"] == "joined" and resumed["table"] == table, resumed
        await at_two.until("the table at two, where it lives now", lambda rows: table in rows)
        await close_all(back, at_two.client)
    finally:
        if host.proc.returncode is None:
            assert await host.terminate() == 0
        await host.stop()
    with psycopg.connect(pg_url) as db:  # each left the lobby as it stopped
        assert db.execute("SELECT COUNT(*) FROM processes").fetchone() == (0,)


async def pid_listening_at(url: str, pids: set[str]) -> str:
    """Which of `pids` listens at `url`'s port."""
    port = url.rsplit(":", 1)[1]
    code, out, _ = await listeners()
    assert code == 0
    for line in out.splitlines():
        if f":{port} " in line:
            found = re.search(r"pid=(\d+)", line)
            assert found is not None and found.group(1) in pids, line
            return found.group(1)
    raise AssertionError(f"nobody listens at {url}:\n{out}")


async def listeners() -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        "ss", "-ltnpH", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    return process.returncode or 0, out.decode(), err.decode()


async def test_processes_go_with_a_postgresql_database_and_no_doors(tmp_path):
    code, _, err = await run_cli("serve", "--processes", "2", "--db", str(tmp_path / "g.db"))
    assert code == 2 and "--processes goes with a PostgreSQL --db, which they share" in err
    code, _, err = await run_cli(
        "serve",
        "--processes",
        "2",
        "--db",
        "postgresql://x@127.0.0.1:1/x",
        "--ssh",
        "0",
        "--ssh-open",
    )
    assert code == 2 and "run the doors with `gother door`" in err


def test_each_process_is_the_host_s_serve_with_its_own_port_and_table_log():
    argv = ["serve", "--processes=3", "--port", "9000", "--db", "postgresql://h/g"]
    argv += ["--table-log", "/var/lib/g/log.db", "--bot-delay", "0"]
    logs = processes.table_logs("/var/lib/g/log.db", 3)
    assert logs == ["/var/lib/g/log-0.db", "/var/lib/g/log-1.db", "/var/lib/g/log-2.db"]
    command = processes.process_argv(argv, 9002, logs[2])
    assert command[1:3] == ["-m", "gother_tui"]
    assert command[3:] == [
        *("serve", "--db", "postgresql://h/g", "--bot-delay", "0"),
        *("--port", "9002", "--table-log", "/var/lib/g/log-2.db"),
    ]


def test_the_host_s_public_url_gives_each_process_its_name_and_its_own_port():
    """`--public` with `--processes`: the host's name for every process (the one its
    certificate carries), the first process's port, the K-th's PORT + K; 0 stays 0 (each
    process says the port it listens on); a URL without a port is refused, saying why."""
    assert processes.publics("wss://games.example.org:8765", 3) == [
        "wss://games.example.org:8765",
        "wss://games.example.org:8766",
        "wss://games.example.org:8767",
    ]
    assert processes.publics("wss://localhost:0", 2) == ["wss://localhost:0"] * 2
    assert processes.publics("ws://[::1]:9000", 2) == ["ws://[::1]:9000", "ws://[::1]:9001"]
    with pytest.raises(processes.ProcessesRefused, match="give the first process's port"):
        processes.publics("wss://games.example.org", 2)
    argv = ["serve", "--public", "wss://g.example.org:9000", "--db", "postgresql://h/g"]
    command = processes.process_argv(argv, 9001, "/l-1.db", "wss://g.example.org:9001")
    assert command[3:] == [
        *("serve", "--db", "postgresql://h/g", "--port", "9001", "--table-log", "/l-1.db"),
        *("--public", "wss://g.example.org:9001"),
    ]


async def test_a_public_url_without_a_port_is_refused_with_processes():
    code, _, err = await run_cli(
        *("serve", "--processes", "2", "--db", "postgresql://x@127.0.0.1:1/x"),
        *("--public", "wss://games.example.org"),
    )
    assert code == 2 and "--public wss://games.example.org: with --processes" in err


def test_a_process_is_where_its_public_url_says_its_port_0_the_one_it_listens_on():
    assert public_url("0.0.0.0", 9001, True, "wss://g.example.org:0") == "wss://g.example.org:9001"
    assert public_url("0.0.0.0", 9001, True, "wss://g.example.org:443") == "wss://g.example.org:443"
    assert public_url("0.0.0.0", 9001, True, "ws://[::1]:0") == "ws://[::1]:9001"
    assert public_url("127.0.0.1", 9001, False) == "ws://127.0.0.1:9001"
