"""The server under protocol fuzz (issue 31 §3, §7), printed as figures, never asserted.

    nice -n 10 .venv/bin/python bench/fuzz.py [--connections 400] [--rate 5] [--seconds 30]
        [--processes 2] [--kinds all|list|array] [--seed 1] [--before DIR]

Starts `gother serve` as a subprocess (its database on a file, bots at their usual
`--bot-delay`), and an observer that watches a table of four bots and counts its moves (the
next table when a game ends: made before the fuzz, which may fill the server's tables).
Then `--connections` fuzzers, in `--processes` processes of their own (they stand for other
machines), each say hello (one in two with a key, proved) and send `--rate` frames a second
for `--seconds`: one frame in two a request as the document describes it (the tables and
tournaments that exist, its own seats' tokens and decisions), the other one of the same
type with fields drawn at random, valid or not, and a few that are no map at all
(`--kinds list`: only `list` requests; `--kinds array`: only msgpack arrays). Every frame a
server can read carries a `rid`. Printed, for each server:
- the server's CPU (user + system, from /proc) while the frames were sent, a frame (the
  tables the fuzz made play meanwhile: their moves are printed too);
- the bot table's moves meanwhile, beside its moves in `--quiet` seconds before the fuzz,
  and the moves made at every table (/healthz);
- the rids sent on open connections that got no reply DRAIN seconds after the last frame,
  by request type (docs/protocol.md: every request is answered);
- connections the server closed, by close code and reason (4008 "flood": every fuzzer
  sends under the server's rate limits, so any is a client closed for nothing).
`--before DIR` runs a server from the source tree DIR first (e.g. `git archive main`
unpacked), for before/after figures in one run; the fuzzers are this tree's either way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import site
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
SERVE = "import sys; from gother_tui.cli import main; sys.exit(main())"
# the same, its CPU (not wall time: the machine is shared) profiled into the file named by
# $GOTHER_PROFILE (`--profile`)
PROFILED = (
    "import cProfile, os, time; from gother_tui.cli import main;"
    " p = cProfile.Profile(time.process_time); p.runcall(main);"
    " p.dump_stats(os.environ['GOTHER_PROFILE'])"
)
MAX_FRAME = 65_536
PROVE_CONTEXT = b"gother prove v1\n"  # docs/protocol.md, prove
DRAIN = 15.0  # seconds after the last frame for the last replies
TYPES = (
    "hello",
    "prove",
    "list",
    "create",
    "join",
    "resume",
    "watch",
    "start",
    "move",
    "chat",
    "hint",
    "leave",
    "rematch",
    "pause",
    "end",
    "record",
    "review",
    "play_on",
    "standings",
    "tournament_create",
    "tournament_join",
    "tournament_start",
    "tournament_drop",
    "tournament_watch",
    "dance",  # no such request
)
# the fields each request documents (docs/protocol.md), drawn from at random
FIELDS: dict[str, tuple[str, ...]] = {
    "hello": ("v", "name", "password", "key"),
    "prove": ("signature",),
    "list": ("offset",),
    "create": ("name", "seats", "bots", "variants", "deck", "password", "clock", "bot"),
    "join": ("table", "seat", "password"),
    "resume": ("token", "table"),
    "watch": ("table", "password"),
    "start": ("table",),
    "move": ("move", "table"),
    "chat": ("text", "table"),
    "hint": ("table",),
    "leave": ("table",),
    "rematch": ("table",),
    "pause": ("on", "table"),
    "end": ("table",),
    "record": ("table", "game", "part", "seat", "password"),
    "review": ("table", "game", "seat", "password"),
    "play_on": ("table", "seat", "turn", "game", "password", "bot"),
    "standings": ("offset",),
    "tournament_create": ("name", "rounds", "seats", "variants", "bot", "duplicate", "password"),
    "tournament_join": ("tournament",),
    "tournament_start": ("tournament",),
    "tournament_drop": ("tournament",),
    "tournament_watch": ("tournament",),
    "dance": ("steps",),
}


def start_server(
    log: IO[str], db: str, tree: str | None, options: Sequence[str] = (), profile: str = ""
) -> tuple[subprocess.Popen[bytes], int]:
    """`gother serve` from `tree` (None: this one) with room for every fuzzer on 127.0.0.1
    (they stand for many machines), and more `options`; its port, once it listens."""
    env, python = dict(os.environ), [sys.executable]
    if profile:
        env["GOTHER_PROFILE"] = profile
    if tree is not None:  # without site: this tree's editable install would come first
        env["PYTHONPATH"] = os.pathsep.join([tree, *site.getsitepackages()])
        python.append("-S")
    proc = subprocess.Popen(
        [
            *python,
            *("-c", PROFILED if profile else SERVE, "serve"),
            *("--host", HOST, "--port", "0", "--db", db, "--no-announce"),
            *("--tables-per-address", "1000"),
            *("--max-per-address", "5000", "--pending-per-address", "5000"),
            *("--max-pending", "5000", "--max-connections", "5000"),
            *("--seats-per-address", "20000", "--tournament-password", "night"),
            *options,
        ],
        stderr=log,
        env=env,
        cwd=tree,  # `-c` puts the folder it runs in first on the path
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        log.seek(0)
        found = re.search(r"listening on ws://[\d.]+:(\d+)", log.read())
        if found:
            return proc, int(found.group(1))
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


async def healthz(port: int) -> dict[str, Any]:
    """The server's figures (`GET /healthz`)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
    body = await reader.readexactly(length)
    writer.close()
    return json.loads(body)  # type: ignore[no-any-return]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- the observer: a table of bots, watched ------------------------------------------------


