"""The connection flow as a plain class, without Textual: where the client goes after each
thing the server says (welcome, joined, watching, left, a refusal), and which seat tokens
it keeps."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from gother_tui.core.flow import Flow, Step
from gother_tui.core.identity import file_for
from gother_tui.core.options import ClientOptions
from gother_tui.core.seat_store import SeatStore
from protocol import PROTOCOL_VERSION
from protocol import requests as rq
from protocol import server_messages as sm
from server.edge.identity import proves
from tests.tui.viewkit import TABLE, TOKEN

URL = "ws://flow.invalid:8765"


@pytest.fixture
def store(tmp_path) -> SeatStore:
    return SeatStore(tmp_path / "seats.json")


def flow(store: SeatStore, **options: Any) -> Flow:
    return Flow(ClientOptions(url=URL, **{"name": "Raven", **options}), store)


def joined(table: str = TABLE, token: str = TOKEN) -> sm.Joined:
    return sm.Joined(table=table, seat=0, token=token, cards=())


def error(code: str, message: str = "no") -> sm.Error:
    return sm.Error(code=code, message=message)


def hello(**fields: Any) -> rq.Hello:
    """A hello the flow sent (rid 1)."""
    return rq.Hello(rid=1, v=PROTOCOL_VERSION, name="Raven", **fields)


def test_every_connection_starts_with_hello_and_the_servers_password(store):
    key = store.key("Raven").public  # the player's lasting identity, named in every hello
    assert flow(store).hello() == rq.Hello(v=PROTOCOL_VERSION, name="Raven", key=key)
    with_password = flow(store, password="s3cret").hello()
    assert with_password is not None and with_password.password == "s3cret"


def test_the_first_welcome_resumes_a_saved_seat(store):
    store.save(URL, TABLE, TOKEN, "Raven")
    assert flow(store).welcomed() == Step(ask=rq.Resume(token=TOKEN))


def test_the_first_welcome_goes_to_the_table_asked_for_else_the_lobby(store):
    assert flow(store, table="t9", password="pw").welcomed() == Step(
        ask=rq.Join(table="t9", password="pw")
    )
    assert flow(store, table="t9", watch=True).welcomed().ask == rq.Watch(table="t9")
    assert flow(store).welcomed() == Step(go="lobby")


def test_a_spectator_never_resumes_a_saved_seat(store):
    store.save(URL, TABLE, TOKEN, "Raven")
    assert flow(store, watch=True).welcomed() == Step(go="lobby")


def test_a_seat_is_kept_and_resumed_after_a_loss(store):
    f = flow(store)
    f.welcomed()
    assert f.seated(joined()) == Step(forget_view=True, go="table")
    assert (f.table, f.seat) == (TABLE, 0)
    assert store.find(URL, TABLE, "Raven") == (TABLE, TOKEN)
    assert f.welcomed() == Step(ask=rq.Resume(token=TOKEN))  # welcome again
    assert f.seated(joined()) == Step(forget_view=False, go="table")  # the same table


def test_a_spectator_watches_again_after_a_loss(store):
    f = flow(store, watch=True)
    f.welcomed()
    f.watching(sm.Watching(table=TABLE, cards=()))
    assert (f.table, f.seat) == (TABLE, None)
    assert f.welcomed() == Step(ask=rq.Watch(table=TABLE))
    assert store.find(URL) is None  # a spectator has no token


def test_leaving_forgets_the_seat_and_shows_the_lobby(store):
    f = flow(store)
    f.seated(joined())
    assert f.left() == Step(forget_view=True, go="lobby")
    assert store.find(URL) is None and f.table is None
    assert f.welcomed() == Step(go="lobby")  # not the first welcome: no --table again


def test_a_bad_saved_token_is_forgotten_then_the_table_asked_for_is_joined(store):
    store.save(URL, TABLE, "a-stale-token-from-before", "Raven")
    f = flow(store, table=TABLE)
    resume = f.welcomed()
    assert resume.ask == rq.Resume(token="a-stale-token-from-before")
    step = f.refused(replace(resume.ask, rid=1), error("bad_token"))
    assert step.forget_view and step.ask == rq.Join(table=TABLE)
    assert step.notice is not None and "no longer valid" in step.notice.text
    assert store.find(URL) is None


def test_another_refused_resume_keeps_the_token(store):
    store.save(URL, TABLE, TOKEN, "Raven")
    f = flow(store)
    f.welcomed()
    step = f.refused(rq.Resume(rid=1, token=TOKEN), error("rate_limited", "slow down"))
    assert step == Step(notice=step.notice) and step.notice.text == "slow down"
    assert store.find(URL) == (TABLE, TOKEN)


def test_a_refused_hello_says_why_on_the_connecting_screen(store):
    step = flow(store).refused(hello(), error("bad_version", "this server speaks v1"))
    assert step.detail == "The server refused us: this server speaks v1" and step.go is None
    assert step.password is None


@pytest.mark.parametrize("code", ["wrong_password", "too_many_attempts"])
def test_a_server_that_wants_its_password_has_it_asked_and_no_hello_until_typed(store, code):
    f = flow(store, password="guess", table="t9")
    step = f.refused(hello(password="guess"), error(code, "wrong password"))
    assert step == Step(password="Wrong password.")
    assert f.hello() is None  # a reconnect says nothing: it would spend a guess
    typed = f.password_given("s3cret")
    said = rq.Hello(v=PROTOCOL_VERSION, name="Raven", key=f.key.public, password="s3cret")
    assert typed == said
    assert f.hello() == typed  # and every later connection says it too
    assert f.welcomed().ask == rq.Join(table="t9", password="guess")  # the table's


def test_a_refused_table_lands_in_the_lobby_with_the_reason(store):
    f = flow(store, watch=True)
    f.watching(sm.Watching(table=TABLE, cards=()))
    gone = error("no_such_table", "there is no table 't1'")
    step = f.refused(rq.Watch(rid=1, table=TABLE), gone)
    assert step.go == "lobby" and step.why is not None and step.why[1] is gone
    assert f.table is None  # in the lobby, so a later welcome does not watch it again
    assert f.welcomed() == Step(go="lobby")


# -- the lasting identity (issue 18, item 2) --------------------------------------------------


def test_the_key_is_made_once_private_and_kept_beside_the_seats(store):
    first = flow(store).key
    path = store.path.parent / file_for("Raven")
    assert path.stat().st_mode & 0o777 == 0o600
    assert flow(SeatStore(store.path)).key.public == first.public  # the same person next run


def test_two_names_that_share_a_state_folder_are_two_people(store):
    """Friends on one computer account keep one state folder, as their seat tokens always
    did by name: each name plays under a key of its own, so neither takes the other's seat."""
    raven, lenore = flow(store).key, flow(store, name="Lenore").key
    assert raven is not None and lenore is not None and raven.public != lenore.public
    assert flow(SeatStore(store.path), name="Lenore").key.public == lenore.public


