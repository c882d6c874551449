"""Numbers and choices both ends of the wire must agree on: each fact has its home here.

The engine plays by the game's numbers, the protocol validates requests against the limits,
and the client shows both; none of them restates a value.
"""

PROTOCOL_VERSION = 1
DEFAULT_PORT = 8765  # where `gother serve` listens, and `gother join` looks, unless told

# Largest frame, in bytes, either end sends or accepts; also the websocket `max_size`.
MAX_FRAME = 64 * 1024

# Bytes of a game record per `record` reply: with its envelope a part fits in one frame.
RECORD_PART = 48 * 1024
# Tables per `tables` reply: with the largest rows a page still fits in one frame.
LIST_PAGE = 50
STANDINGS_PAGE = 50  # rows of the standings per reply

# Bits of a game's seed (`view.reveal.seed`, a record's `seed`): a JavaScript number holds
# every integer below 2**53 exactly, so a seed never rounds in a browser or Node client.
SEED_BITS = 53

# Deepest nesting of maps/arrays in a frame (the top-level map is depth 1). The deepest real
# message is a `state` (frame → view → players → player → scores) at 5; 8 leaves headroom
# while keeping every later walk over a decoded frame far from Python's recursion limit.
MAX_DEPTH = 8

# -- the game's numbers (RULES.md) ----------------------------------------------------------
HAND_SIZE = 5  # R3, R8: the deal, and the hand limit at Sickness 0
SWOON_AT = 5  # R7: effective Sickness that empties a Fate pile
NEAR_SWOON = SWOON_AT - 2  # swoon reach: two points from a swoon, where a card can swoon you
WIN_GOTH = 20  # R15
SEATS = range(3, 6)  # R2
HOUSE_SEATS = range(2, 7)  # R2: 2 or 6 only as the labelled house rule `two_or_six`
MAX_SEATS = HOUSE_SEATS.stop - 1

# -- house rules (H1, H2) -------------------------------------------------------------------
FATE_DISCARDS = ("any", "top")  # R10 / H2
OVERFLOWS = ("draw_step", "immediate")  # R13 / H2
ROUND_CAPS = range(1, 1001)  # H1; nil (None) turns the cap off
DEFAULT_ROUND_CAP = 100
SHORT_ROUND_CAP = 20  # H1's short-game preset, offered wherever a table is made

# -- names, text and the rest of a request's limits -----------------------------------------
NAME_MAX = 24  # player, table and card names
TABLE_ID_MAX = 32  # characters of a table's (or a tournament's) id
TOKEN_MAX = 128  # characters of a seat's token
# A lasting identity (docs/protocol.md "Identity"): an Ed25519 key proved by signing the
# server's challenge, prefixed by PROVE_CONTEXT so the signature can serve nothing else.
KEY_BYTES = 32
SIGNATURE_BYTES = 64
CHALLENGE_BYTES = 32
PROVE_CONTEXT = b"gother prove v1\n"
NAME_KEPT_DAYS = 30  # a name stays its owner's until this long with no game played under it
# Cards a deck file may hold (H3): every id 0…DECK_MAX-1 must be one a move can name, so a
# deck that deals a card no move could play is refused when it is read, not mid-game.
DECK_MAX = 255
CHAT_MAX = 280
PASSWORD_MAX = 64
BOT_KINDS = ("random", "gentle", "heuristic", "ismcts")  # the bots, by how they play
# The names players choose bots by, and the kind each stands for; both are accepted.
DIFFICULTIES = {"easy": "gentle", "normal": "heuristic", "hard": "ismcts"}
BOT_NAMES = (*DIFFICULTIES, *BOT_KINDS)
DEFAULT_BOT = "normal"  # how a table's bots play unless its creator chooses
PLAYERS_WORD = {kind: word for word, kind in DIFFICULTIES.items()}  # "heuristic" -> "normal"
# Whom a table's bots hurt (docs/balance.md "Five seats"): a vengeful bot hits the leader, a
# steady one plays its own game and weighs every opponent alike. Both are as strong; four
# opponents aiming at one leader is what makes five-seat games long.
TRAITS = ("vengeful", "steady")
# The trait a table's bots get unless its creator chooses, by seat count (R2 and the house
# rule's 2 and 6): docs/balance.md "Five seats" has the figures it is chosen by.
DEFAULT_TRAITS = {2: "vengeful", 3: "vengeful", 4: "vengeful", 5: "steady", 6: "steady"}
TOURNAMENT_ROUNDS = 20  # the most rounds a tournament may have
TOURNAMENT_PLAYERS = 100  # registered in one: its `tournament` message stays one frame
TOURNAMENTS_LIVE = 20  # not over, on one server
# The one rating scale every face shows (server/ratings/skill.py): chess's, where people know
# the numbers. Everyone starts at RATING_START, the normal bot's fixed rating; a unit of
# openskill's mu is RATING_STEP points; the spread shown is two sigmas (95 % sure).
RATING_START = 1500
RATING_STEP = 30

# The opening handshake's header in which the SSH and web doors' clients carry their door's
# signed claim of their player's address (server/edge/doorkey.py, docs/protocol.md)
DOOR_HEADER = "Gother-Door"
# The environment variable in which a player whose ssh client has no key sends back the
# token the SSH door gave them (server/doors/ssh_person.py); the client tells them how.
SSH_TOKEN_ENV = "GOTHER_SSH_TOKEN"
