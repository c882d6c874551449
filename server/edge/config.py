"""What a host may set of the game server: every setting of `gother serve` that the server
itself reads (the doors' own options are the doors'), with its default, in one place that
the command line reads too (gother_tui/cli/host.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from protocol.constants import DEFAULT_BOT, DEFAULT_PORT
from server.edge.attempts import Guessing
from server.edge.health import STATS_EVERY
from server.edge.identity import NameRules
from server.searches import MAX_WAIT, QUEUE
from server.tables.lobby import EXPIRE, MAX_TABLES
from server.tables.records import BUILD_BURST, BUILD_SHARE
from server.tables.table import Settings


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    db: str = ":memory:"
    password: str | None = None  # asked in `hello` when set
    certfile: str | None = None
    keyfile: str | None = None
    grace: float = Settings.grace  # the table policies' own defaults, read from their home
    bot_delay: float = Settings.bot_delay
    heard_by: Callable[[], float] | None = None  # gother play --plain's listener (Settings)
    cover: str = DEFAULT_BOT  # how the bot plays that covers an absent or idle player
    spectators: str = "public"  # none | public (tables without a password) | all
    decks_dir: str | None = None
    max_connections: int = 1000
    max_pending: int = 100  # connections that have not said hello yet
    pending_per_address: int = 4  # of those, from one address (a few: hello takes a moment)
    max_per_address: int = 32  # connections from one address (a door's players: each theirs)
    hello_timeout: float = 5.0  # seconds a new connection has to say hello
    max_tables: int = MAX_TABLES
    tables_per_connection: int = 10  # live tables one connection may have created
    tables_per_address: int = 10
    seats_per_connection: int = 4  # seats one connection may hold (in games not over)
    seats_per_address: int = 24
    expire: float = EXPIRE  # seconds a table nobody is at stays live
    sweep_every: float = 60.0  # seconds between two looks for tables nobody is at
    stats_every: float = STATS_EVERY  # seconds between two stats lines in the log
    idle: float = Settings.idle  # seconds a present player may think before a bot covers
    rate: float = 50.0  # requests per second per connection, sustained (bots play fast)
    burst: float = 100.0
    chat_rate: float = 1.0  # chat lines per second, sustained
    chat_burst: float = 5.0
    costly_rate: float = 20.0  # cost units per second for the dear requests (COSTS)
    costly_burst: float = 100.0
    record_share: float = BUILD_SHARE  # seconds a second the server may spend making records
    record_burst: float = BUILD_BURST
    # wrong passwords: waits per address, closes per connection
    guessing: Guessing = field(default_factory=Guessing)
    # searches (hints, hard bots) in worker processes: how many (None: the cores but one), how many
    # may wait, and the longest wait in seconds a hint may face before it is refused `busy`
    search_workers: int | None = None
    search_queue: int = QUEUE
    search_wait: float = MAX_WAIT
    door_key_file: str | None = None  # the door key kept here, for doors on other machines
    announce: bool = True  # mDNS on the LAN, only ever for a non-loopback host (announce.py)
    # the host's leave to create tournaments (None: this server runs none)
    tournament_password: str | None = None
    tournament_entries_per_address: int = 4  # players one address may register in a tournament
    release_names: tuple[str, ...] = ()  # --release-name: names the host gives back at start
    names: NameRules = field(default_factory=NameRules)  # how many names an address may own
