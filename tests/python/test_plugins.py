"""Third-party Python passes arrive through the `shlo.passes` entry-point group."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PLUGIN = '''
from shlo.pipeline.python_pass import register_pass

@register_pass("plugin-hello")
def hello(module, options):
    """Say hello from a plugin."""
    import sys
    sys.stderr.write("hello from a plugin\\n")
'''


def test_entry_point_pass_runs_from_the_command_line(tmp_path: Path, nested_file: Path) -> None:
    """An installed distribution's `shlo.passes` entry point: its pass runs by name and is
    listed among the passes, in a fresh process that finds it on its path."""
    (tmp_path / "shlo_plugin_demo.py").write_text(PLUGIN)
    dist = tmp_path / "shlo_plugin_demo-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: shlo-plugin-demo\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[shlo.passes]\ndemo = shlo_plugin_demo\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    opt = [sys.executable, "-m", "shlo.tools.opt_main"]
    ran = subprocess.run(
        [*opt, str(nested_file), "--plugin-hello"], capture_output=True, text=True, env=env
    )
    assert ran.returncode == 0, ran.stderr
    assert "hello from a plugin" in ran.stderr
    listed = subprocess.run([*opt, "--list-passes"], capture_output=True, text=True, env=env)
    assert "--plugin-hello" in listed.stdout
