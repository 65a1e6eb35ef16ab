"""JAX in: functions exported in JAX's child process, flattened by the `jax` profile, compiled
and run with IREE (and interpreted), numbers held to JAX's own; each refusal in one line."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from types import ModuleType

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from shlo.api import ShloError, compile_jax, import_jax
from shlo.interpreter.evaluate import interpret_module
from shlo.ir.edit import functions
from shlo.jax.profile import jax_flatten
from shlo.jax.trees import flatten
from shlo.runtime.loaded import available_devices

PROGRAMS = '''
import os
import signal

import jax
import jax.numpy as jnp


def tree(params, x, *, scale):
    """Pytrees in (a dict, a keyword) and out (a dict holding a tuple)."""
    h = jnp.tanh(x @ params["w"] + params["b"])
    return {"h": h * scale, "pair": (h.sum(axis=0), x.astype(jnp.int32))}


@jax.jit
def jitted(x):
    return jnp.cumsum(jnp.sin(x), axis=-1)


def tangent(x):
    return jnp.tan(x) + 1


def contract(x, y):
    return x.T @ y


def dies(x):
    os.kill(os.getpid(), signal.SIGKILL)


def not_traceable(x):
    return float(x) + 1


def bfloat16_mix(x, y):
    """bfloat16 in and out, beside float32, with a scatter at two non-leading dimensions."""
    return jnp.sin(x) * 2, x.astype(jnp.float32) + y, x.at[:, 1, 2].set(-1)
'''


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """A module of JAX functions, importable by name here and in JAX's child."""
    folder = tmp_path_factory.mktemp("jax_programs")
    (folder / "jax_programs.py").write_text(textwrap.dedent(PROGRAMS))
    sys.path.insert(0, str(folder))
    spec = importlib.util.find_spec("jax_programs")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["jax_programs"] = module
    spec.loader.exec_module(module)
    yield module
    sys.path.remove(str(folder))
    del sys.modules["jax_programs"]


def _tree_args(seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    params = {"w": rng.standard_normal((3, 5), dtype=np.float32),
              "b": rng.standard_normal(5, dtype=np.float32)}  # fmt: skip
    return params, rng.standard_normal((4, 3), dtype=np.float32) * 3


def _tree_in_numpy(
    params: dict[str, np.ndarray], x: np.ndarray, *, scale: np.float32
) -> dict[str, object]:
    """`tree`'s values by numpy: JAX computes only in its child here, since an XLA client in a
    test worker would stop the torch import from forking in the tests after it."""
    h = np.tanh(x @ params["w"] + params["b"])
    return {"h": h * scale, "pair": (h.sum(axis=0), x.astype(np.int32))}


def _assert_tree_close(got: object, want: object) -> None:
    leaves, structure = jax.tree.flatten(want)
    assert jax.tree.structure(got) == structure
    for a, b in zip(jax.tree.leaves(got), leaves, strict=True):
        assert isinstance(a, np.ndarray) and a.dtype == np.asarray(b).dtype
        np.testing.assert_allclose(a, np.asarray(b), rtol=2e-5, atol=2e-5)


TARGETS = [("llvm-cpu", "local-task")] + (
    [pytest.param("vulkan", "vulkan", marks=pytest.mark.slow)]
    if "vulkan" in available_devices()
    else []
)


@pytest.mark.parametrize(("target", "device"), TARGETS)
def test_pytrees_in_and_out_match_jax(programs: ModuleType, target: str, device: str) -> None:
    """Dict and keyword inputs, a dict-of-tuple output, on each target, several inputs."""
    params, x = _tree_args(0)
    compiled = compile_jax(programs.tree, params, x, kwargs={"scale": 2.0}, target=target)
    assert repr(compiled) == f"<CompiledJax tree for {target} on {device}>"
    for seed in range(3):
        params, x = _tree_args(seed)
        want = _tree_in_numpy(params, x, scale=np.float32(2.0))
        _assert_tree_close(compiled(params, x, scale=2.0), want)
    with pytest.raises(ShloError, match=r"arguments\[0\]\[0\]: expected a dict with keys 'b', 'w'"):
        compiled([params["w"]], x, scale=2.0)
    # the flat arguments are in JAX's order (dict keys sorted), whatever order they came in
    reordered = {"w": params["w"], "b": params["b"]}
    leaves = flatten(compiled.imported.in_tree, ((reordered, x), {"scale": 1.0}))
    assert [np.shape(leaf) for leaf in leaves] == [(5,), (3, 5), (4, 3), ()]
    assert [spec["shape"] for spec in compiled.imported.inputs] == [[5], [3, 5], [4, 3], []]


@pytest.mark.slow
def test_bfloat16_in_and_out_matches_xla_cpu(programs: ModuleType) -> None:
    """bfloat16 arrays in and out of compile_jax, on llvm-cpu, against XLA:CPU's own outputs
    (jax.jit in this process): within one bfloat16 rounding, or exactly where no arithmetic
    rounds."""
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((3, 4, 5)), jnp.bfloat16)
    y = rng.standard_normal((3, 4, 5), dtype=np.float32)
    compiled = compile_jax(programs.bfloat16_mix, x, y)
    got, want = compiled(x, y), jax.jit(programs.bfloat16_mix)(x, y)
    assert [a.dtype for a in got] == [np.asarray(b).dtype for b in want]
    np.testing.assert_allclose(got[0].astype(np.float32), want[0].astype(np.float32), rtol=2**-7)
    assert got[1].tobytes() == np.asarray(want[1]).tobytes()
    assert got[2].tobytes() == np.asarray(want[2]).tobytes()


