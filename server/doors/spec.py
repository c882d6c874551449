"""What a door is told it is: a `DoorSpec` (which door, where it listens, the game server's
URL, the door key its players' claims are signed with) and the door's own options. Made by
`gother serve` or `gother door`, pickled to the door's process, read by the door's kind
(server/doors/kinds.py) and its process (server/doors/door.py): both import it, it imports
neither."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol


class DoorOptions(Protocol):
    """A door's own options (a frozen dataclass, pickled to the door's process)."""

    KIND: ClassVar[str]  # its entry in server/doors/kinds.py's KINDS

    @property
    def port(self) -> int: ...  # where it listens (0: any free port)


@dataclass(frozen=True)
class DoorSpec:
    options: DoorOptions  # which door (its KIND), and its own options
    host: str  # the address the door listens on
    server: str  # the game server's URL, as the door's clients dial it
    key: str  # the door key (DoorKey.text): the server checks its players' claims with it
    server_password: str | None = None  # the game server's own, handed to each client
    tls_pin: str | None = None  # the game server's certificate: its clients trust only that
    certfile: str | None = None  # the web door's page over https, with this certificate
    keyfile: str | None = None

    @property
    def kind(self) -> str:
        return self.options.KIND
