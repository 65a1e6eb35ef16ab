"""Run a `.vmfb` with the IREE runtime: devices by name, checked inputs, numpy outputs.

Results come back through a 4096-byte-aligned host buffer.  The runtime's own `to_host()` imports
a fresh `np.empty` as a host allocation when the driver allows imports; Vulkan (lavapipe here)
requires `minImportedHostPointerAlignment` 4096 and rejects it, which is why the Python runtime
failed on Vulkan while `iree-run-module` (page-aligned buffers) worked.

A module shlo did not just compile is tried in a child process first (`TrustedVmfb`): a damaged
`.vmfb` can crash the runtime, and that must not end the caller's process.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from shlo.errors import RunError
from shlo.ir.source import BYTECODE_MAGIC
from shlo.runtime.archives import encoded_archive, parameters_module, stale_encoding
from shlo.runtime.bindings import ireert, map_dtype_to_element_type
from shlo.runtime.devices import device_config, lost_device
from shlo.runtime.isolated import try_in_child
from shlo.runtime.untrusted import read_bytes
from shlo.runtime.value_syntax import ELEMENT_TYPES

_ALIGNMENT = 4096
# IREE's failures as its bindings raise them: INVALID_ARGUMENT as ValueError, OUT_OF_RANGE as
# IndexError (a damaged module's "bytecode data overrun"), every other status as RuntimeError.
_IREE_ERRORS = (RuntimeError, ValueError, IndexError)
# The VM's backtrace lines after a failure's message (`[ 0] bytecode module@1:142 -`).
_BACKTRACE = re.compile(r"^\s*\[\s*\d+\]")
# How MLIR text opens, after comments: a module, a function, an attribute or type alias, a
# generic op, or a file-level metadata block.
_MLIR_TEXT = re.compile(
    rb'\s*(?://[^\n]*\n\s*)*(?:module\b|func\.func\b|[#!][\w.$-]+\s*=|"[\w.]+"\s*\(|\{-#)'
)
# `%arg0: tensor<2x?xf32>` or `tensor<4xcomplex<f32>>` (element types nest one level), or `i64`
_ARGUMENT = re.compile(r"%\w+: (tensor<((?:[^<>]|<[^<>]*>)*)>|[a-z]\w*)")
_DIMS = re.compile(r"((?:(?:\d+|\?)x)*)(.+)")


@dataclass(frozen=True)
class TensorSpec:
    """What a function argument must be: shape (None for a dynamic dim) and element type."""

    shape: tuple[int | None, ...]
    element_type: str
    scalar: bool = False  # a plain i64/f32 argument (a symbolic size), not a tensor

    @classmethod
    def parse(cls, text: str) -> TensorSpec:
        match = _DIMS.fullmatch(text)
        if match is None:
            raise RunError(f"cannot read the argument type 'tensor<{text}>'")
        dims, element = match.groups()
        return cls(tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1]), element)

    def check(self, name: str, value: np.ndarray) -> None:
        want = ELEMENT_TYPES.get(self.element_type)
        if want is not None and value.dtype != np.dtype(want) and not self.takes_bits(value):
            raise RunError(
                f"{name}: expected dtype {np.dtype(want)} ({self.element_type}), got {value.dtype}"
            )
        if len(self.shape) != value.ndim or any(
            d is not None and d != got for d, got in zip(self.shape, value.shape, strict=True)
        ):
            shape = "x".join("?" if d is None else str(d) for d in self.shape) or "scalar"
            raise RunError(f"{name}: expected shape {shape}, got {tuple(value.shape)}")

    def takes_bits(self, value: np.ndarray) -> bool:
        """Arrays passed as their bits: unsigned integers of the same width for IREE's
        signless `iN`, and raw bytes of the same width (`np.save` writes ml_dtypes' bfloat16
        as `|V2`) for a type numpy lacks."""
        want = np.dtype(ELEMENT_TYPES.get(self.element_type, np.void))
        if want.kind == "i":
            return value.dtype.kind == "u" and value.itemsize == want.itemsize
        return want.kind == "V" and value.dtype == np.dtype(f"V{want.itemsize}")


def available_devices() -> list[str]:
    """Device names (IREE driver names) that have at least one device here."""
    names = []
    for driver in ireert.query_available_drivers():
        try:
            if ireert.get_driver(driver).query_available_devices():
                names.append(driver)
        except Exception:  # a driver whose library or hardware is absent
            continue
    return names


def input_specs(declaration: str) -> list[TensorSpec]:
    """Argument specs from IREE's `iree.abi.declaration` reflection string."""
    arguments = declaration.split("->")[0]
    return [
        TensorSpec.parse(inner) if inner else TensorSpec((), whole, scalar=True)
        for whole, inner in _ARGUMENT.findall(arguments)
    ]