class Observer:
    """Watches a table of four bots and counts its moves, the next table when a game ends.
    Its tables are made before the fuzz, whose own may fill the server: four seats, three
    bots; the observer sits down (the game starts), leaves (a bot takes the seat) and
    watches."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.moves = 0
        self.table = ""
        self.last_seq = 0
        self.last_move = time.monotonic()
        self.closed: int | None = None
        self.kept: list[str] = []  # tables made, not played yet
        self._rid = 0
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader = asyncio.create_task(self._read())

    async def ask(self, t: str, **fields: Any) -> dict[str, Any]:
        while True:
            self._rid += 1
            reply = asyncio.get_running_loop().create_future()
            self._replies[self._rid] = reply
            await self.ws.send(msgpack.packb({"t": t, "rid": self._rid, **fields}))
            answer: dict[str, Any] = await asyncio.wait_for(reply, 60)
            if answer.get("code") != "rate_limited":
                return answer
            await asyncio.sleep(0.5)

    async def keep(self, tables: int) -> None:
        for _ in range(tables):
            self.kept.append((await self.ask("create", name="Show", seats=4, bots=3))["table"])

    async def new_table(self) -> None:
        if not self.kept:
            return  # none left: the run is longer than its tables' games
        table = self.kept.pop()
        await self.ask("join", table=table)
        await self.ask("leave")
        self.table, self.last_seq = table, 0
        await self.ask("watch", table=table)

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                frame = msgpack.unpackb(data)
                waiting = self._replies.pop(frame.get("rid", -1), None)
                if waiting is not None and not waiting.done():
                    waiting.set_result(frame)
                if frame["t"] == "state" and frame["view"]["table"]["id"] == self.table:
                    seq = frame["seq"]
                    if self.last_seq and seq > self.last_seq:
                        self.moves += seq - self.last_seq
                        self.last_move = time.monotonic()
                    self.last_seq = seq
                    if frame["view"]["phase"] == "over":
                        asyncio.get_running_loop().create_task(self.new_table())
        except ConnectionClosed:
            self.closed = self.ws.close_code


def move_for(legal: dict[str, Any]) -> dict[str, Any]:
    """The first legal choice, built from `legal` as the document describes it."""
    kind = legal["kind"]
    if kind == "distribute":
        pairs = zip(legal["recipients"], legal["hand"][: legal["count"]], strict=False)
        return {"kind": kind, "give": [[seat, card] for seat, card in pairs]}
    if kind == "draw":
        if legal["deck"]:
            return {"kind": kind, "source": "deck"}
        return {"kind": kind, "source": "discard", "card": legal["discard"][0]}
    return {"kind": kind, "card": legal["cards"][0]}


# -- the fuzzers ---------------------------------------------------------------------------


@dataclass
class Fuzzed:
    sent: Counter[str] = field(default_factory=Counter)  # frames by type
    waiting: dict[tuple[int, int], tuple[str, float]] = field(default_factory=dict)
    answered: int = 0
    closes: Counter[str] = field(default_factory=Counter)  # by code
    frames: int = 0
    known: dict[str, list[Any]] = field(default_factory=lambda: {"table": [], "tournament": []})


class Fuzzer:
    def __init__(self, number: int, rng: random.Random, fuzzed: Fuzzed, kinds: str) -> None:
        self.number = number
        self.rng = rng
        self.fuzzed = fuzzed
        self.kinds = kinds
        self.ws: ClientConnection | None = None
        self.rid = 0
        self.view: dict[str, Any] = {}  # the newest view it was sent
        self.tokens: list[str] = []  # of the seats it was given
        self.done = False  # closed by us, at the end
        self.closed = False
        self.key = Ed25519PrivateKey.generate() if number % 2 else None

    def value(self, name: str) -> Any:
        """A value for field `name`: often a plausible one, sometimes anything at all."""
        rng = self.rng
        if rng.random() < 0.3:
            return rng.choice(
                [
                    None,
                    True,
                    -1,
                    2**40,
                    3.5,
                    "",
                    "x" * rng.randrange(1, 300),
                    b"\x00" * rng.randrange(0, 70),
                    [1, [2, [3]]],
                    {"a": {"b": {}}},
                ]
            )
        known = self.fuzzed.known
        match name:
            case "v":
                return 1
            case "name":
                return rng.choice(["Lydia", "Raven", f"Fz{self.number}", "Vlad", "ann\u200b"])
            case "table" | "tournament":
                pool = known[name]
                return rng.choice(pool) if pool and rng.random() < 0.8 else f"t{rng.randrange(50)}"
            case "token":
                return rng.choice(self.tokens) if self.tokens else "z" * 20
            case "seat" | "seats" | "bots" | "game" | "part" | "turn" | "rounds" | "offset":
                return rng.randrange(0, 8)
            case "on" | "duplicate":
                return rng.random() < 0.5
            case "key":
                return os.urandom(32)
            case "signature":
                return os.urandom(64)
            case "text":
                return rng.choice(["hi", "good game", "\x1b[31mred", "x" * 300])
            case "bot":
                return rng.choice(["easy", "normal", "hard", "random", "nope"])
            case "variants":
                return rng.choice([{}, {"fate_discard": "top"}, {"round_cap": 3}, {"x": 1}])
            case "clock":
                return {"initial": rng.randrange(0, 100), "increment": rng.randrange(0, 10)}
            case "move":
                kind = rng.choice(["discard_fate", "distribute", "draw", "discard_hand", "fly"])
                card = rng.randrange(0, 60)
                return rng.choice(
                    [
                        {"kind": kind, "card": card},
                        {"kind": "draw", "source": "deck"},
                        {"kind": "distribute", "give": [[s, card + s] for s in range(4)]},
                    ]
                )
        return rng.choice(["deck", 7, "pw", None])

    def well_formed(self, t: str) -> dict[str, Any]:
        """A request of type `t` as a client that read the document would send it, with
        what this fuzzer has seen (tables, tokens, its own view, tournaments)."""
        rng = self.rng
        known = self.fuzzed.known
        table = rng.choice(known["table"]) if known["table"] else "t1"
        seat = rng.randrange(0, 5)
        match t:
            case "create":
                seats = rng.randrange(3, 6)
                fields = {"name": f"Fz{self.number}", "seats": seats}
                fields["bots"] = rng.choice([0, seats - 1, seats])
                fields["bot"] = rng.choice(["easy", "normal", "hard"])
                return fields
            case "join":
                return {"table": table} | ({"seat": seat} if rng.random() < 0.5 else {})
            case "resume":  # its own tokens only: nobody else's reach it
                return {"token": rng.choice(self.tokens)} if self.tokens else {"table": table}
            case "watch" | "record":
                return {"table": table}
            case "move":
                legal = self.view.get("legal") if self.view else None
                return {"move": move_for(legal) if legal else self.value("move")}
            case "chat":
                return {"text": rng.choice(["good evening", "hi all", "gg"])}
            case "pause":
                return {"on": rng.random() < 0.5}
            case "review" | "play_on":
                fields = {"table": table, "seat": rng.randrange(0, 4)}
                return fields | ({"turn": rng.randrange(1, 9)} if t == "play_on" else {})
            case "list" | "standings":
                return {"offset": rng.choice([0, 0, 50])}
            case "tournament_create":
                fields = {"name": f"Night{self.number}", "rounds": 2, "seats": 4}
                return fields | {"password": "night"}
            case "tournament_join" | "tournament_start" | "tournament_drop" | "tournament_watch":
                pool = known["tournament"]
                return {"tournament": rng.choice(pool) if pool else "x1"}
            case "hello":
                return {"v": 1, "name": f"Fz{self.number}"}
            case "prove":
                return {"signature": os.urandom(64)}
        return {}

    def frame(self) -> tuple[bytes | str, str, int | None]:
        """(the frame, its type, its rid if a server can read one)."""
        rng = self.rng
        if self.kinds == "array" or (self.kinds == "all" and rng.random() < 0.04):
            return msgpack.packb([self.rid, "list"]), "(array)", None
        if self.kinds == "all" and rng.random() < 0.02:
            junk: list[bytes | str] = [b"\xc1", os.urandom(20), "text"]
            return rng.choice(junk), "(junk)", None
        t = "list" if self.kinds == "list" else rng.choice(TYPES)
        message: dict[str, Any] = {"t": t}
        if rng.random() < 0.5:
            message.update(self.well_formed(t))
        else:
            for name in FIELDS[t]:
                if rng.random() < 0.7:
                    message[name] = self.value(name)
            if rng.random() < 0.05:
                message["colour"] = "mauve"  # an unknown field
        self.rid += 1
        message["rid"] = self.rid
        return msgpack.packb(message), t, self.rid

    async def hello(self, url: str) -> bool:
        ws = await connect(url, max_size=MAX_FRAME, compression=None, open_timeout=60)
        self.ws = ws
        fields: dict[str, Any] = {"t": "hello", "v": 1, "name": f"Fz{self.number}", "rid": 0}
        if self.key is not None:
            fields["key"] = self.key.public_key().public_bytes_raw()
        await ws.send(msgpack.packb(fields))
        welcome = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 60))
        if welcome.get("t") != "welcome":
            return False
        if self.key is not None:
            signature = self.key.sign(PROVE_CONTEXT + welcome["challenge"])
            await ws.send(msgpack.packb({"t": "prove", "signature": signature, "rid": 0}))
            await asyncio.wait_for(ws.recv(), 60)
        return True

    async def read(self) -> None:
        assert self.ws is not None
        fuzzed = self.fuzzed
        try:
            async for data in self.ws:
                frame = msgpack.unpackb(data) if isinstance(data, bytes) else {}
                rid = frame.get("rid")
                if (
                    isinstance(rid, int)
                    and fuzzed.waiting.pop((self.number, rid), None) is not None
                ):
                    fuzzed.answered += 1
                table = frame.get("table")
                if isinstance(table, str) and table not in fuzzed.known["table"]:
                    fuzzed.known["table"].append(table)
                if isinstance(frame.get("token"), str):
                    self.tokens.append(frame["token"])
                if frame.get("t") == "tournament" and frame["id"] not in fuzzed.known["tournament"]:
                    fuzzed.known["tournament"].append(frame["id"])
                if frame.get("t") == "state":
                    self.view = frame["view"]
        except ConnectionClosed:
            pass
        if not self.done:
            fuzzed.closes[f"{self.ws.close_code} {self.ws.close_reason}".strip()] += 1
        self.closed = True
        # a closed connection's unanswered requests are not counted
        for key in [k for k in fuzzed.waiting if k[0] == self.number]:
            del fuzzed.waiting[key]

    async def run(self, rate: float, until: float) -> asyncio.Task[None]:
        """Send `rate` frames a second until `until`; the task reading the replies, which
        goes on until the connection closes."""
        assert self.ws is not None
        reader = asyncio.create_task(self.read())
        gap = 1 / rate
        next_at = time.monotonic() + self.rng.uniform(0, gap)
        while time.monotonic() < until and not self.closed:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            next_at += gap
            data, t, rid = self.frame()
            if rid is not None:
                self.fuzzed.waiting[(self.number, rid)] = (t, time.monotonic())
            try:
                await self.ws.send(data)
            except ConnectionClosed:
                break
            self.fuzzed.sent[t] += 1
            self.fuzzed.frames += 1
        return reader


async def fuzz(args: argparse.Namespace) -> None:
    """The fuzzers' process: connect and say hello, print "ready", wait for a line on stdin,
    fuzz for `--seconds`, wait DRAIN for the last replies, print the figures."""
    fuzzed = Fuzzed()
    numbers = range(args.first, args.first + args.connections)
    fuzzers = [
        Fuzzer(i, random.Random(args.seed * 100_000 + i), fuzzed, args.kinds) for i in numbers
    ]
    said = await asyncio.gather(*(f.hello(args.fuzz) for f in fuzzers), return_exceptions=True)
    ready = [f for f, ok in zip(fuzzers, said, strict=True) if ok is True]
    print(json.dumps({"ready": len(ready)}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    started = time.monotonic()
    readers = await asyncio.gather(*(f.run(args.rate, started + args.seconds) for f in ready))
    print(json.dumps({"frames": fuzzed.frames}), flush=True)
    deadline = time.monotonic() + DRAIN
    while fuzzed.waiting and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    # a request on a connection the server closed may not have been read: not counted
    shut = {f.number for f in ready if f.closed}
    unanswered = Counter(t for (n, _), (t, _) in fuzzed.waiting.items() if n not in shut)
    # a few of them, to find in the server's log (`--log`): Fz<fuzzer>, its rid, when sent
    examples = [
        f"Fz{n} rid {rid} {t} at {at - started:.1f} s"
        for (n, rid), (t, at) in sorted(fuzzed.waiting.items())
        if n not in shut
    ][:10]
    for f in ready:
        assert f.ws is not None
        f.done = True
        await f.ws.close()
    await asyncio.gather(*readers, return_exceptions=True)
    closes = dict(fuzzed.closes)
    print(
        json.dumps(
            {
                "answered": fuzzed.answered,
                "unanswered": dict(unanswered),
                "unanswered_examples": examples,
                "closed_by_server": closes,
                "sent": dict(fuzzed.sent),
            }
        ),
        flush=True,
    )


# -- one server under fuzz -------------------------------------------------------------------


async def one_server(args: argparse.Namespace, tree: str | None) -> dict[str, Any]:
    label = "before" if tree else "now"
    with (
        open(f"{args.log}.{label}", "w+")
        if args.log
        else tempfile.NamedTemporaryFile("w+", prefix="gother-serve-", suffix=".log") as log,
        tempfile.TemporaryDirectory(prefix="gother-db-") as folder,
    ):
        profile = f"{args.profile}.{label}" if args.profile else ""
        proc, port = start_server(log, os.path.join(folder, "games.db"), tree, (), profile)
        url = f"ws://{HOST}:{port}"
        try:
            ws = await connect(url, max_size=MAX_FRAME, compression=None)
            observer = Observer(ws)
            await observer.ask("hello", v=1, name="Observer")
            await observer.keep(5)
            await observer.new_table()
            quiet_from = observer.moves
            await asyncio.sleep(args.quiet)
            quiet_moves = observer.moves - quiet_from
            share = -(-args.connections // args.processes)
            fuzzers = [
                await asyncio.create_subprocess_exec(  # niced: they stand for other machines
                    *("nice", "-n", "19", sys.executable, __file__),
                    *("--fuzz", url, "--first", str(first), "--connections", str(share)),
                    *("--rate", str(args.rate), "--seconds", str(args.seconds)),
                    *("--kinds", args.kinds, "--seed", str(args.seed)),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                )
                for first in range(0, args.connections, share)
            ]
            ready = [json.loads(await said(f)) for f in fuzzers]
            before_cpu, before_moves = cpu_seconds(proc.pid), observer.moves
            before = await healthz(port)
            for f in fuzzers:
                assert f.stdin is not None
                f.stdin.write(b"go\n")
                await f.stdin.drain()
            fuzz_started = time.monotonic()
            sent = [json.loads(await said(f)) for f in fuzzers]  # the last frame is sent
            sent_for = time.monotonic() - fuzz_started
            cpu = cpu_seconds(proc.pid) - before_cpu
            fuzz_moves = observer.moves - before_moves
            after = await healthz(port)
            parts = [json.loads(await said(f)) for f in fuzzers]  # answered, or DRAIN over
            took = time.monotonic() - fuzz_started
            stalled_for = time.monotonic() - observer.last_move
            for f in fuzzers:
                await f.wait()
            ws_closed = observer.closed
            await ws.close()
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    frames = sum(part["frames"] for part in sent)
    return {
        "fuzzers": sum(r["ready"] for r in ready),
        "frames": frames,
        # while the frames were sent (the tables' bots play on after: no frame of the fuzz)
        "cpu_us_per_frame": round(cpu / max(1, frames) * 1e6),
        "server_cpu_s": round(cpu, 1),
        "sent_for_s": round(sent_for, 1),
        "answered_by_s": round(took, 1),
        "bot_moves_quiet": quiet_moves,
        "quiet_s": args.quiet,
        "bot_moves_fuzz": fuzz_moves,
        "bot_table_still_for_s": round(stalled_for, 1),
        # every move at every table meanwhile (a server before issue 31 counts players' only)
        "moves_everywhere": after["moves"] - before["moves"],
        "tables_after": after["tables"],
        "games_in_play_after": after["games"],
        "observer_closed": ws_closed,
        "answered": sum(part["answered"] for part in parts),
        "unanswered": dict(sum((Counter(part["unanswered"]) for part in parts), Counter())),
        "unanswered_examples": [e for part in parts for e in part["unanswered_examples"]][:10],
        "closed_by_server": dict(
            sum((Counter(part["closed_by_server"]) for part in parts), Counter())
        ),
    }


async def said(process: asyncio.subprocess.Process) -> bytes:
    """The next line a fuzzers' process prints."""
    assert process.stdout is not None
    return await process.stdout.readline()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connections", type=int, default=400)
    parser.add_argument("--rate", type=float, default=5.0, help="frames a second a fuzzer")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--quiet", type=float, default=8.0, help="seconds of bot moves first")
    parser.add_argument("--kinds", choices=("all", "list", "array"), default="all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log", metavar="FILE", help="keep each server's log as FILE.now…")
    parser.add_argument("--profile", metavar="FILE", help="cProfile each server to FILE.now…")
    parser.add_argument("--before", metavar="DIR", help="also a server from this source tree")
    parser.add_argument("--processes", type=int, default=2, help="the fuzzers' processes")
    parser.add_argument("--fuzz", metavar="URL", help=argparse.SUPPRESS)  # the fuzzers' process
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)  # its numbers
    args = parser.parse_args()
    if args.fuzz:
        asyncio.run(fuzz(args))
        return
    runs = [("before", args.before)] if args.before else []
    for label, tree in [*runs, ("now", None)]:
        print(label, json.dumps(asyncio.run(one_server(args, tree))), flush=True)


if __name__ == "__main__":
    main()
