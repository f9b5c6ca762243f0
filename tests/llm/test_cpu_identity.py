"""The CPU as a results file records it (llm/amx.py): greedy answers can differ between CPUs whose flags choose
other llama.cpp kernels, so a run says which CPU wrote its answers."""

from __future__ import annotations

from pathlib import Path

from domain_drafter.llm.amx import KERNEL_FLAGS, cpu_has_amx, cpu_identity


def test_the_cpu_is_named_as_proc_cpuinfo_names_it_with_only_the_kernel_flags_it_has():
    identity = cpu_identity()
    info = Path("/proc/cpuinfo").read_text(errors="replace")
    names = [line.partition(":")[2].strip() for line in info.splitlines() if line.startswith("model name")]
    flags = next(line.partition(":")[2].split() for line in info.splitlines()
                 if line.startswith(("flags", "Features")))
    assert identity["cpu"] == (names[0] if names else "unknown")
    assert identity["kernel_flags"] == [f for f in KERNEL_FLAGS if f in flags]
    assert cpu_has_amx() == ("amx_tile" in identity["kernel_flags"])