def test_jitted_function_by_name_interpreted_and_named(programs: ModuleType) -> None:
    """A jitted function, given as 'module:name': the flattened module is one function with
    static shapes, JAX's result name kept, and the interpreter computes what JAX does."""
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)
    imported = import_jax("jax_programs:jitted", x)
    assert imported.stablehlo_version <= "1.19.0" and imported.platforms == ("cpu",)
    module = jax_flatten(imported)
    text = str(module)
    assert 'jax.result_info = "result"' in text and "mhlo." not in text
    assert list(functions(module.operation)) == ["main"]
    (result,) = interpret_module(module, [x])
    np.testing.assert_allclose(result, np.cumsum(np.sin(x), axis=-1), rtol=1e-5, atol=1e-6)


def test_symbolic_shapes_refined_and_assertions_checked(programs: ModuleType) -> None:
    """A shape-polymorphic, two-platform export: flattened at each given shape, the platform
    index and dimension arguments gone; inconsistent shapes refused with JAX's own message."""
    scope = jax.export.SymbolicScope()
    x = jax.ShapeDtypeStruct(jax.export.symbolic_shape("b, 3", scope=scope), jnp.float32)
    y = jax.ShapeDtypeStruct(jax.export.symbolic_shape("b, 2", scope=scope), jnp.float32)
    imported = import_jax(programs.contract, x, y, platforms=("cuda", "cpu"))
    assert imported.inputs[0]["shape"] == ["b", 3]
    for rows in (1, 7):
        a = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
        b = np.ones((rows, 2), np.float32)
        module = jax_flatten(imported, [a, b])
        assert f"tensor<{rows}x3xf32>" in str(module) and "custom_call" not in str(module)
        np.testing.assert_allclose(interpret_module(module, [a, b])[0], a.T @ b)
    message = r"args\[1\].shape\[0\] \(= 5\) and the specification 'b' \(= 4\)"
    with pytest.raises(ShloError, match=message):
        jax_flatten(imported, [np.zeros((4, 3), np.float32), np.zeros((5, 2), np.float32)])
    with pytest.raises(ShloError, match=r"symbolic shapes \(bx3xfloat32\)"):
        jax_flatten(imported)


@pytest.mark.slow
def test_version_too_new_names_the_op(programs: ModuleType) -> None:
    """An artifact for a StableHLO older than an op the module uses is refused, naming the op
    and the version that introduced it."""
    x = np.ones(4, np.float32)
    with pytest.raises(ShloError) as caught:
        import_jax(programs.tangent, x, stablehlo_version="1.0.0")
    message = str(caught.value)
    assert "\n" not in message
    assert "too new for StableHLO 1.0.0: stablehlo.tan (vhlo.tan_v" in message
    introduced = message.rsplit("introduced in StableHLO ", 1)[1]
    assert (1, 0, 0) < tuple(map(int, introduced.split("."))) <= (1, 17, 0)
    import_jax(programs.tangent, x, stablehlo_version=introduced)  # that version holds it


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda x: x, r"<lambda> is a lambda or a nested function.*export it with jax.export"),
        ("jax_programs:nope", r"has no 'nope'"),
        pytest.param(
            "no_such_module_here:f",
            "ModuleNotFoundError: No module named 'no_such_module_here'",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "jax_programs:not_traceable",
            r"JAX export of jax_programs:not_traceable "
            r"failed: .*",
            marks=pytest.mark.slow,
        ),
        ("jax_programs:dies", r"JAX's process died on SIGKILL"),
        ("missing.exported", r"no file missing.exported"),
    ],
    ids=["lambda", "bad-name", "bad-module", "not-traceable", "dead-child", "no-file"],
)
def test_refusals_are_one_line(programs: ModuleType, fn: object, message: str) -> None:
    with pytest.raises(ShloError, match=message) as caught:
        import_jax(fn, np.ones(3, np.float32))
    assert "\n" not in str(caught.value) and "Traceback" not in str(caught.value)


def test_nested_and_main_functions_are_refused_before_any_child() -> None:
    def inner(x: object) -> object:
        return x

    with pytest.raises(ShloError, match="inner is a lambda or a nested function"):
        import_jax(inner, np.ones(2))
    inner.__module__, inner.__qualname__ = "__main__", "inner"
    with pytest.raises(ShloError, match="inner is defined in __main__"):
        import_jax(inner, np.ones(2))


@pytest.mark.slow
def test_cuda_compiles_without_a_gpu(programs: ModuleType) -> None:
    """The flattened JAX module compiles for CUDA (running it needs a GPU: tests/gpu)."""
    from shlo.api import compile_module

    params, x = _tree_args(0)
    module = jax_flatten(import_jax(programs.tree, params, x, kwargs={"scale": 2.0}))
    compiled = compile_module(module, "cuda")
    assert compiled.target.value == "cuda" and len(compiled.vmfb) > 0


def test_platform_index_without_the_platforms_is_refused() -> None:
    """A platform index whose platforms the module does not name cannot be fixed: refused."""
    from shlo.api import run_pipeline
    from shlo.ir.module import parse_source
    from shlo.ir.source import Source
    from shlo.ir.worlds import ContextPolicy, get_world

    text = """module @jit_f {
      func.func public @main(%i: tensor<i32> {jax.global_constant = "_platform_index"},
                             %x: tensor<4xf32>) -> tensor<4xf32> {
        return %x : tensor<4xf32>
      }
    }"""
    world = get_world("stablehlo")
    module = parse_source(
        world, world.make_context(ContextPolicy()), Source("f.mlir", text.encode())
    )
    with pytest.raises(ShloError, match=r"f.mlir:1:1: error: shlo-jax-platform: @main takes JAX's"):
        run_pipeline(module, "builtin.module(shlo-jax-platform)")
