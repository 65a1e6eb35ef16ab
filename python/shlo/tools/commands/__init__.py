"""One module per `shlo` subcommand, each with `add_arguments(parser)` and `run(args)`.

`shlo.tools.cli` knows their names and help lines and imports a module only once its command
is chosen, so each module imports what it needs at its top and `shlo --help` stays fast.
"""

PROG = "shlo"
