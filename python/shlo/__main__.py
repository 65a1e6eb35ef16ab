"""`python -m shlo`: the `shlo` command."""

import sys

from shlo.tools.cli import main

sys.exit(main())
