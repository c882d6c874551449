"""The plain client's commands, done, a group by area as `help` lists them: looking
(`looking.py`), a move (`playing.py`), a placement composed in parts (`placing.py`), tables
and their votes (`tables.py`), finished games (`finished.py`) and tournaments
(`tournaments.py`); `where.py` the checks they share (at a table? deciding what?).
gother_tui/plain/lines.py hands each typed line to its command."""
