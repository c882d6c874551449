"""`gother serve --ssh PORT`: an SSH front door to this server.

`ssh -p PORT NAME@HOST` lands straight in the full-screen client, connected to this server
as NAME. Each session runs `python -m gother_tui join ws://…` on its own pseudo-terminal:
the client's terminal type and size are passed in, window changes follow.

Access is what the host chose, never a fallback: the keys in an authorized_keys file, a
shared password (then a key gets in without it only if that file lists it), both, or
`--ssh-open` (any key). A player's key fingerprint names a private state folder for the
client it starts, so the seat token that client saves resumes the same seat when the same
key comes back. Password logins get a throw-away folder: no one can take another player's
seat by knowing a password.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import hmac
import logging
import os
import shutil
import signal
import struct
import sys
import tempfile
import termios
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

from server.attempts import Attempts, Guessing
from server.files import private_file, private_folder

log = logging.getLogger("gother.ssh")
LOOPBACK_FOR = {"", "0.0.0.0", "::", "localhost"}  # listen-everywhere hosts: dial 127.0.0.1


@dataclass(frozen=True)
class SshOptions:
    port: int
    host_key: Path  # created (ed25519) on first run when missing
    data_dir: Path  # players' client state lives under data_dir/ssh-players/
    authorized_keys: Path | None = None
    password: str | None = None
    open_access: bool = False  # --ssh-open: any key at all is let in
    # wrong passwords: waits per address, closes per connection
    guessing: Guessing = field(default_factory=Guessing)

    def __post_init__(self) -> None:
        if self.open_access and (self.authorized_keys is not None or self.password is not None):
            raise ValueError("open SSH access lets anyone in: it takes no keys file or password")
        if not self.open_access and self.authorized_keys is None and self.password is None:
            raise ValueError("the SSH door needs keys, a password or open access (none is set)")

    @property
    def access(self) -> str:
        """Who gets in, as the start-up log states it."""
        if self.open_access:
            return "OPEN (--ssh-open): any SSH key is let in"
        if self.password is None:
            return f"only keys in {self.authorized_keys}"
        if self.authorized_keys is None:
            return "the password only (no key is let in without it)"
        return f"keys in {self.authorized_keys}, or the password"


def default_data_dir(db: str) -> Path:
    """Next to the database when there is one, else the user's data folder."""
    if db != ":memory:":
        return Path(db).resolve().parent
    from platformdirs import user_data_dir

    return Path(user_data_dir("gother"))


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The door's host key, made (ed25519, 0600) on the first run."""
    if private_file(path).stat().st_size == 0:
        path.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
        log.info("ssh: created host key %s", path)
    return asyncssh.read_private_key(path)


def player_name(username: str) -> str:
    name = "".join(ch for ch in username if ch.isprintable()).strip()[:24]
    return name or "Player"


def state_dir(data_dir: Path, fingerprint: str) -> Path:
    """One folder per key (by fingerprint): the client's seat tokens for that key."""
    digest = hashlib.sha256(fingerprint.encode()).hexdigest()[:32]
    return data_dir / "ssh-players" / digest


