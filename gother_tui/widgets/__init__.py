"""Widgets of the table screen; each renders from the app's state, none talks to the server."""
