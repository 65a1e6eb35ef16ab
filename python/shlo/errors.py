"""The one base of every error shlo reports to a user, so each command line catches it once.

A `ShloError` is a problem with the user's input, request or environment, whose message is
meant to be read as it is (`shlo-opt: message`, exit 1); anything else is a bug in shlo.
"""

from __future__ import annotations


class ShloError(Exception):
    """A problem to report in one line (or a block of diagnostics), never as a traceback.

    `located` errors already start with `file:line:col:`, as MLIR tools print them, and are
    shown without the command's name in front."""

    located = False


class UsageError(ShloError):
    """A mistake on the command line or in the files it names."""
