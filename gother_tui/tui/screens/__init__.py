"""The client's screens: connecting, lobby, table, and the modal ones (help, too small,
create a table, pile viewers, confirmations)."""
