"""The player's lasting identity: an Ed25519 key pair made once and kept in the client's
state folder (beside the seat tokens, private to the user), whose public half `hello`
names and whose private half signs the server's challenge in `prove` (docs/protocol.md).
The key is the person: a server gives their seats and their name back to whoever proves it.

One key a name: people who share a computer account (and so a state folder: friends on one
LAN box, each in a terminal of their own) play under their own names, as their seat tokens
always were kept by name, and each is a person of their own to the server. The SSH and web
doors run this same client with a state folder per key or per browser, so each person there
keeps a key of their own too.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)

from protocol.constants import PROVE_CONTEXT

log = logging.getLogger("gother.client")

FILE = "identity.key"  # PEM (PKCS #8), 0600: the key of a client that has no name yet


def file_for(name: str | None) -> str:
    """The file of the key that `name` plays under in a state folder."""
    if name is None:
        return FILE
    return f"identity-{hashlib.sha256(name.casefold().encode()).hexdigest()[:16]}.key"


class ClientKey:
    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        self.public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @classmethod
    def fresh(cls) -> ClientKey:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def kept_in(cls, folder: Path, name: str | None = None) -> ClientKey:
        """The key `name` plays under, kept in `folder`, made (and kept) the first time. A
        folder that cannot be written gives a key for this run only: the game goes on, the
        identity does not."""
        path = folder / file_for(name)
        try:
            return cls(_read(path))
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:  # unreadable: a new identity, the old file kept
            log.warning("ignoring identity key %s: %s", path, exc)
            return cls.fresh()
        key = cls.fresh()
        try:
            key._write(path)
        except FileExistsError:  # another client made it a moment ago: that one is ours
            return cls(_read(path))
        except OSError as exc:
            log.warning("cannot keep the identity key in %s: %s", path, exc)
        return key

    def sign(self, challenge: bytes) -> bytes:
        """The `prove` signature of a `welcome` challenge."""
        return self._private.sign(PROVE_CONTEXT + challenge)

    def _write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        pem = self._private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
        # O_EXCL: two clients starting at once keep the first key, and neither overwrites it
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(pem)


def _read(path: Path) -> Ed25519PrivateKey:
    private = load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(private, Ed25519PrivateKey):
        raise ValueError("not an Ed25519 key")
    return private
