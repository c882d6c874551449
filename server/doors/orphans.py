"""A door's client processes end with their door. Each runs in a session of its own (so
that it can always be ended whole), so a door that is killed leaves its clients behind,
each still holding its seat's connection to the game server, with nobody at the other
end. On Linux the kernel kills such a client as its door dies (PR_SET_PDEATHSIG); on
other systems an SSH client still hears its terminal hang up.
"""

from __future__ import annotations

import ctypes
import signal
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# looked up now, in the door: the child between fork and exec does nothing but call it
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None


def end_with_door() -> None:
    """A preexec_fn: the new client is killed when the process that started it ends."""
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)
