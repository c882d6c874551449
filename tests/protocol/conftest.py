import pytest

from protocol.view import SeatInfo, TableInfo, Variants, View


@pytest.fixture
def lobby_view() -> View:
    table = TableInfo(
        variants=Variants(),
        id="t1",
        name="Crypt",
        deck="original",
        seats=3,
        game=0,
        spectators=0,
        password=False,
    )
    seats = tuple(
        SeatInfo(s, None, bot=False, connected=False, covered=False, rematch=False)
        for s in range(3)
    )
    return View.lobby(table, seats, None)
