"""How a player the SSH door knows by a token comes back to their seat, in words every face
shows: the door gives a player whose ssh client offers no key a token, and hands it to the
client it starts (`--door-token-file`), which shows it on its first screen, in its help and
at the game's end (the plain mode says it once), and adds what to do to the refusals a
player meets when they come back without it (their old seat and name are not this new
token's)."""

from __future__ import annotations

from protocol.constants import SSH_TOKEN_ENV
from protocol.errors import ErrorCode

# What a player who came back without their key or token is refused: their old game has
# started without them, or their name is their old self's.
NOT_YOURS_NOW = (ErrorCode.ALREADY_STARTED, ErrorCode.NAME_TAKEN)


def how_to_come_back(token: str) -> str:
    """The token, and how to send it back."""
    return (
        f"Your ssh client offered no key, so this door knows you by a token: {token}. To come "
        f"back to your seat, connect with ssh -o SetEnv={SSH_TOKEN_ENV}={token} and the rest "
        f"of your command, or add the line SetEnv {SSH_TOKEN_ENV}={token} for this host in "
        "~/.ssh/config."
    )


def kept_for_the_first(code: str, token: str | None) -> str | None:
    """What a refusal adds for a player the door has just given a new token: if the seat
    or the name was theirs, how to get it back (None when it says nothing new)."""
    if token is None or code not in NOT_YOURS_NOW:
        return None
    return (
        "If it was yours: your seat and your name are kept for the key or token you first "
        f"came with. Quit and connect again with that key, or with ssh -o "
        f"SetEnv={SSH_TOKEN_ENV}=TOKEN, TOKEN being the one the door gave you then."
    )
