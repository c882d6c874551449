"""The codes a connection is closed with, each with the reason a client reads in it."""

CLOSE_POLICY = 1008  # said no hello in time
CLOSE_RESTART = 1012  # "service restart": the server is going down, come back later
CLOSE_TRY_LATER = 1013
CLOSE_REPLACED = 4000  # the seat was resumed from another connection
CLOSE_FLOOD = 4008  # kept sending after being told it was rate limited
CLOSE_GUESSING = 1008  # "policy violation": too many wrong passwords on one connection
