"""Looking: the hand, the piles, the scores, the seats, the story, the decision again, and
how the story is told (verbose); help and quit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gother_tui.plain import words
from gother_tui.plain.commands import help_lines
from gother_tui.plain.doing.where import at_table, deciding
from gother_tui.plain.moves import Problem
from protocol.view import LegalDiscardFate, LegalDiscardHand, LegalDistribute, LegalDraw

if TYPE_CHECKING:
    from gother_tui.plain.client import PlainClient

DEFAULT_LOG = 10


class Looking:
    def __init__(self, client: PlainClient) -> None:
        self.client = client

    def say(self, *lines: str) -> None:
        self.client.say(*lines)

    async def do_help(self, args: str) -> None:
        self.say(*help_lines(args))

    async def do_quit(self, args: str) -> bool:
        self.say("Goodbye.")
        self.client.end(0)
        return False

    async def do_hand(self, args: str) -> None:
        client = self.client
        self.say(*words.hand_lines(at_table(client), client.catalogue, client.glyphs))

    async def do_piles(self, args: str) -> None:
        client = self.client
        spoken = not client.verbose
        self.say(*words.piles_lines(at_table(client), client.catalogue, client.glyphs, spoken))

    async def do_scores(self, args: str) -> None:
        spoken = not self.client.verbose
        self.say(*words.scores_lines(at_table(self.client), self.client.catalogue, spoken))

    async def do_who(self, args: str) -> None:
        self.say(*words.who_lines(at_table(self.client)))

    async def do_log(self, args: str) -> None:
        at_table(self.client)
        if args and not args.isdigit():
            raise Problem("log N: N is how many lines, e.g. log 20.")
        count = int(args) if args else DEFAULT_LOG
        story = self.client.story[-count:] if count else []
        self.say(*(story or ["Nothing has happened yet."]))

    async def do_options(self, args: str) -> None:
        deciding(self.client, LegalDiscardFate, LegalDistribute, LegalDraw, LegalDiscardHand)
        self.client.say_decision(brief=False)

    async def do_more(self, args: str) -> None:
        deciding(self.client, LegalDiscardFate, LegalDistribute, LegalDraw, LegalDiscardHand)
        self.client.say_more()

    async def do_again(self, args: str) -> None:
        """The decision as it was last said; out of turn, the last line of the story."""
        client = self.client
        view = at_table(client)
        if view.you is not None and view.legal is not None and client.said == view.legal:
            self.say(*client.decision_said)
        elif client.heard:
            self.say(client.heard[-1])
        else:
            self.say("Nothing has been said yet.")

    async def do_what(self, args: str) -> None:
        """What changed since your last turn, as it was said, and a turn under way."""
        at_table(self.client)
        said = [*self.client.heard, *self.client.pending()]
        self.say(*(said or ["Nothing has changed since your last turn."]))

    async def do_verbose(self, args: str) -> None:
        word = args.lower()
        if word not in ("", "on", "off"):
            raise Problem("verbose on tells everything, verbose off the short story.")
        verbose = not self.client.verbose if not word else word == "on"
        self.client.set_verbose(verbose)
        if verbose:
            self.say("Verbose: every event and every option, in full.")
        else:
            self.say("Short: a line a turn, the first options; more says the rest.")
