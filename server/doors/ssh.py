"""`gother serve --ssh PORT`: an SSH front door to this server.

`ssh -p PORT NAME@HOST` lands straight in the full-screen client, connected to this server
as NAME. Each session runs `python -m gother_tui join ws://…` on its own pseudo-terminal:
the client's terminal type and size are passed in, window changes follow. The exec request
`plain` (`ssh -p PORT NAME@HOST plain`) runs the plain line mode (`join --plain`) instead,
on the channel's own streams: no terminal needed, for screen readers and scripts.

Access is what the host chose, never a fallback: the keys in an authorized_keys file, a
shared password (then a key gets in without it only if that file lists it), both, or
`--ssh-open` (any key). Every login is a person with a private state folder for the client
it starts, which keeps that person's identity key (gother_tui/core/identity.py) and seat tokens,
so the same person comes back to the same seat and the same name: the key their ssh client
proved names them, even when the password let them in; a client with no key is named by a
token the door gives once (server/doors/ssh_person.py). Knowing the password names no one: no
one takes another player's seat by it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from protocol import ProtocolError
from protocol.constants import SSH_TOKEN_ENV
from protocol.fields import NAME
from server.doors.forks import CLIENT, Zygote
from server.doors.ssh_client import run_client, run_plain
from server.doors.ssh_person import new_token, state_dir, token_folder, token_given
from server.doors.sshlib import asyncssh
from server.edge.attempts import Attempts, Guessing
from server.edge.caps import OVERALL, Caps
from server.edge.doorkey import DoorKey
from server.edge.limits import address_key
from server.files import data_folder, private_file, private_folder
from server.store.kinds import is_postgres

log = logging.getLogger("gother.ssh")
PLAIN = "plain"  # the exec request for the plain line mode
SSH_SECRET = "ssh door"  # its password, as the guesses count it (server/edge/attempts.py)


@dataclass(frozen=True)
class SshLimits:
    """What the door holds at once. Each session is a client process (about 19 MB forked
    by the zygote, 46 MB fresh: bench/capacity.py), so they are capped like OpenSSH's
    MaxSessions; logins in progress like its MaxStartups."""

    sessions: int = 32
    per_address: int = 8
    per_key: int = 3
    per_connection: int = 2
    startups: int = 10  # connections still logging in
    startups_per_address: int = 3
    login_timeout: float = 60.0  # seconds a connection may take to log in


@dataclass(frozen=True)
class SshOptions:
    KIND: ClassVar[str] = "ssh"  # server/doors/kinds.py
    port: int
    host_key: Path  # created (ed25519) on first run when missing
    data_dir: Path  # players' client state lives under data_dir/ssh-players/
    authorized_keys: Path | None = None
    password: str | None = None
    open_access: bool = False  # --ssh-open: any key at all is let in
    # wrong passwords: waits per address, closes per connection
    guessing: Guessing = field(default_factory=Guessing)
    limits: SshLimits = field(default_factory=SshLimits)
    # a session's client forked by the door's zygote (gother_tui/zygote/); False: a fresh
    # process each, as before (bench/capacity.py compares the two)
    zygote: bool = True

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
    """Next to the database file when there is one, else (in memory, or PostgreSQL) the
    user's data folder."""
    if db != ":memory:" and not is_postgres(db):
        return Path(db).resolve().parent
    return data_folder()


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The door's host key, made (ed25519, 0600) on the first run."""
    if private_file(path).stat().st_size == 0:
        path.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
        log.info("ssh: created host key %s", path)
    return asyncssh.read_private_key(path)


def player_name(username: str) -> str:
    """The SSH user name, tidied into a name (up to 24 printable characters, "Player" when
    none is left); the protocol may still refuse it (it reserves the marks clients draw)."""
    name = "".join(ch for ch in username if ch.isprintable()).strip()[:24]
    return name or "Player"


