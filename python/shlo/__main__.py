"""`python -m shlo`: the `shlo` command."""

import sys

from shlo.tools.cli import main

if __name__ == "__main__":
    sys.exit(main())
