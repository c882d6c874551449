"""The asyncio side of pacing (server/pacer.py) on the real event loop: bots play by
themselves, and a bot that thinks long does it in a worker process, off the loop."""

from __future__ import annotations

import asyncio
import time

from server.pacer import Pacer
from server.searches import Searches
from server.table import Table
from tests.server.netkit import TIMEOUT
from tests.server.tablekit import make_table


async def test_a_bot_that_thinks_long_leaves_the_loop_to_the_other_tables():
    """An ISMCTS move takes half a second of search; meanwhile a heuristic table on the
    same loop goes on playing. On the loop itself it could not make a single move."""
    moves: list[str] = []
    first_slow_move = asyncio.Event()

    def moved(table: Table) -> None:
        moves.append(table.id)
        if table.id == "slow":
            first_slow_move.set()
        pacer.arm(table)

    searches = Searches(workers=1)
    pacer = Pacer(moved, searches, ended=lambda table: None)  # all-bot tables: no votes
    slow = make_table(time.monotonic, bots=3, bot_kind="ismcts", table_id="slow")
    quick = make_table(time.monotonic, bots=3, table_id="quick")
    for table in (slow, quick):
        table.settings.bot_delay = 0.0
        assert table.start_if_full()
    assert slow.seats[0] is not None and slow.seats[0].bot_kind == "ismcts"
    pacer.arm(slow)  # armed first: its bot starts thinking first
    pacer.arm(quick)
    try:
        await asyncio.wait_for(first_slow_move.wait(), TIMEOUT)
    finally:
        pacer.close()
        searches.close()
    assert moves.index("slow") >= 3, moves
