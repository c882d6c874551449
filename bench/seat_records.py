"""How long one client takes to fetch every seat's record of some finished games (issue 31
§5: 32 seats' records took ~100 s, mostly waiting out `rate_limited`), printed, never
asserted.

    nice -n 10 .venv/bin/python bench/seat_records.py [--games 11] [--records 32]
        [--before DIR]

A server (`gother serve`, its own process, its budgets as shipped) on a database of
finished three-seat games; one connection asks each seat's record of each game in turn,
part after part, as a client does: a `rate_limited` answer is asked again after the wait its
message names (a second when it names none). Printed: the seconds it took, and how many
requests were refused meanwhile. `--before DIR`: also a server from the source tree DIR.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hints import start_server  # noqa: E402

from tests.kits.netkit import Client  # noqa: E402
from tests.kits.tablekit import finished_games  # noqa: E402

WAIT = re.compile(r"in (\d+) s")


async def fetch_all(url: str, wanted: list[tuple[str, int]]) -> tuple[float, int, int]:
    """(seconds, parts fetched, refusals) for every (table, seat) record."""
    client = await Client.connect(url, "Viewer")
    started, parts, refused = time.perf_counter(), 0, 0
    for table, seat in wanted:
        part, count = 0, 1
        while part < count:
            reply = await client.request("record", table=table, seat=seat, part=part)
            if reply["t"] == "error":
                assert reply["code"] == "rate_limited", reply
                refused += 1
                found = WAIT.search(reply["message"])
                await asyncio.sleep(int(found[1]) if found else 1.0)  # as the message says
                continue
            count, part, parts = reply["parts"], part + 1, parts + 1
    took = time.perf_counter() - started
    await client.close()
    return took, parts, refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=11)
    parser.add_argument("--records", type=int, default=32)
    parser.add_argument("--before", metavar="DIR", help="also a server from this source tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        pristine = Path(folder, "pristine.db")
        games = finished_games(pristine, args.games)
        wanted = [(table, seat) for table in games for seat in range(3)][: args.records]
        db = str(Path(folder, "games.db"))
        for label, tree in [*([("before", args.before)] if args.before else []), ("now", None)]:
            shutil.copyfile(pristine, db)
            with open(Path(folder, "serve.log"), "w+") as log:
                proc, port = start_server(log, db, tree)
                try:
                    took, parts, refused = asyncio.run(fetch_all(f"ws://127.0.0.1:{port}", wanted))
                finally:
                    proc.terminate()
                    try:
                        proc.wait(20)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
            print(
                f"{label:>6}: {len(wanted)} seats' records ({parts} parts) in {took:.1f} s,"
                f" {refused} requests refused rate_limited on the way",
                flush=True,
            )


if __name__ == "__main__":
    main()
