"""No secret in `ps`: every local user can read /proc/*/cmdline, so passwords come from a
file or the environment (gother_tui/cli/passwords.py), and the SSH door hands the server's
password to each session's client through a pipe, never on its command line."""

from __future__ import annotations

import re
from pathlib import Path

import asyncssh
import pytest

from gother_tui.cli import build_parser
from gother_tui.cli.passwords import CLIENT, SERVER, read_secret
from tests.kits.prockit import ServerProcess
from tests.kits.sshkit import close, open_session, read_until

SERVER_SECRET = "velvet-crypt-7"
SSH_SECRET = "bat-belfry-9"
SSH_LISTENING = re.compile(r"ssh: listening on ssh://127\.0\.0\.1:(\d+)")


def command_lines() -> dict[int, str]:
    """Every process's command line, as any user of this machine can read it."""
    lines = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                lines[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:  # gone meanwhile
                continue
    return {pid: line.decode(errors="replace") for pid, line in lines.items()}


async def test_no_password_is_on_the_command_line_of_the_server_or_a_session(tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    keys = tmp_path / "authorized_keys"
    keys.write_bytes(key.export_public_key())
    ssh_password = tmp_path / "ssh-password"
    ssh_password.write_text(SSH_SECRET + "\n")
    server = await ServerProcess.start(
        *("--db", str(tmp_path / "games.db"), "--ssh", "0"),
        *("--ssh-authorized-keys", str(keys), "--ssh-password-file", str(ssh_password)),
        env={"GOTHER_PASSWORD": SERVER_SECRET},
    )
    try:
        ssh_port = int((await server.log_line(SSH_LISTENING))[1])
        conn, process = await open_session(ssh_port, key)
        # the plain mode over a bare channel is always a fresh process (no zygote forks it):
        # its command line is there to read, where a zygote's child shows the zygote's
        plain = await conn.create_process("plain", encoding=None)
        try:
            # the lobby: the client said hello with the server's password, from the pipe
            await read_until(process, re.compile(r"(?i)tables yet"))
            await read_until(plain, re.compile(r"Connected to "))
            lines = command_lines()
            ours = f"gother_tui join {server.url} "  # other tests' clients may run meanwhile
            clients = [line for line in lines.values() if ours in line]  # fresh processes
            assert len([line for line in clients if "--plain" in line]) == 1, clients
            assert all("--password-file /dev/fd/" in line for line in clients), clients
            assert "serve" in lines[server.proc.pid]
            leaks = [line for line in lines.values() if SERVER_SECRET in line or SSH_SECRET in line]
            assert leaks == []
        finally:
            plain.close()
            await close(conn, process)
        assert SERVER_SECRET not in server.stderr and SSH_SECRET not in server.stderr
    finally:
        await server.terminate()


def secret_of(argv: list[str], secret=CLIENT) -> str | None:
    parser = build_parser()
    return read_secret(parser.parse_args(argv), parser, secret)


def test_the_command_line_wins_over_the_environment(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GOTHER_PASSWORD", "from-env")
    file = tmp_path / "pw"
    file.write_text("from-file\r\n")
    assert secret_of(["join", "ws://h:1", "--password-file", str(file)]) == "from-file"
    assert secret_of(["join", "ws://h:1"]) == "from-env"
    assert secret_of(["serve", "--password-file", str(file)], SERVER) == "from-file"
    assert secret_of(["join", "ws://h:1", "--password", "typed"]) == "typed"
    assert "can be read by every user of this machine" in capsys.readouterr().err
    monkeypatch.delenv("GOTHER_PASSWORD")
    assert secret_of(["join", "ws://h:1"]) is None


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "must hold the password on one line"),
        ("one\ntwo\n", "must hold the password on one line"),
        ("x" * 65, "password: must be 1 to 64 characters, got 65"),
    ],
)
def test_a_bad_password_file_is_a_usage_error(tmp_path, capsys, text, error):
    file = tmp_path / "pw"
    file.write_text(text)
    with pytest.raises(SystemExit):
        secret_of(["join", "ws://h:1", "--password-file", str(file)])
    assert f"--password-file {file}: {error}" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        secret_of(["join", "ws://h:1", "--password-file", str(tmp_path / "missing")])
    with pytest.raises(SystemExit):  # the value and its file: which one was meant?
        secret_of(["join", "ws://h:1", "--password", "a", "--password-file", str(file)])


def test_a_password_from_the_environment_is_checked_like_one_typed(monkeypatch, capsys):
    monkeypatch.setenv("GOTHER_PASSWORD", "x" * 65)  # longer than `hello` may carry
    with pytest.raises(SystemExit):
        secret_of(["serve"], SERVER)
    assert "$GOTHER_PASSWORD: password: must be 1 to 64" in capsys.readouterr().err
