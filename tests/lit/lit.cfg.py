"""lit configuration: FileCheck tests for shlo-opt and friends, run with PyPI lit + filecheck."""

import os
import sys

import lit.formats

config.name = "shlo"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
repo_root = os.path.dirname(os.path.dirname(config.test_source_root))
config.test_exec_root = os.path.join(repo_root, "build", "lit")

# Tools come from the interpreter's environment (.venv/bin): shlo-opt, filecheck, not (lit's).
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
for name in ("HOME", "XDG_CACHE_HOME", "SHLO_CACHE_DIR", "TMPDIR"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.substitutions.append(("%PYTHON", sys.executable))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
