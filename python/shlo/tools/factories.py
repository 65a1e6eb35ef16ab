"""Find the model a command names: `pkg.module:factory` or `path/to/file.py:factory`.

Found the way `python -c "from mymodels import small"` finds it: the current folder is on the
path, and a file's own folder is too when it is named by path (so its siblings import).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from shlo.errors import UsageError
from shlo.runtime.value_syntax import parse_values

DEFAULT_FACTORY = "model"


def load_factory(target: str) -> tuple[Any, Any]:
    """Call the factory `target` names; returns (model, example inputs or None)."""
    location, _, name = target.rpartition(":") if ":" in target else (target, "", "")
    module = _import(location, target)
    missing = object()
    factory = getattr(module, name or DEFAULT_FACTORY, missing)
    if factory is missing:
        found = sorted(
            n
            for n, v in vars(module).items()
            if callable(v) and not n.startswith("_") and v.__module__ == module.__name__
        )
        raise UsageError(
            f"cannot load '{target}': {location} has no '{name or DEFAULT_FACTORY}'"
            + (f"; it defines {', '.join(found)}" if found else "")
        )
    if isinstance(factory, torch.nn.Module):  # the model itself
        return factory, None
    if not callable(factory):
        raise UsageError(
            f"cannot load '{target}': '{name}' is a {type(factory).__name__}, not a factory"
        )
    try:
        made = factory()
    except Exception as error:  # the user's own code: say which call failed and how
        hint = ""
        if isinstance(error, TypeError) and "required positional argument" in str(error):
            hint = " (it is called with no arguments: name a model class, a model, or a "
            hint += "function that returns a model or (model, inputs))"
        raise UsageError(f"{target}() raised {type(error).__name__}: {error}{hint}") from None
    model, example = made if isinstance(made, tuple) and len(made) == 2 else (made, None)
    if not callable(model):
        raise UsageError(f"{target}() returned a {type(model).__name__}, not a model")
    return model, example


def model_and_inputs(target: str, texts: list[str]) -> tuple[Any, tuple[torch.Tensor, ...]]:
    """The factory's model and its inputs: those given as `--input` values, else the
    factory's example inputs."""
    model, example = load_factory(target)
    inputs = tuple(map(torch.from_numpy, parse_values(texts))) if texts else example
    if inputs is None:
        raise UsageError("the factory returned no example inputs: give --input SHAPExTYPE")
    return model, tuple(inputs)


def _import(location: str, target: str) -> ModuleType:
    try:
        if location.endswith(".py") or "/" in location:
            return _import_file(Path(location))
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        return importlib.import_module(location)
    except (ImportError, SyntaxError, OSError) as error:
        raise UsageError(f"cannot load '{target}': {error}") from None
    except SystemExit as error:  # a script's main run at import
        raise UsageError(
            f"cannot load '{target}': importing {location} called sys.exit({error.code}) (a "
            "script? guard its main code with `if __name__ == '__main__':`)"
        ) from None
    except Exception as error:  # the user's module failed as it ran
        raise UsageError(
            f"cannot load '{target}': importing {location} raised {type(error).__name__}: {error}"
        ) from None


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise FileNotFoundError(f"no file {path}")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module
