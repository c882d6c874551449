"""End to end: a real `gother serve --tls` (a self-signed certificate it makes) and the
real `gother join wss://…` in an 80x24 tmux pane. The client shows the certificate's
fingerprint, the same the server printed, and asks; `y` trusts it and the lobby opens;
the next time it is pinned and nothing is asked. All on 127.0.0.1, HOME in a temp dir."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from tests.e2e.e2ekit import GOTHER, Tmux, gother_serve, terminal_env
from tests.kits.poll import until_blocking

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]
PRINTED = re.compile(r"fingerprint (SHA256:[0-9A-F:]{95})")


def test_join_asks_once_about_a_self_signed_certificate_then_trusts_it(tmp_path: Path):
    home = tmp_path / "home"
    with gother_serve(tmp_path, "--tls") as port:
        printed = PRINTED.search((tmp_path / "serve.log").read_text())
        assert printed is not None
        join = shlex.join([str(GOTHER), "join", f"wss://127.0.0.1:{port}", "--name", "Raven"])
        tmux = Tmux(terminal_env(home, PATH="/usr/bin:/bin"))
        try:
            tmux.start("first", join)

            def asked() -> str | None:
                # the fingerprint may wrap at 80 columns: compare without line breaks
                text = tmux.screen("first")
                return text if "[y/N]" in text else None

            screen = until_blocking("the question about the certificate", asked)
            assert printed[1] in "".join(screen.split()), screen
            tmux.keys("first", "y", "Enter")
            until_blocking("the lobby", lambda: "tables yet" in tmux.screen("first"))
            known = home / "state" / "gother" / "known_servers"
            assert f"127.0.0.1:{port} {printed[1]}" in known.read_text()

            tmux.start("again", join)  # a second session on the same tmux server
            until_blocking("the lobby, asked nothing", lambda: "tables yet" in tmux.screen("again"))
            assert "[y/N]" not in tmux.screen("again")
        finally:
            tmux.kill()
