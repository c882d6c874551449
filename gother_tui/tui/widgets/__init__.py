"""Widgets of the table screen: each draws from the session it is given; none talks to
the server."""
