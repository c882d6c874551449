"""The requests' handlers, a group by area, each given only the services it uses:
arriving (`arrival.py`), at a table (`table.py`), finished games (`finished.py`),
tournaments (`tournaments.py`) and the host's standings (`standings.py`). Which handler
answers which request is said once, in server/edge/dispatch.py."""