def test_a_challenge_is_proved_with_the_key_and_the_server_checks_it(store):
    challenge = bytes(range(32))
    me = flow(store)
    step = me.welcomed(challenge)
    assert isinstance(step.ask, rq.Prove)
    signature = step.ask.signature
    assert proves(me.key.public, challenge, signature)
    assert not proves(me.key.public, bytes(32), signature)  # it signs that challenge only


def test_proven_with_a_seat_held_resumes_it_by_table_without_a_token(store):
    me = flow(store)
    me.welcomed(bytes(32))
    held = (sm.HeldSeat(table="t2", seat=1), sm.HeldSeat(table="t9", seat=0))
    assert me.proven(sm.Proven(identity="abc", seats=held)) == Step(ask=rq.Resume(table="t2"))
    asked_for = flow(store, table="t9")
    asked_for.welcomed(bytes(32))
    assert asked_for.proven(sm.Proven(identity="abc", seats=held)).ask == rq.Resume(table="t9")


def test_no_seat_held_means_the_lobby_and_a_saved_token_its_table(store):
    me = flow(store)
    assert me.proven(sm.Proven(identity="abc")) == Step(go="lobby")
    store.save(URL, TABLE, TOKEN, "Raven")
    assert flow(store).proven(sm.Proven(identity="abc")).ask == rq.Resume(token=TOKEN)
    held = (sm.HeldSeat(table=TABLE, seat=0),)  # the same seat: by its token, as saved
    assert flow(store).proven(sm.Proven(identity="abc", seats=held)).ask == rq.Resume(token=TOKEN)


def test_the_identitys_newest_seat_goes_before_an_older_saved_token(store):
    """A tournament's next round seated us while we were away: the token saved is the
    round before's; the server lists the seat of the game in play first."""
    store.save(URL, TABLE, TOKEN, "Raven")
    held = (sm.HeldSeat(table="t2", seat=1), sm.HeldSeat(table=TABLE, seat=0))
    assert flow(store).proven(sm.Proven(identity="abc", seats=held)).ask == rq.Resume(table="t2")
    asked_for = flow(store, table=TABLE)  # --table names the saved seat's: there it goes
    assert asked_for.proven(sm.Proven(identity="abc", seats=held)).ask == rq.Resume(token=TOKEN)


