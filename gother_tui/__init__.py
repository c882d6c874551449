"""The Textual client and the `gother` command line."""