class _Gate(asyncssh.SSHServer):
    """Authentication for one connection; remembers the key that names its player: the one
    that logged in, or with the password the first one the client proved."""

    def __init__(self, options: SshOptions, guesses: Attempts, startups: Caps) -> None:
        self.options = options
        self.guesses = guesses  # the door's, shared by every connection
        self.startups = startups
        self.allowed = (
            asyncssh.read_authorized_keys(str(options.authorized_keys))
            if options.authorized_keys
            else None
        )
        self.fingerprint: str | None = None
        self.offered: tuple[str, bool] = ("", False)  # the key asked about, and if it enters
        self.proven: str | None = None  # a key that signed but let no one in: it names them
        self.peer = ("?", 0)
        self.wrong_passwords = 0

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.peer = conn.get_extra_info("peername")[:2]
        full = self.startups.admit(self, address=address_key(str(self.peer[0])))
        if full is not None:  # once asyncssh has sent its version: then the client reads why
            where = "" if full == OVERALL else " from your address"
            reason = f"too many logins in progress{where}: try again in a moment"
            log.info("ssh: %s turned away: %s", self.peer[0], reason)
            asyncio.get_running_loop().call_soon(
                conn.disconnect, asyncssh.DISC_TOO_MANY_CONNECTIONS, reason
            )
        if self.options.password is not None:
            self._prove_keys(conn)

    def _prove_keys(self, conn: asyncssh.SSHServerConnection) -> None:
        """A key that lets no one in is still asked to sign (asyncssh checks the signature,
        over this connection's session id); once it has, it fails, so the client goes on to
        the password, and the key names the player. asyncssh would let a signing key in, so
        this connection's check is wrapped."""
        check = conn.validate_public_key

        async def proving(username: str, key_data: bytes, msg: bytes, signature: bytes) -> bool:
            signed = await check(username, key_data, msg, signature)
            fingerprint, enters = self.offered
            if signed and msg and not enters:
                self.proven = self.proven or fingerprint
                return False
            return signed

        conn.validate_public_key = proving  # type: ignore[method-assign]

    def auth_completed(self) -> None:
        self.startups.release(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.startups.release(self)

    def begin_auth(self, username: str) -> bool:
        return True  # always authenticate: even "open" access wants a key to name the seat

    def public_key_auth_supported(self) -> bool:
        # with a password, keys are asked for until one has named the player
        naming = self.options.password is not None and self.proven is None
        return self.options.open_access or self.allowed is not None or naming

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
        self.offered = (key.get_fingerprint(), ok)
        return ok or self.options.password is not None  # then it may still name the player

    def password_auth_supported(self) -> bool:
        return self.options.password is not None

    async def validate_password(self, username: str, password: str) -> bool:
        """Checked only once this address may guess again (the login timeout ends a wait
        too long); a few wrong ones end the connection."""
        self.fingerprint = self.proven  # the password lets them in; a proven key names them
        address = str(self.peer[0])
        while (wait := self.guesses.wait(address, SSH_SECRET)) > 0:
            await asyncio.sleep(wait)
        right = self.options.password
        if right is not None and hmac.compare_digest(password.encode(), right.encode()):
            self.guesses.succeeded(address, SSH_SECRET)
            return True
        self.guesses.failed(address, SSH_SECRET)
        self.wrong_passwords += 1
        if self.wrong_passwords >= self.guesses.rules.tries:
            log.info("ssh: %s gave %d wrong passwords: disconnected", address, self.wrong_passwords)
            raise asyncssh.PermissionDenied("too many wrong passwords")
        return False


class SshFrontDoor:
    def __init__(
        self,
        options: SshOptions,
        host: str,
        server: str,
        door_key: DoorKey,
        tls_pin: str | None = None,
    ) -> None:
        """A door listening on `host` to the game server at the URL `server`, which knows
        its claims by `door_key`; `tls_pin`, the fingerprint of that server's TLS
        certificate, when it speaks wss:// (its clients accept no other)."""
        self.options = options
        self.door_key = door_key
        self.host = host
        self.tls_pin = tls_pin
        self.url = server
        self.acceptor: asyncssh.SSHAcceptor | None = None
        self.ws_password: str | None = None  # the server's own password, handed to clients
        self.sessions: set[asyncio.Task[None]] = set()
        self.zygote = Zygote("ssh") if options.zygote else None
        self.guesses = Attempts(options.guessing)
        limits = options.limits
        self.startups = Caps(limits.startups, address=limits.startups_per_address)
        self.running = Caps(
            limits.sessions,
            address=limits.per_address,
            key=limits.per_key,
            connection=limits.per_connection,
        )

    async def start(self) -> None:
        key = load_host_key(self.options.host_key)
        if self.zygote is not None:  # sessions before it is ready start fresh processes
            self.zygote.run()
        private_folder(self.options.data_dir / "ssh-players")  # every key's seat tokens
        logging.getLogger("asyncssh").setLevel(logging.WARNING)  # not a line per packet
        self.acceptor = await asyncssh.create_server(
            lambda: _Gate(self.options, self.guesses, self.startups),
            self.host,
            self.options.port,
            server_host_keys=[key],
            process_factory=self.session,
            encoding=None,
            line_editor=False,
            allow_scp=False,
            agent_forwarding=False,
            x11_forwarding=False,
            login_timeout=self.options.limits.login_timeout,
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
        if self.zygote is not None:
            await self.zygote.close()

    async def session(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        """One session, start to end. Whatever goes wrong is logged here, on the host; the
        player is told in one line, never shown a traceback."""
        task = asyncio.current_task()
        assert task is not None
        self.sessions.add(task)
        try:
            await self._session(process)
        except Exception:
            log.exception("ssh: a session from %s failed", process.get_extra_info("peername"))
            _refuse(process, "the server could not run this session; its log says why")
        finally:
            self.running.release(task)
            self.sessions.discard(task)

    async def _session(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        gate = process.get_extra_info("connection").get_owner()
        name = player_name(process.get_extra_info("username") or "")
        plain = process.command == PLAIN
        if process.get_terminal_type() is None and not plain:
            _refuse(process, "needs a terminal; connect with ssh -t (or ask for plain)")
            return
        try:
            NAME(name, "name")
        except ProtocolError as exc:
            _refuse(process, f"{exc.message}: connect as another user, like ssh Raven@…")
            return
        try:
            folder = self._person(process, gate.fingerprint)
        except ValueError as exc:
            _refuse(process, str(exc))
            return
        task = asyncio.current_task()
        where = address_key(str(gate.peer[0]))
        person = None if folder is None else folder.name
        full = self.running.admit(task, address=where, key=person, connection=gate)
        if full is not None:
            _refuse(process, self._full(full))
            log.info("ssh: %s from %s turned away: %s", name, gate.peer[0], self._full(full))
            return
        given = None
        if folder is None:  # no key, no token: a new person, told how to come back
            given, folder = new_token(self.options.data_dir)
            if not plain:  # the client shows it too; this line stays once it has ended
                _tell(process, token_given(given))
        private_folder(folder)
        named_by = f"key {gate.fingerprint}" if gate.fingerprint else "a token"
        log.info("ssh: %s from %s (%s)", name, gate.peer[0], named_by)
        # plain over a bare channel: its own streams; otherwise a pty, as for the table
        client = self._client(process, name, folder, plain, str(gate.peer[0]), given)
        who = f"{name}@{gate.peer[0]}"
        if plain and process.get_terminal_type() is None:
            code = await run_plain(process, *client, who=who)
        else:
            code = await run_client(process, *client, who=who, zygote=self.zygote)
        with contextlib.suppress(OSError, asyncssh.Error):
            process.exit(code)

    def _person(
        self, process: asyncssh.SSHServerProcess[bytes], fingerprint: str | None
    ) -> Path | None:
        """The folder of the person logging in, named by their key or by the token they
        sent back; None for a client that sent neither. ValueError for a token this door
        never gave."""
        if fingerprint is not None:
            return state_dir(self.options.data_dir, fingerprint)
        token = process.env.get(SSH_TOKEN_ENV)
        return None if token is None else token_folder(self.options.data_dir, token)

    def _full(self, cap: str) -> str:
        """What a player over `cap` is told."""
        limits = self.options.limits
        if cap == OVERALL:
            return f"this server is full ({_sessions(limits.sessions)}): try again later"
        if cap == "connection":
            return f"this connection has {_sessions(limits.per_connection)} open already"
        n = limits.per_address if cap == "address" else limits.per_key
        where = "from your address" if cap == "address" else "with your key"
        return f"{_sessions(n)} {'is' if n == 1 else 'are'} open {where} already"

    def _client(
        self,
        process: asyncssh.SSHServerProcess[bytes],
        name: str,
        state: Path,
        plain: bool,
        address: str,
        given: str | None = None,
    ) -> tuple[list[str], dict[str, str], list[int]]:
        """The client's command line, environment and handed fds for this session, whose
        player connects from `address` (and was `given` this token now, to be shown it)."""
        env = {
            # the host's own GOTHER_… settings (its passwords among them) are not the player's
            **{k: v for k, v in os.environ.items() if not k.startswith("GOTHER_")},
            "TERM": process.get_terminal_type() or "xterm-256color",
            "XDG_STATE_HOME": str(state),  # seat tokens and the client log: this key's own
            "LANG": process.env.get("LANG") or os.environ.get("LANG") or "C.UTF-8",
        }
        if process.env.get("COLORTERM"):
            env["COLORTERM"] = process.env["COLORTERM"]
        argv = [*CLIENT, "join", self.url, "--name", name]
        if plain:
            argv.append("--plain")
            if process.get_terminal_type() is None:
                env["TERM"] = "dumb"
        if self.tls_pin is not None:  # dialled by address, so by pin, not by name
            argv += ["--fingerprint", self.tls_pin]
        # the door's claim and the server's password go through pipes: argv is public (`ps`)
        handed = [pipe_holding(self.door_key.claim(address))]
        argv += ["--door-file", f"/dev/fd/{handed[0]}"]
        if self.ws_password is not None:
            handed.append(pipe_holding(self.ws_password))
            argv += ["--password-file", f"/dev/fd/{handed[-1]}"]
        if given is not None:
            handed.append(pipe_holding(given))
            argv += ["--door-token-file", f"/dev/fd/{handed[-1]}"]
        return argv, env, handed


def _sessions(n: int) -> str:
    return f"{n} session{'' if n == 1 else 's'}"


def _refuse(process: asyncssh.SSHServerProcess[bytes], why: str) -> None:
    _tell(process, why)
    with contextlib.suppress(OSError, asyncssh.Error):
        process.exit(1)


def _tell(process: asyncssh.SSHServerProcess[bytes], what: str) -> None:
    """A line to the player, beside the client's screen (a full-screen client draws on the
    alternate screen, so it is there again when they quit)."""
    with contextlib.suppress(OSError, asyncssh.Error):
        process.stderr.write(f"gother: {what}\r\n".encode())


def pipe_holding(secret: str) -> int:
    """The read end of a pipe that holds `secret` (a line far smaller than a pipe's buffer,
    so writing it all never waits on the reader)."""
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "wb") as pipe:
        pipe.write(secret.encode() + b"\n")
    return read_end