def test_a_refused_proof_plays_on_anonymously(store):
    me = flow(store, table="t9")
    prove = rq.Prove(rid=1, signature=bytes(64))
    step = me.refused(prove, error("bad_signature", "that signature does not prove"))
    assert step.notice is not None and "does not prove" in step.notice.text
    assert step.ask == rq.Join(table="t9")


ELSEWHERE = "ws://other.invalid:8766"


def test_a_table_held_elsewhere_is_asked_for_again_there_once(store):
    f = flow(store, anonymous=True)
    asked = rq.Join(rid=3, table=TABLE)
    sent_on = error("elsewhere")
    assert f.follow(asked, sent_on) is None  # no url: nowhere to follow
    there = replace(sent_on, url=ELSEWHERE)
    assert f.follow(rq.Chat(rid=4, text="hi"), there) is None  # only what names a table
    assert f.follow(asked, there) == Step(follow=ELSEWHERE)
    assert f.welcomed() == Step(ask=rq.Join(table=TABLE), again=True)  # a rid of its own there
    assert f.follow(rq.Join(rid=5, table=TABLE), there) is None  # sent on again: not followed
    f.seated(joined())
    assert store.find(URL) == (TABLE, TOKEN) and store.place(URL, TABLE) == ELSEWHERE


def test_a_call_to_a_tournament_table_elsewhere_is_followed_between_games_only(store):
    """An `elsewhere` of the server's own names the table held for our identity there: the
    flow goes there, proves its key, and resumes it; never out of a game in progress, and
    not anonymously (no identity holds a seat)."""
    called = replace(error("elsewhere"), url=ELSEWHERE, table="t2")
    assert flow(store, anonymous=True).called(called, playing=False) is None
    f = flow(store)
    assert f.called(called, playing=True) is None and f.at == URL
    assert f.called(replace(called, table=None), playing=False) is None  # an old server's
    assert f.called(called, playing=False) == Step(follow=ELSEWHERE) and f.at == ELSEWHERE
    assert f.welcomed() == Step(ask=rq.Resume(table="t2"), again=True)  # no challenge asked
    f.seated(joined(table="t2"))
    assert store.place(URL, "t2") == ELSEWHERE  # a restart resumes it there


def test_a_seat_saved_at_another_process_of_the_host_is_resumed_there(store):
    store.save(URL, TABLE, TOKEN, "Raven", at=ELSEWHERE)
    f = flow(store, anonymous=True)
    assert f.welcomed() == Step(follow=ELSEWHERE)  # the host's address, then where it lives
    assert f.welcomed() == Step(ask=rq.Resume(token=TOKEN), again=True)
    assert f.at == ELSEWHERE


TAKER = "ws://taker.invalid:8767"


def test_a_seat_whose_process_was_lost_is_asked_back_at_the_host_s_address(store):
    """The process holding the seat died (issue 34 §3): the next connection is to the host's
    address, the seat asked back there with its table, and followed to where it is now."""
    f = flow(store, anonymous=True)
    assert f.lost() is None  # lost at the host's address: tried there again
    f.follow(rq.Join(rid=3, table=TABLE), replace(error("elsewhere"), url=ELSEWHERE))
    f.welcomed()
    f.seated(joined())  # seated at ELSEWHERE
    assert f.lost() == URL  # that process is gone: the host's address next
    asked = rq.Resume(token=TOKEN, table=TABLE)
    assert f.welcomed() == Step(ask=asked)  # not to the place saved, which is lost
    there = replace(error("elsewhere"), url=ELSEWHERE)  # its lease runs yet: still there
    assert f.follow(replace(asked, rid=7), there) == Step(follow=ELSEWHERE)
    assert f.lost() == URL  # and it is not there: back again
    assert f.welcomed() == Step(ask=asked, again=True)  # the same, still with its table
    taken = replace(error("elsewhere"), url=TAKER)  # taken over by another process
    assert f.follow(replace(asked, rid=8), taken) == Step(follow=TAKER)
    assert f.welcomed() == Step(ask=asked, again=True)
    f.seated(joined())
    assert f.at == TAKER and store.place(URL, TABLE) == TAKER
    assert f.lost() == URL and f.welcomed() == Step(ask=asked)  # and again, if it dies too


def test_a_saved_seat_followed_to_a_process_that_is_gone_is_asked_with_its_table(store):
    store.save(URL, TABLE, TOKEN, "Raven", at=ELSEWHERE)
    f = flow(store, anonymous=True)
    assert f.welcomed() == Step(follow=ELSEWHERE)
    assert f.lost() == URL  # it could not be reached
    assert f.welcomed() == Step(ask=rq.Resume(token=TOKEN, table=TABLE), again=True)
