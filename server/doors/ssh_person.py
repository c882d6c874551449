"""Who an SSH login is, so the door can give them their own client state folder.

The key the player's ssh client proved names them, whether it let them in (a listed key,
open access) or the password did (the door asks each key offered to sign, then takes the
password: the password grants entry, the key names the person). A client with no key at all
is named by a token the door gives once: the player sends it back in the environment
variable SSH_TOKEN_ENV (`ssh -o SetEnv=GOTHER_SSH_TOKEN=…`, or a `SetEnv` line in
~/.ssh/config). Each person's folder keeps their client's identity key and seat tokens, so
the same person comes back to the same seat and the same name.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from pathlib import Path

from protocol.constants import SSH_TOKEN_ENV
from server.files import private_folder

TOKEN = re.compile(r"[A-Za-z0-9_-]{24}")  # what new_token makes, and nothing else
_TOKEN_PREFIX = "token:"  # a folder's name is a key's fingerprint, or this and a token


def state_dir(data_dir: Path, person: str) -> Path:
    """One folder per person (a key's fingerprint, or a token's mark), by its hash: the
    folder's name reveals neither."""
    digest = hashlib.sha256(person.encode()).hexdigest()[:32]
    return data_dir / "ssh-players" / digest


def token_folder(data_dir: Path, token: str) -> Path:
    """The folder of the player this door gave `token`; ValueError, saying so, for any other
    (a token is never taken on trust: one a player made up could be guessed by another)."""
    if not TOKEN.fullmatch(token):
        raise ValueError(f"{SSH_TOKEN_ENV} is not a token this door gives: unset it to get one")
    folder = state_dir(data_dir, _TOKEN_PREFIX + token)
    if not folder.is_dir():  # every token given made its folder
        raise ValueError(f"this door gave no such {SSH_TOKEN_ENV}: unset it to get a new one")
    return folder


def new_token(data_dir: Path) -> tuple[str, Path]:
    """A token for a player with no key, and the folder it names, made now."""
    token = secrets.token_urlsafe(18)  # 24 characters, 144 bits
    return token, private_folder(state_dir(data_dir, _TOKEN_PREFIX + token))


def token_given(token: str) -> str:
    """What a player with no key is told, once, with how to keep the token."""
    return (
        "your ssh client offered no key, so this door names you by a token, given once:\r\n"
        f"    {SSH_TOKEN_ENV}={token}\r\n"
        "To come back as yourself (your seat, your name), send it every time:\r\n"
        f"    ssh -o SetEnv={SSH_TOKEN_ENV}={token} … (the rest of this command)\r\n"
        f"or add the line `SetEnv {SSH_TOKEN_ENV}={token}` under this host in ~/.ssh/config.\r\n"
        "A key does it with nothing to keep: ssh-keygen -t ed25519, then connect again."
    )
