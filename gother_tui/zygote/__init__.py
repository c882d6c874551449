"""A door's zygote: the client imported and warmed once, forking one client per session
(`python -m gother_tui.zygote`, started by its door: server/doors/forks.py). It is the
client's program; the door only speaks to it through a socket, and imports none of it."""