class _Gate(asyncssh.SSHServer):
    """Authentication for one connection; remembers the key that logged in."""

    def __init__(self, options: SshOptions, guesses: Attempts) -> None:
        self.options = options
        self.guesses = guesses  # the door's, shared by every connection
        self.allowed = (
            asyncssh.read_authorized_keys(str(options.authorized_keys))
            if options.authorized_keys
            else None
        )
        self.fingerprint: str | None = None
        self.peer = ("?", 0)
        self.wrong_passwords = 0

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.peer = conn.get_extra_info("peername")[:2]

    def begin_auth(self, username: str) -> bool:
        return True  # always authenticate: even "open" access wants a key to name the seat

    def public_key_auth_supported(self) -> bool:
        return self.options.open_access or self.allowed is not None

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # Called for the key offered and again with its signature; the last call before
        # success is the key that signed, so that is the one remembered.
        # asyncssh matches `from=` options on the client's host name and address; we look
        # up no names, so the address is both (the peer's port is neither)
        address = str(self.peer[0])
        if self.allowed is not None:
            ok = self.allowed.validate(key, address, address) is not None
        else:
            ok = self.options.open_access
        self.fingerprint = key.get_fingerprint() if ok else None
        return ok

    def password_auth_supported(self) -> bool:
        return self.options.password is not None

    async def validate_password(self, username: str, password: str) -> bool:
        """Checked only once this address may guess again (the login timeout ends a wait
        too long); a few wrong ones end the connection."""
        self.fingerprint = None  # no key proved: no saved seat
        address = str(self.peer[0])
        while (wait := self.guesses.wait(address)) > 0:
            await asyncio.sleep(wait)
        right = self.options.password
        if right is not None and hmac.compare_digest(password.encode(), right.encode()):
            self.guesses.succeeded(address)
            return True
        self.guesses.failed(address)
        self.wrong_passwords += 1
        if self.wrong_passwords >= self.guesses.rules.tries:
            log.info("ssh: %s gave %d wrong passwords: disconnected", address, self.wrong_passwords)
            raise asyncssh.PermissionDenied("too many wrong passwords")
        return False


