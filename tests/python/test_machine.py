"""The machine a benchmark names: read from /proc/cpuinfo's text as Linux writes it."""

from __future__ import annotations

from shlo.support.machine import describe_machine, machine_line, machine_title, read_cpuinfo

# Two processors of a KVM guest (the second's lines must not override the first's).
XEON = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 207
model name\t: Intel(R) Xeon(R) Processor
stepping\t: 2
flags\t\t: fpu sse2 avx2 fma f16c avx512f avx512bw avx512vl avx512_vnni avx512_bf16 amx_tile

processor\t: 1
model\t\t: 143
model name\t: Other
flags\t\t: fpu
"""
ARM = """processor\t: 0
BogoMIPS\t: 50.00
Features\t: fp asimd evtstrm aes
CPU implementer\t: 0x41
"""


def test_cpuinfo_names_model_and_isa_of_the_first_processor() -> None:
    assert read_cpuinfo(XEON) == {
        "cpu": "Intel(R) Xeon(R) Processor",
        "model_id": "6/207/2",
        "isa": ["avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                "avx512_bf16", "amx_tile"],
    }  # fmt: skip


def test_cpuinfo_without_x86_fields_has_no_model_id() -> None:
    assert read_cpuinfo(ARM) == {"cpu": "", "model_id": None, "isa": []}


def test_this_machine_is_named_with_its_cores() -> None:
    described = describe_machine()
    assert described["cpu"] and described["cores"] >= 1
    assert machine_line().endswith(f", {described['cores']} cores")


def test_chart_titles_wrap_to_the_figure_width() -> None:
    title = machine_title("shlo vs eager", 4)
    assert title.replace("\n", " ") == f"shlo vs eager: {machine_line()}"
    assert max(len(line) for line in title.splitlines()) <= 48