class TrustedVmfb(bytes):
    """A `.vmfb` that `LoadedModule` loads without trying it in a child process first: what
    `compile_module` returns (this process's compile, or a cache entry whose checksum holds),
    or any module loaded by a process whose crash ends nothing else (`shlo run`'s child).
    Slices and `bytes(...)` copies of it are plain bytes, tried again.

    `stateless`: its compile found no mutable global, so a call depends on its inputs alone and
    may run again on a new device after the driver lost the old one."""

    stateless: bool

    def __new__(cls, data: bytes, stateless: bool = False) -> TrustedVmfb:
        made = super().__new__(cls, data)
        made.stateless = stateless
        return made


# An argument as `_invoke` takes it: an array with its HAL element type, or a number (None).
_Input = tuple[Any, Any]


class LoadedModule:
    """A `.vmfb` loaded on a device; call its functions with numpy arrays."""

    def __init__(
        self,
        vmfb: bytes | str | Path,
        device: str = "local-task",
        parameters: str | Path | None = None,
    ) -> None:
        """`parameters`: the .irpa archive holding the weights of a module compiled with them
        kept out (`compile_module(..., parameters=...)`).  A file, or bytes that are not a
        `TrustedVmfb`, is first loaded and each of its functions with fixed input shapes called
        once with zeros in a child process (`shlo.runtime.isolated.try_in_child`)."""
        if device not in available_devices():
            raise RunError(
                f"device '{device}' is not available here; available: "
                f"{', '.join(available_devices()) or 'none'}"
            )
        self.device_name = device
        self._parameters = parameters
        data = read_bytes(vmfb) if isinstance(vmfb, (str, Path)) else vmfb
        if not isinstance(data, TrustedVmfb):
            refuse_mlir(data, "the module" if vmfb is data else str(vmfb))
            try_in_child(data, "the module" if vmfb is data else str(vmfb), device, parameters)
        # What a call that lost its device runs again on (only a module without state).
        self._reloadable = data if isinstance(data, TrustedVmfb) and data.stateless else None
        self._load(data)

    def _load(self, data: bytes, again: bool = True) -> None:
        """Load `data` (and the parameters) on this process's device of that name: a new one
        after the driver lost the last.  A device found lost while loading (nothing of the
        module has run) is replaced and the load done `again`, once."""
        self._context = ireert.SystemContext(config=device_config(self.device_name, self))
        self.device = self._context.config.device
        self._functions: dict[str, tuple[Any, list[TensorSpec], list[Any]]] = {}
        try:
            self._module = ireert.VmModule.copy_buffer(self._context.instance, data)
        except _IREE_ERRORS as error:
            raise RunError(f"not a valid IREE module (.vmfb): {iree_message(error)}") from None
        if self._parameters is not None:
            archive = parameters_module(self._context.instance, self._parameters)
            self._context.add_vm_module(archive)
        try:
            self._context.add_vm_module(self._module)
            return
        except _IREE_ERRORS as error:
            message = iree_message(error)
        lost = lost_device(self.device_name, self.device, message)
        if lost is None:
            raise RunError(_registration_failure(message, self.device_name, self._parameters))
        if not again:
            raise RunError(f"{lost}: load the module again, which gets a new device")
        warnings.warn(f"{lost}: loading the module on a new device", stacklevel=3)
        self._load(data, again=False)

    @property
    def function_names(self) -> list[str]:
        names = _module_text(lambda: self._module.function_names, "its function names")
        return [name for name in names if not name.startswith("__")]

    def signature(self, function: str) -> str:
        reflection = _module_text(
            lambda: self._lookup(function).reflection, f"the signature of '{function}'"
        )
        return cast(str, reflection.get("iree.abi.declaration", ""))

    def _lookup(self, function: str) -> Any:
        found = self._module.lookup_function(function)
        if found is None:
            raise RunError(f"no function '{function}'; functions: {', '.join(self.function_names)}")
        return found

    def _function(self, function: str) -> tuple[Any, list[TensorSpec], list[Any]]:
        """The VM function, its argument specs and their HAL element types, found once."""
        if function not in self._functions:
            specs = input_specs(self.signature(function))
            element_types = [
                None
                if spec.scalar or spec.element_type not in ELEMENT_TYPES
                else map_dtype_to_element_type(np.dtype(ELEMENT_TYPES[spec.element_type]))
                for spec in specs
            ]
            self._functions[function] = (self._lookup(function), specs, element_types)
        return self._functions[function]

    def __call__(self, function: str, *inputs: Any, names: Sequence[str] = ()) -> list[np.ndarray]:
        """Call `function`; inputs are checked against its signature before anything runs.
        `names`: what the caller calls each input, for the messages (else its index)."""
        arrays = [np.require(value, requirements="C") for value in inputs]  # keeps 0-d arrays 0-d
        _, specs, element_types = self._function(function)
        if specs and len(specs) != len(arrays):
            raise RunError(f"{function}: expected {len(specs)} inputs, got {len(arrays)}")
        for index, (spec, array) in enumerate(zip(specs, arrays, strict=False)):
            spec.check(names[index] if index < len(names) else f"{function} input {index}", array)
        arguments: list[_Input] = []
        for index, array in enumerate(arrays):
            given = specs[index] if specs else None
            if given is not None and given.scalar:
                number = float if given.element_type[0] == "f" else int
                arguments.append((number(array.item()), None))
                continue
            if given is not None and given.takes_bits(array):
                array = array.view(ELEMENT_TYPES[given.element_type])
            element_type = (element_types[index] if specs else None) or map_dtype_to_element_type(
                array.dtype
            )
            if element_type is None:
                raise RunError(f"inputs of dtype {array.dtype} are not supported by the runtime")
            arguments.append((array, element_type))
        return self._run(function, arguments)

    def invoker(
        self, function: str, names: Sequence[str] = ()
    ) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]]:
        """`function` as a call whose signature work is done once (torch.compile's per-call
        path).  Inputs that do not match exactly (dtype, shape, layout) take the checked path
        of `__call__`, which converts them or says what is wrong (by `names`)."""
        _, specs, element_types = self._function(function)
        if not specs or None in element_types or any(None in s.shape for s in specs):
            return lambda arrays: self(function, *arrays, names=names)
        expected = [(np.dtype(ELEMENT_TYPES[s.element_type]), s.shape) for s in specs]
        plan = list(zip(expected, element_types, strict=True))

        def call(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
            if len(arrays) != len(plan):
                return self(function, *arrays, names=names)
            for array, ((dtype, shape), _) in zip(arrays, plan, strict=True):
                if array.dtype != dtype or array.shape != shape or not array.flags.c_contiguous:
                    return self(function, *arrays, names=names)
            return self._run(function, list(zip(arrays, element_types, strict=True)))

        return call

    def _run(self, function: str, arguments: list[_Input]) -> list[np.ndarray]:
        """Call `function` and bring its results to the host; IREE's failure on the way (a
        failed assertion, a damaged module, a lost device) as a RunError naming it.  A call
        whose device the driver lost runs once more, on a new device, when the module keeps
        no state (`TrustedVmfb.stateless`): Mesa's Vulkan on the CPU loses its device to a race
        of IREE's own now and then, and such a call depends on its inputs alone."""
        again = self._reloadable is not None
        while True:
            try:
                return self._invoke(function, arguments)
            except RunError:
                raise
            except _IREE_ERRORS as error:
                message = iree_message(error)
                lost = lost_device(self.device_name, self.device, message)
                if lost is None:
                    raise RunError(f"{function}: {message}") from None
                if not again or self._reloadable is None:
                    raise RunError(
                        f"{function}: {lost}: what was loaded on it cannot run again; load the "
                        "module again, which gets a new device"
                    ) from None
            warnings.warn(f"{function}: {lost}: ran it again on a new device", stacklevel=3)
            self._load(self._reloadable)
            again = False

    def _invoke(self, function: str, arguments: list[_Input]) -> list[np.ndarray]:
        vm_function = self._function(function)[0]
        pushed = ireert.VmVariantList(len(arguments))
        for value, element_type in arguments:
            if element_type is None:
                (pushed.push_float if isinstance(value, float) else pushed.push_int)(value)
                continue
            buffer = self.device.allocator.allocate_buffer_copy(
                memory_type=ireert.MemoryType.DEVICE_LOCAL,
                allowed_usage=ireert.BufferUsage.DEFAULT,
                device=self.device,
                buffer=value,
                element_type=element_type,
            )
            pushed.push_ref(buffer)
        results = ireert.VmVariantList(4)
        self._context.vm_context.invoke(vm_function, pushed, results)
        return [
            view_to_numpy(results.get_as_object(i, ireert.HalBufferView), self.device)
            for i in range(results.size)
        ]


def iree_message(error: BaseException) -> str:
    """IREE's failure as one line: its message without the VM's backtrace, which names
    bytecode offsets, not anything the user wrote."""
    lines = [line.strip() for line in str(error).splitlines() if not _BACKTRACE.match(line)]
    return " ".join(line for line in lines if line) or type(error).__name__


def _module_text(read: Callable[[], Any], what: str) -> Any:
    """Text the module holds, read by `read`; a damaged module's bytes that are no UTF-8 (the
    bindings raise a bare RuntimeError) as a RunError naming `what`."""
    try:
        return read()
    except RuntimeError as error:
        if "conversion error" not in str(error):
            raise
        raise RunError(f"the module is damaged: {what} is not UTF-8 text") from None


def refuse_mlir(data: bytes, name: str) -> None:
    """MLIR handed to the runtime is a step skipped, not a damaged module: say which step."""
    if data.startswith(BYTECODE_MAGIC):
        kind = "MLIR bytecode"
    else:
        if not _MLIR_TEXT.match(data):
            return
        kind = "MLIR text"
    raise RunError(
        f"{name} is {kind}, not a compiled IREE module (.vmfb): compile it first "
        "(`shlo compile FILE -o FILE.vmfb`)"
    )


def _registration_failure(message: str, device: str, parameters: str | Path | None) -> str:
    """Why IREE would not load the module, in the user's terms."""
    if "scopes like 'encoded'" in message and parameters is not None:
        if stale := stale_encoding(parameters):
            return stale
        return (
            f"this module reads the packed copies of its weights from {encoded_archive(parameters)}"
            f", which its compile wrote beside {parameters}; that file is missing"
        )
    if "io_parameters" in message:
        return (
            "this module reads its weights from a parameter archive (.irpa): load it with "
            "parameters=PATH (shlo run --parameters PATH)"
        )
    if "not found or unavailable" in message:
        target = re.search(r'#hal\.executable\.target<"([\w-]+)"', message)
        built = f" (it was compiled for {target.group(1)})" if target else ""
        return f"device '{device}' cannot run this module{built}: compile it for this device"
    return f"IREE cannot load this module on '{device}': {message.splitlines()[0][:300]}"


_HOST_VISIBLE = int(ireert.MemoryType.HOST_VISIBLE)
_MAPPABLE = int(ireert.BufferUsage.MAPPING_SCOPED)


def view_to_numpy(view: Any, device: Any) -> np.ndarray:
    """A result buffer view as numpy: mapped when host-visible, else DMA'd to aligned memory."""
    dtype = ireert.HalElementType.map_to_dtype(view.element_type)
    shape = tuple(view.shape)
    source = view.get_buffer()
    if 0 in shape:  # nothing to copy, and Vulkan refuses to import an empty host allocation
        return np.empty(shape, dtype)
    if source.memory_type() & _HOST_VISIBLE == _HOST_VISIBLE and source.allowed_usage() & _MAPPABLE:
        return np.array(view.map().asarray(shape, dtype))
    size = source.byte_length()
    raw = np.empty(size + 2 * _ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % _ALIGNMENT
    host = raw[start : start + -(-size // _ALIGNMENT) * _ALIGNMENT]  # whole aligned pages
    memory = int(ireert.MemoryType.HOST_LOCAL | ireert.MemoryType.DEVICE_VISIBLE)
    usage = int(ireert.BufferUsage.TRANSFER_TARGET | ireert.BufferUsage.MAPPING_PERSISTENT)
    target = device.allocator.import_host_allocation(host, memory_type=memory, allowed_usage=usage)
    semaphore = device.create_semaphore(0)
    device.queue_copy(
        source,
        target,
        wait_semaphores=ireert.HalFence.create_at(semaphore, 0),
        signal_semaphores=ireert.HalFence.create_at(semaphore, 1),
    )
    ireert.HalFence.create_at(semaphore, 1).wait()
    return cast(np.ndarray, host[:size].view(dtype).reshape(shape).copy())
