"""The command line, one module per command group; `cli.py` assembles them."""
