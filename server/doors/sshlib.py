"""asyncssh, imported once without the warnings it sets off as it loads.

asyncssh still defines its DSA key types, and cryptography warns that DSA is deprecated at
each definition: five lines a process (the server, and each search worker that imports
it), fifteen opening the host's log, about keys no door accepts or offers. Only those
warnings are silenced, and only while asyncssh loads.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"asyncssh\.")
    import asyncssh

__all__ = ["asyncssh"]
