"""Every error shlo reports to a user, one class per stage, so each command line catches them once.

A `ShloError` is a problem with the user's input, request or environment, whose message is
meant to be read as it is (`shlo-opt: message`, exit 1); anything else is a bug in shlo.
Callers catch a stage's error by its class here.  An exception that carries a failure within a
stage to where that stage reports it (a Python pass's `PassFailure`, a pipeline segment's
`PipelineFailed`) stays with its stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the bottom layer: diagnostics are only named, never imported
    from shlo.ir.diagnostics import Diagnostic


class ShloError(Exception):
    """A problem to report in one line (or a block of diagnostics), never as a traceback.

    `located` errors already start with `file:line:col:`, as MLIR tools print them, and are
    shown without the command's name in front."""

    located = False


class UsageError(ShloError):
    """A mistake on the command line or in the files it names: a missing, unreadable or
    damaged input, a bad value, a request the tool cannot take."""


class ParseError(ShloError, ValueError):
    """Malformed input: the message is MLIR's diagnostics, `file:line:col: error: ...`."""

    located = True


class OutputError(ShloError, RuntimeError):
    """An output that cannot be written where it was asked for (no such folder, no permission)."""


class PortableError(ShloError, ValueError):
    """A target version out of range, or a module that is not pure StableHLO."""


class LocatedPortableError(PortableError):
    """An op a portable artifact cannot hold, reported at its `file:line:col`."""

    located = True


class PipelineError(ShloError, ValueError):
    """The pipeline itself is wrong (its syntax, an unknown pass, a bad option): reported
    before any IR runs."""


class UnknownPass(PipelineError):
    """A pass name no world, tool or Python registry knows; carries the closest known names."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        self.name = name
        self.suggestions = suggestions
        super().__init__(self.describe())

    def describe(self, as_flag: bool = False) -> str:
        """The message, naming passes as pipeline elements or (`as_flag`) as `--flags`."""
        dash = "--" if as_flag else ""
        what = f"unknown {'pass or option' if as_flag else 'pass'} '{dash}{self.name}'"
        near = " or ".join(f"'{dash}{n}'" for n in self.suggestions)
        return what + (f"; did you mean {near}?" if near else "")


class PipelineRunError(ShloError, RuntimeError):
    """A pipeline failed on a module; the message holds MLIR's diagnostics."""


class ToolNotFound(ShloError, RuntimeError):
    """A native tool that a pipeline or a compile runs is not installed."""


class FrontendError(ShloError, RuntimeError):
    """The model could not be exported or lowered; the message lists what and where."""


class AssertionFailed(ShloError, RuntimeError):
    """A run-time assertion of the model failed on these inputs, as it fails in eager."""


class BundleError(ShloError, ValueError):
    """A bundle that cannot be written or read: what is wrong and in which file."""


class CompileError(ShloError, RuntimeError):
    """iree-compile rejected the module, or the target request cannot be honoured."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []


class RunError(ShloError, RuntimeError):
    """A problem running a module: missing device, bad module, archive or encoder, wrong
    inputs."""


class NumericsError(ShloError, AssertionError):
    """Outputs differ from the reference beyond tolerance; the message names each output."""


class InterpreterError(ShloError, RuntimeError):
    """The program cannot be interpreted (unsupported op, bad check syntax, wrong arguments);
    `location` is the op's where known."""

    def __init__(self, message: str, location: Any = None) -> None:
        super().__init__(message)
        self.location = location


class SavedModelError(ShloError, RuntimeError):
    """TensorFlow is missing, or it could not build, save or run the SavedModel."""
