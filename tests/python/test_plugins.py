"""Third-party Python passes arrive through the `shlo.passes` entry-point group."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shlo.pipeline import python_registry
from shlo.pipeline.python_pass import REGISTRY
from shlo.tools.opt_main import main

PLUGIN = '''
from shlo.pipeline.python_pass import register_pass

@register_pass("plugin-hello")
def hello(module, options):
    """Say hello from a plugin."""
    import sys
    sys.stderr.write("hello from a plugin\\n")
'''


def test_entry_point_pass_runs_from_the_command_line(
    tmp_path: Path,
    nested_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "shlo_plugin_demo.py").write_text(PLUGIN)
    dist = tmp_path / "shlo_plugin_demo-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: shlo-plugin-demo\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[shlo.passes]\ndemo = shlo_plugin_demo\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(python_registry, "_ENTRY_POINTS_LOADED", [])
    monkeypatch.delitem(sys.modules, "shlo_plugin_demo", raising=False)
    try:
        assert main([str(nested_file), "--plugin-hello"]) == 0
        assert "hello from a plugin" in capsys.readouterr().err
        assert "plugin-hello" in python_registry.python_passes()
    finally:
        REGISTRY.pop("plugin-hello", None)
