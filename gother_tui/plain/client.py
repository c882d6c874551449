"""The plain client: the game as lines of text, commands typed one a line.

It is the same client as the full-screen one, without a screen: the same core
(gother_tui.core.client: the connection, every frame parsed once into the protocol's types,
the session, the flow, the seat store), whose `Face` this is, and the narrator's sentences
for everything that happens. A server that wants its password has the next line typed
taken as it, unseen. When the
game asks this player something it says the step and numbers the choices `legal` gives
(gother_tui.plain.choices); a command is checked against the view, and its request by the
protocol (`validate_request`), before anything is sent.

By default the story is told for the ear (gother_tui.plain.ear: a round heard in about a
minute, scores in words); `--verbose` (or the `verbose` command) tells every event and
every option as the full-screen client's log does.

Commands are done one at a time, in the order typed: a request's answer is in before the
next line is read, so a script's commands meet the table as it reads them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any, Literal, Protocol

from gother_tui.core import tournament_words
from gother_tui.core.catalogue import Catalogue
from gother_tui.core.client import ClientCore, Reply
from gother_tui.core.comeback import how_to_come_back, kept_for_the_first
from gother_tui.core.flow import Flow, Refusal
from gother_tui.core.glyphs import Glyphs, glyphs_for
from gother_tui.core.narrator import Line, covered_for_you, names_of, speaker
from gother_tui.core.notice import ASK_AGAIN, THINKING, Notice
from gother_tui.core.options import ClientOptions
from gother_tui.core.plans import Plan
from gother_tui.core.prompts import standings
from gother_tui.core.seat_store import SeatStore
from gother_tui.core.transport import TransportFactory, WebSocketTransport
from gother_tui.plain.choices import Decision, decision
from gother_tui.plain.ear import SPOKEN, Teller
from gother_tui.plain.story import same_game, told
from gother_tui.plain.terminal import Output
from gother_tui.plain.words import arrival_lines, cap_note, table_lines, vote_lines
from protocol import ProtocolError, Request, validate_request
from protocol import requests as rq
from protocol import server_messages as sm
from protocol.moves import Move
from protocol.view import Legal, LegalDistribute, LegalDraw, View

REPLY_TIMEOUT = 30.0  # seconds a command waits for the server's answer


class Commands(Protocol):
    """What does the lines' commands (gother_tui.plain.lines.LineCommands): given to `run`, as
    it drives this client, which need not know it."""

    async def follow(self, lines: AsyncIterator[str], ready: asyncio.Event) -> None: ...


class PlainClient:
    """`run(lines, LineCommands)` connects, follows the server and does each line's command
    until `quit`, the end of input, or a server that will not have us; returns the exit
    status."""

    def __init__(
        self,
        options: ClientOptions,
        out: Output,
        transport: TransportFactory = WebSocketTransport,
        seat_store: SeatStore | None = None,
        echo: Callable[[bool], None] = lambda on: None,
    ) -> None:
        self.options = options
        self.out = out
        self._echo = echo  # the terminal's echo, off while a password is typed
        self.verbose = options.verbose
        out.for_the_ear = not self.verbose
        self.glyphs: Glyphs = glyphs_for(options.ascii) if self.verbose else SPOKEN
        self.core = ClientCore(options, self, seat_store or SeatStore(), transport)
        self.story: list[str] = []  # this game's story, as said here (for `log`)
        self.teller = Teller(None)  # the story for the ear
        self.heard: list[str] = []  # the story said since this seat's last turn ended
        self._turn_of: int | None = None  # whose turn the story is at
        # The numbers said for the decision in front of us (a draw's run of decisions
        # keeps those of the discard pile, said once a turn), and the lines that said it.
        self._spoken: dict[int, Move] = {}
        self.spoken_for: tuple[int, int | None, str] | None = None
        self.decision_said: list[str] = []
        self._heard_count = 0  # options of that decision said, before any `more`
        # What the commands keep (gother_tui/plain/doing/), kept here alone: this client
        # forgets them as the decision, the game or the table changes
        self._tables: tuple[sm.TableRow, ...] = ()  # the lobby's list, as last shown
        self._hint: tuple[Legal, sm.Hint] | None = None  # the hint, and the decision it is for
        self._plan: Plan | None = None  # a placement composed in parts
        self._drawing_all = False  # "draw all" under way: it speaks when it is done
        self._shown: Legal | None = None  # the decision last followed
        self.said: Legal | None = None  # the decision whose options were printed last
        self._ready = asyncio.Event()  # in the lobby or at a table: commands may start
        self._ended: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._last_loss = ""
        self._token_said = False  # the SSH door's new token: said once
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def view(self) -> View | None:
        return self.core.view

    @property
    def catalogue(self) -> Catalogue:
        return self.core.catalogue

    @property
    def tournament(self) -> sm.Tournament | None:
        return self.core.tournament

    @property
    def flow(self) -> Flow:
        return self.core.flow

    # -- running ----------------------------------------------------------------------------

    async def run(
        self, lines: AsyncIterator[str], player: Callable[[PlainClient], Commands]
    ) -> int:
        """Connect and do every line's command with `player(self)`; the exit status."""
        network = asyncio.create_task(self.core.run())
        try:
            commands = asyncio.create_task(player(self).follow(lines, self._ready))
            either: set[asyncio.Future[Any]] = {commands, self._ended}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if commands.done():
                commands.result()  # an error in a command is a bug: let it show
                self.end(0)
            else:
                commands.cancel()
            return await self._ended
        finally:
            if self.flow.wants_password:  # quit at the password: show typing again
                self._echo(True)
            await self.core.close()
            network.cancel()
            for task in self._tasks:
                task.cancel()

    def end(self, status: int) -> None:
        if not self._ended.done():
            self._ended.set_result(status)

    def say(self, *lines: str) -> None:
        self.out.lines(list(lines))
        if self.out.closed:  # no one reads any more: as quit
            self.end(0)

    def spawn(self, job: Any) -> None:
        task = asyncio.create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- requests ---------------------------------------------------------------------------

    async def ask(self, request: Request, *, quiet: bool = False) -> Reply | None:
        """Send `request` (checked by the protocol first) and wait for its answer: the
        reply, the server's error (said, unless `quiet`), or None (nothing sent, or no
        answer; said)."""
        try:
            validate_request(request.to_wire())
        except ProtocolError as exc:
            self.say(f"Not sent: the server would refuse it ({exc.message}).")
            return None
        answer: asyncio.Future[Reply | None] = asyncio.get_running_loop().create_future()

        def settle(asked: Request, reply: Reply | None) -> None:
            if not answer.done():
                answer.set_result(reply)

        rid = self.core.request(request, settle)
        if rid is None:
            return None
        try:
            reply = await asyncio.wait_for(answer, REPLY_TIMEOUT)
        except TimeoutError:
            self.core.abandon(rid)
            what = request.__struct_config__.tag
            self.say(f"No answer from the server to {what} in {REPLY_TIMEOUT:g} s.")
            return None
        if isinstance(reply, sm.Error) and not quiet:
            self.say(f"The server refused: {reply.message}")
            if kept := kept_for_the_first(reply.code, self.options.door_token):
                self.say(kept)
        return reply

    # -- the face: what the core hears, as lines ---------------------------------------------

    def connected(self) -> None:
        self._last_loss = ""

    def lost(self, reason: str, retry_in: float | None) -> None:
        if retry_in is None:
            self.say(f"Disconnected: {reason}.")
            self.end(1)
        elif reason != self._last_loss:  # a server down for long is said once
            self._last_loss = reason
            self.say(f"Connection: {reason}; trying again every few seconds.")

    def unreadable(self, problem: str) -> None:
        self.say(f"The server sent something this client cannot read ({problem}).")

    def notice(self, notice: Notice) -> None:
        self.say(f"{notice.title}: {notice.text}" if notice.title else notice.text)

    def turned_away(self, why: str, notice: Notice | None) -> None:
        self.say(why)
        self.end(1)

    def go(self, where: Literal["lobby", "table"], why: Refusal | None) -> None:
        if where == "table":
            self._ready.set()
        else:  # the refusal that sent us there was said as a notice
            self.spawn(self._lobby())

    def welcomed(self, server: str) -> None:
        self.say(f"Connected to {self.options.url} ({server}) as {self.options.name}.")
        token = self.options.door_token
        if token is not None and not self._token_said:  # once, not at every reconnection
            self._token_said = True
            self.say(how_to_come_back(token))

    def covered(self, rounds: int) -> None:
        self.say(covered_for_you(rounds).text)

    def shown(self, before: View | None, added: list[Line]) -> None:
        view = self.view
        if view is None:
            self._forget()
        else:  # the plain mode tells from the views (plain/story.py), not the chronicle's
            self._show_state(before, view)

    def chat_changed(self, line: sm.Chat | None) -> None:
        if line is not None:  # the sender's own copy too: it answers its `chat`
            self.say(f"{speaker(line, self.glyphs)} says: {line.text}")

    def followed(self, news: str | None) -> None:
        if news is not None:
            self.say(news)

    def left(self) -> None:
        self.say("You left the table.")

    def closed(self, reason: str, last: View | None) -> None:
        self.say(f"The table was closed: {reason}")
        if last is not None and last.phase not in ("lobby", "over"):
            self.say(f"Final standings: {standings(last, self.glyphs)}.")

    # -- the server's password --------------------------------------------------------------

    def ask_password(self, why: str) -> None:
        self._echo(False)  # before the question: what is typed at once stays unseen
        self.say(f"{why} Type the server's password (it is not shown), or quit.")
        self._ready.set()  # the next line typed is the password

    def password_typed(self, password: str) -> None:
        """The line typed at the password prompt: say hello with it."""
        self._echo(True)
        self.say("Trying the password.")
        self._ready.clear()  # until the welcome: commands typed ahead wait for it
        self.core.password_given(password)

    def _forget(self) -> None:
        self.story, self._plan, self._shown, self.said = [], None, None, None
        self._hint, self.teller, self.heard, self._spoken = None, Teller(None), [], {}

    async def _lobby(self) -> None:
        self.say(f"You are in the lobby of {self.options.url}.")
        reply = await self.ask(rq.List())
        if isinstance(reply, sm.Tables):
            self.show_tables(reply)
        self._ready.set()

    def show_tables(self, listed: sm.Tables) -> None:
        """Say the lobby's list, and keep it: `join N` and `watch N` count in it."""
        self._tables = listed.tables
        self.say(*table_lines(listed.tables))
        self.say(*tournament_words.open_line(listed.tournaments, "tournament"))

    @property
    def tables(self) -> tuple[sm.TableRow, ...]:
        """The lobby's list, as last shown."""
        return self._tables

    # -- the table --------------------------------------------------------------------------

    def _show_state(self, before: View | None, view: View) -> None:
        new_table = before is None or before.table.id != view.table.id
        if not same_game(before, view):
            self.story, self._hint, self.heard = [], None, []
            self.teller = Teller(view.seat)
        if new_table:
            self.say(*arrival_lines(view))
            if view.log and view.phase != "lobby":
                self.say("What happened lately:")
        elif before is not None and _between_games(before) and not _between_games(view):
            self.say(f"The cards are dealt: game {view.table.game} begins.{cap_note(view)}")
        self._tell(told(before, view, self.core.catalogue, self.glyphs), view)
        if same_game(before, view) and before is not None:
            self.say(*vote_lines(before, view))
        if view.over and view.seat is not None and not (before is not None and before.over):
            self.say("Type rematch to play again, leave to leave the table, or quit.")
        self._follow_decision()

    def _tell(self, lines: list[Line], view: View) -> None:
        """Say the story's new lines: each as told, or for the ear."""
        names, teller = names_of(view.players), self.teller
        for line in lines:
            said = [line.text] if self.verbose else teller.tell(line, self.catalogue, names)
            mine_ended = view.seat is not None and self._turn_of == view.seat != line.actor
            if line.kind == "turn" and mine_ended:
                self.heard = []  # `what` tells what changed since your turn (not its end)
            else:
                self.heard.extend(said)
            if line.kind == "turn":
                self._turn_of = line.actor
            self.story.extend(said)
            self.say(*said)

    def set_verbose(self, verbose: bool) -> None:
        """Tell the whole story from now on, or the ear's; nothing held back is lost."""
        if not verbose and self.verbose:
            self.teller = Teller(self.view.seat if self.view is not None else None)
        elif verbose and not self.verbose:
            self.say(*self.pending(), *self.teller.draws(self.catalogue))
        self.verbose = verbose
        self.out.for_the_ear = not verbose
        self.glyphs = glyphs_for(self.options.ascii) if verbose else SPOKEN

    def pending(self) -> list[str]:
        """Another player's turn under way, as the ear hears it once it ends."""
        if self.view is None or self.verbose:
            return []
        return self.teller.so_far(self.catalogue, names_of(self.view.players))

    def _follow_decision(self) -> None:
        """Say the decision in front of us once, when it is new."""
        view = self.view
        legal = view.legal if view is not None and view.you is not None else None
        if legal == self._shown:
            return
        self._shown, self._plan = legal, None  # a placement in the making was for the old one
        if legal is None or self._drawing_all:
            return
        if isinstance(legal, LegalDistribute) and self.hint_for(legal) is None:
            self.spawn(self._hint_then_say(legal))
        else:
            self.say_decision()

    def decision_again(self) -> None:
        """Say the decision in front of us now, whether or not it was said (after "draw all")."""
        self._shown = None
        self._follow_decision()

    async def _hint_then_say(self, legal: Legal) -> None:
        """A placement's options start with the hint: ask for it, then say them. A hint the
        server is still thinking about does not hold them up: they are said without it,
        and the hint once it comes."""
        reply = await self.ask(rq.Hint(), quiet=True)
        if isinstance(reply, sm.Hint):
            self.keep_hint(legal, reply)
        if self.view is not None and self.view.legal == legal and self._shown == legal:
            self.say_decision()
        if isinstance(reply, sm.Error) and reply.code == THINKING:
            later = await self.hint_when_thought(legal)
            if later is not None:  # the options again, the hint first, as numbered now
                self.keep_hint(legal, later)
                self.say("The hint has come:")
                self.decision_again()

    async def hint_when_thought(self, legal: Legal) -> sm.Hint | None:
        """Ask again, every ASK_AGAIN seconds, for a hint the server is still thinking about,
        while `legal` is the decision in front of us; None once it is not (or refused:
        said)."""
        while True:
            await asyncio.sleep(ASK_AGAIN)  # the server's pace, not a wait on an event
            if self.view is None or self.view.legal != legal:
                return None
            reply = await self.ask(rq.Hint(), quiet=True)
            if isinstance(reply, sm.Hint):
                return reply
            if not isinstance(reply, sm.Error) or reply.code != THINKING:
                if isinstance(reply, sm.Error):
                    self.say(f"No hint: {reply.message}")
                return None

    def tell_hint(self, reply: sm.Hint) -> None:
        """Say a hint for the decision in front of us, as the option that plays it."""
        view = self.view
        if view is None or view.legal is None:
            return
        self.keep_hint(view.legal, reply)
        found = self.decision()
        number = found.number_of(reply.move) if found is not None else None
        reason = f": {reply.reason}" if reply.reason else ""
        if found is None or number is None:
            self.say(f"Hint: the move {reply.move}{reason}.")
            return
        option = found.options[number - 1]
        self.option_said(number, option.move)  # said here: its number may be played
        text = option.text if self.verbose else option.spoken
        self.say(f"Hint: option {number}, {text}{reason}.")

    def decision(self) -> Decision | None:
        view = self.view
        if view is None or view.you is None:
            return None
        return decision(view, self.catalogue, self.glyphs, self.hint_for(view.legal))

    def hint_for(self, legal: Legal | None) -> sm.Hint | None:
        """The hint kept, if it was given for `legal` (a decision is one move: it is kept
        until the next)."""
        if self._hint is None or legal is None or self._hint[0] != legal:
            return None
        return self._hint[1]

    def keep_hint(self, legal: Legal, hint: sm.Hint) -> None:
        """The server's hint for the decision `legal`: its options start with it."""
        self._hint = (legal, hint)

    @property
    def plan(self) -> Plan | None:
        """A placement composed in parts, for the decision in front of us."""
        return self._plan

    def compose(self, plan: Plan | None) -> None:
        """Keep `plan` as the placement composed so far (None: there is none)."""
        self._plan = plan

    @contextlib.contextmanager
    def drawing_all(self) -> Iterator[None]:
        """A "draw all" under way: its draws say nothing; once done, the decision then in
        front of us is said."""
        self._drawing_all = True
        try:
            yield
        finally:
            self._drawing_all = False
            self.decision_again()

    @property
    def spoken(self) -> Mapping[int, Move]:
        """The options said of the decision in front of us, by number: those may be played."""
        return self._spoken

    def option_said(self, number: int, move: Move) -> None:
        """Option `number` was said (a hint named it): it may be played."""
        self._spoken[number] = move

    def say_decision(self, brief: bool = True) -> None:
        """Say the decision in front of us; `brief`: a draw after the step's first says
        only its reminder (`options` asks for the draw's options again)."""
        found, view = self.decision(), self.view
        if found is None or view is None or view.legal is None:
            return
        self.said = view.legal
        key = (view.round, view.turn, view.legal.kind)
        if key != self.spoken_for:
            self._spoken, self.spoken_for = {}, key
        if self.verbose:
            lines, count = found.lines(), len(found.options)
            said = lines
        else:
            self.say(*self.teller.draws(self.catalogue))
            # the discard pile is said at a turn's first draw, not again at every draw
            pile_said = isinstance(view.legal, LegalDraw) and bool(self._spoken)
            lines, count = found.short_lines(pile_said), found.heard(pile_said)
            said = found.short_lines(pile_said, reminded=brief)
        self._spoken.update((i, o.move) for i, o in enumerate(found.options[:count], 1))
        self.decision_said, self._heard_count = lines, count  # `again` says the options
        self.say(*said)

    def say_more(self) -> None:
        """The options of the decision not said yet; their numbers may then be played."""
        found = self.decision()
        if found is None or self.view is None:
            return
        if self.said != self.view.legal:
            self.say("Your options are not listed yet: they come in a moment.")
            return
        rest = found.more_lines(self._heard_count)
        if not rest:
            self.say("That is every option.")
            return
        self._spoken.update(enumerate((o.move for o in found.options), 1))
        self._heard_count = len(found.options)
        self.say(*rest)


def _between_games(view: View) -> bool:
    return view.phase in ("lobby", "over")
