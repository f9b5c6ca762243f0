"""The AMX workaround: llama.cpp's AMX kernels kill the process on VMs that advertise AMX but forbid it.

`cpu_has_amx()` reads the CPU flags; `ModelParamsPatch(extra_buffers=False)` makes llama-cpp-python
load a model with llama.cpp's `use_extra_bufts` off (it does not expose the parameter), so the
repacked AMX/AVX buffers, and with them the faulting kernels, are never used.
"""

from __future__ import annotations

from typing import Any


def cpu_has_amx() -> bool:
    """True if /proc/cpuinfo advertises Intel AMX tiles (Linux only; False elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return "amx_tile" in line.split()
    except OSError:
        pass
    return False


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
