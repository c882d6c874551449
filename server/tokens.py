"""Seat tokens: the secret a player holds to reclaim a seat. Only a hash is ever stored."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 32 characters, 192 bits


def hash_secret(secret: str) -> str:
    """Tokens are random and long (192 bits), so a plain SHA-256 is enough: no guess can
    find one. (Table passwords are people's words: server/tables/passwords.py salts and slows.)"""
    return hashlib.sha256(secret.encode()).hexdigest()


def matches(secret: str, digest: str | None) -> bool:
    return same(hash_secret(secret), digest)


def same(digest: str, stored: str | None) -> bool:
    """Whether a secret's digest is the one stored (in constant time)."""
    return stored is not None and hmac.compare_digest(digest, stored)
