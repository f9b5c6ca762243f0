"""The CPU as llama.cpp meets it: how many threads to give it (`default_threads`), and the AMX workaround:
llama.cpp's AMX kernels kill the process on VMs that advertise AMX but forbid it; and what a results file
records of the CPU (`cpu_identity`), since its flags choose the kernels and so the rounding of greedy answers.

`cpu_has_amx()` reads the CPU flags; `ModelParamsPatch(extra_buffers=False)` makes llama-cpp-python
load a model with llama.cpp's `use_extra_bufts` off (it does not expose the parameter), so the
repacked AMX/AVX buffers, and with them the faulting kernels, are never used.
"""

from __future__ import annotations

import functools
import os
from typing import Any

# The instruction sets that choose llama.cpp's CPU kernels, and with them the rounding of every dot product.
KERNEL_FLAGS = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "amx_tile",
                "asimd", "asimddp", "sve", "i8mm")


@functools.cache
def _cpuinfo() -> tuple[str, frozenset[str]]:
    """The first CPU's model name and flags from /proc/cpuinfo (x86 "flags", ARM "Features"); ("", frozenset())
    where there is no such file. Read once: the CPU does not change under a running process."""
    name, flags = "", frozenset()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and not name:
                    name = value.strip()
                elif key in ("flags", "Features") and not flags:
                    flags = frozenset(value.split())
                if name and flags:
                    break
    except OSError:
        pass
    return name, flags


def cpu_has_amx() -> bool:
    """True if /proc/cpuinfo advertises Intel AMX tiles (Linux only; False elsewhere)."""
    return "amx_tile" in _cpuinfo()[1]


def cpu_identity() -> dict[str, object]:
    """The CPU's model name and its kernel-choosing flags, for a results file. Greedy answers are exact on one
    machine but can differ between CPUs with other flags (seen: the default model's greedy logistics
    load-truck closes its effect on one machine and loops on an AVX2-only AMD EPYC)."""
    name, flags = _cpuinfo()
    return {"cpu": name or "unknown", "kernel_flags": [f for f in KERNEL_FLAGS if f in flags]}


class ModelParamsPatch:
    """Make `Llama(...)` load with `use_extra_bufts` set as we want.

    llama-cpp-python does not expose llama.cpp's use_extra_bufts model parameter, so while the
    model loads (under _load_lock) we wrap the function it gets its default parameters from.
    """

    def __init__(self, extra_buffers: bool):
        self.extra_buffers = extra_buffers
        self.module: Any = None
        self.original: Any = None

    def __enter__(self) -> None:
        if self.extra_buffers:
            return
        from llama_cpp import llama as llama_module

        module = llama_module.llama_cpp
        original = module.llama_model_default_params
        if "use_extra_bufts" not in dict(getattr(original(), "_fields_", [])):
            return  # an older llama.cpp without extra buffer types: nothing to turn off

        def default_params() -> Any:
            params = original()
            params.use_extra_bufts = False
            return params

        self.module, self.original = module, original
        module.llama_model_default_params = default_params

    def __exit__(self, *exc: object) -> None:
        if self.module is not None:
            self.module.llama_model_default_params = self.original


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """Half the CPUs the process may use (at least 1), for prompt evaluation and decoding alike.

    On SMT machines that is about one thread per physical core, which is llama.cpp's own
    heuristic. llama.cpp's threads spin while they wait for each other, so a thread whose core is
    taken by another process stalls all the others. Gemma-3 270M on a 2-vCPU VM: with the machine
    otherwise idle, 2 threads decode at 40 tok/s and 1 thread at 24; with one busy process
    beside, 2 threads fall to 18 tok/s (once, with more load, to 0.5 tok/s) while 1 thread keeps
    24. Pass n_threads explicitly on a machine reserved for the model.
    """
    return max(1, _cpu_count() // 2)
