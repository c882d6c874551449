"""A server with a password, met by the plain client without one: it asks, takes the next
line typed as the password (unseen on a terminal), says "wrong password" and asks again
when it is wrong, and `quit` at the question ends it. In this process, from a pipe and on
a pseudo-terminal, against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest

from tests.plain.plainkit import InProcess, PlainProcess, plain_env
from tests.plain.test_plain_pty import Pty

SECRET = "sesame"
ASKED = r"Type the server's password \(it is not shown\), or quit\.$"
PASSWORD_SERVER = pytest.mark.parametrize("config", [{"password": SECRET}], indirect=True)


@PASSWORD_SERVER
async def test_the_password_is_asked_called_wrong_and_then_opens_the_lobby(url, tmp_path):
    async with InProcess(url, tmp_path) as plain:
        await plain.transcript.until(rf"^This server needs a password\. {ASKED}")
        plain.type("guess")
        await plain.transcript.until(rf"^Wrong password\. {ASKED}")
        plain.type(SECRET)
        await plain.transcript.until(r"^Connected to ws://127\.0\.0\.1:\d+ .* as Raven\.$")
        await plain.transcript.until(r"^You are in the lobby of ")
        plain.type("quit")
        assert await plain.task == 0
    hellos = [frame.get("password") for frame in plain.sent if frame["t"] == "hello"]
    assert hellos == [None, "guess", SECRET]
    assert not any(SECRET in line or "guess" in line for line in plain.transcript.lines)


@PASSWORD_SERVER
async def test_quit_at_the_password_question_ends_the_client(url, tmp_path):
    async with InProcess(url, tmp_path) as plain:
        await plain.transcript.until(rf"^This server needs a password\. {ASKED}")
        plain.type("", "quit")  # an empty line is no password: still asked
        await plain.transcript.until(r"^Goodbye\.$")
        assert await plain.task == 0
    assert [frame["t"] for frame in plain.sent] == ["hello"]


@PASSWORD_SERVER
async def test_the_password_typed_into_a_pipe(url, tmp_path):
    env = plain_env(tmp_path / "home", LANG="C.UTF-8", TERM="dumb")
    proc = await PlainProcess.start("join", url, "--plain", "--name", "Raven", env=env)
    try:
        await proc.until(rf"^This server needs a password\. {ASKED}")
        await proc.type(SECRET, "list")  # typed ahead: list waits for the lobby
        await proc.until(r"^You are in the lobby of ")
        for _ in range(2):  # on arriving, then for the list typed ahead
            await proc.until(r"^No tables on this server yet")
        await proc.type("quit")
        assert await proc.wait() == 0
    finally:
        await proc.stop()


@PASSWORD_SERVER
async def test_on_a_terminal_the_password_is_not_echoed(url, tmp_path):
    env = plain_env(tmp_path / "home", LANG="C.UTF-8", TERM="dumb")
    pty = Pty("join", url, "--plain", "--name", "Raven", env=env)
    try:  # the pty is read on a thread: the server runs in this loop
        await asyncio.to_thread(pty.until, rb"^This server needs a password\.")
        pty.type(SECRET)
        await asyncio.to_thread(pty.until, rb"^Trying the password\.")
        await asyncio.to_thread(pty.until, rb"^No tables on this server yet")  # all of it
        pty.type("who-am-i")  # typing shows again once the password is in
        await asyncio.to_thread(pty.until, rb"^who-am-i\r$")  # the terminal's echo
        pty.type("quit")
        await asyncio.to_thread(pty.until, rb"^Goodbye\.")
        assert await asyncio.to_thread(pty.finish) == 0
    finally:
        pty.close()
    assert SECRET.encode() not in pty.seen