class SshFrontDoor:
    def __init__(self, options: SshOptions, host: str, ws_url_port: int, tls: bool = False):
        self.options = options
        self.host = host
        dial = "127.0.0.1" if host in LOOPBACK_FOR else host
        self.url = f"{'wss' if tls else 'ws'}://{dial}:{ws_url_port}"
        self.acceptor: asyncssh.SSHAcceptor | None = None
        self.ws_password: str | None = None  # the server's own password, handed to clients
        self.sessions: set[asyncio.Task[None]] = set()
        self.guesses = Attempts(options.guessing)

    async def start(self) -> None:
        key = load_host_key(self.options.host_key)
        private_folder(self.options.data_dir / "ssh-players")  # every key's seat tokens
        logging.getLogger("asyncssh").setLevel(logging.WARNING)  # not a line per packet
        self.acceptor = await asyncssh.create_server(
            lambda: _Gate(self.options, self.guesses),
            self.host,
            self.options.port,
            server_host_keys=[key],
            process_factory=self.session,
            encoding=None,
            line_editor=False,
            allow_scp=False,
            agent_forwarding=False,
            x11_forwarding=False,
        )
        log.info(
            "ssh: listening on ssh://%s:%d (host key %s); access: %s",
            self.host,
            self.port,
            key.get_fingerprint(),
            self.options.access,
        )

    @property
    def port(self) -> int:
        assert self.acceptor is not None
        return int(self.acceptor.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self.acceptor is not None:
            self.acceptor.close()
            await self.acceptor.wait_closed()
        for task in list(self.sessions):
            task.cancel()
        await asyncio.gather(*self.sessions, return_exceptions=True)

    async def session(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.sessions.add(task)
        try:
            await self._session(process)
        finally:
            self.sessions.discard(task)

    async def _session(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        gate = process.get_extra_info("connection").get_owner()
        name = player_name(process.get_extra_info("username") or "")
        if process.get_terminal_type() is None:
            process.stderr.write(b"gother: needs a terminal; connect with ssh -t\r\n")
            process.exit(1)
            return
        if gate.fingerprint is not None:
            folder, throwaway = state_dir(self.options.data_dir, gate.fingerprint), False
        else:
            folder, throwaway = Path(tempfile.mkdtemp(prefix="gother-ssh-")), True
        private_folder(folder)
        log.info("ssh: %s from %s (key %s)", name, gate.peer[0], gate.fingerprint or "none")
        try:
            code = await self._run_client(process, name, folder)
        finally:
            if throwaway:
                shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(OSError, asyncssh.Error):
            process.exit(code)

    async def _run_client(
        self, process: asyncssh.SSHServerProcess[bytes], name: str, state: Path
    ) -> int:
        width, height = process.get_terminal_size()[:2]
        env = {
            # the host's own GOTHER_… settings (its passwords among them) are not the player's
            **{k: v for k, v in os.environ.items() if not k.startswith("GOTHER_")},
            "TERM": process.get_terminal_type() or "xterm-256color",
            "XDG_STATE_HOME": str(state),  # seat tokens and the client log: this key's own
            "LANG": process.env.get("LANG") or os.environ.get("LANG") or "C.UTF-8",
        }
        if process.env.get("COLORTERM"):
            env["COLORTERM"] = process.env["COLORTERM"]
        argv = [sys.executable, "-m", "gother_tui", "join", self.url, "--name", name]
        handed = []  # the server's password goes through a pipe: argv is public (`ps`)
        if self.ws_password is not None:
            handed.append(_pipe_holding(self.ws_password))
            argv += ["--password-file", f"/dev/fd/{handed[0]}"]
        master, slave = os.openpty()
        _set_size(master, width or 80, height or 24)
        try:
            child = await asyncio.create_subprocess_exec(
                *argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=env,
                start_new_session=True,
                preexec_fn=_take_terminal,
                pass_fds=handed,
            )
        finally:
            os.close(slave)
            for fd in handed:
                os.close(fd)
        os.set_blocking(master, False)
        output = asyncio.create_task(_pump_out(master, process))
        typing = asyncio.create_task(_pump_in(process, master))
        try:
            ended = asyncio.create_task(child.wait())
            await asyncio.wait({output, typing, ended}, return_when=asyncio.FIRST_COMPLETED)
            ended.cancel()
            if child.returncode is None:  # the player hung up: the client goes too
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGHUP)
            try:
                await asyncio.wait_for(child.wait(), 5)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGKILL)
                await child.wait()
            await asyncio.wait_for(asyncio.shield(output), 2)  # the last frame drawn
        except (TimeoutError, asyncio.CancelledError):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            raise
        finally:
            typing.cancel()
            output.cancel()
            await asyncio.gather(typing, output, return_exceptions=True)
            os.close(master)
        return child.returncode or 0


def _pipe_holding(secret: str) -> int:
    """The read end of a pipe that holds `secret` (a line far smaller than a pipe's buffer,
    so writing it all never waits on the reader)."""
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "wb") as pipe:
        pipe.write(secret.encode() + b"\n")
    return read_end


def _take_terminal() -> None:  # in the child, after setsid: the pty becomes its terminal
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _set_size(fd: int, width: int, height: int) -> None:
    """The kernel then sends SIGWINCH to the terminal's foreground process group."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))


async def _pump_out(master: int, process: asyncssh.SSHServerProcess[bytes]) -> None:
    """Screen: pty → SSH channel, until the client's side of the pty closes."""
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()
    loop.add_reader(master, ready.set)
    try:
        while True:
            await ready.wait()
            ready.clear()
            try:
                data = os.read(master, 65536)
            except BlockingIOError:
                continue
            except OSError:  # EIO: every holder of the pty's other side is gone
                return
            if not data:
                return
            process.stdout.write(data)
            await process.stdout.drain()
    finally:
        loop.remove_reader(master)


async def _pump_in(process: asyncssh.SSHServerProcess[bytes], master: int) -> None:
    """Keys: SSH channel → pty; window changes resize the pty."""
    while True:
        try:
            data = await process.stdin.read(4096)
        except asyncssh.TerminalSizeChanged as change:
            _set_size(master, change.width, change.height)
            continue
        except (asyncssh.BreakReceived, asyncssh.SignalReceived):
            continue
        if not data:
            return
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(master, view) :]
            except BlockingIOError:
                await asyncio.sleep(0.01)
