"""`python -m llama_cpp.server ...` with llama.cpp's extra CPU weight buffers (AMX/repack) off.

On this machine's CPU (it reports AMX) llama-cpp-python 0.3.36, built natively, segfaults on the
first multi-token prompt; loading the weights without the extra buffer types avoids it. It takes
the server's own flags and runs with llama-cpp-python's interpreter (not the project's):

    LLAMA_VENV/bin/python benchmarks/llama_serve.py --model M.gguf --port 8765 ...
"""

import runpy

import llama_cpp.llama_cpp as lib

_default = lib.llama_model_default_params


def _params():
    params = _default()
    params.use_extra_bufts = False
    return params


lib.llama_model_default_params = _params
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
