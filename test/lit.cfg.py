# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "UNUM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.unum_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%unum_src_root", config.unum_src_root))
config.substitutions.append(("%unum_obj_root", config.unum_obj_root))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# The conformance data of ../shared, when the checkout has it beside it.
shared = os.environ.get("UNUM_SHARED_DIR", config.unum_shared_dir)
if os.path.isdir(os.path.join(shared, "conformance", "unum")):
    config.available_features.add("conformance")
    config.substitutions.append(("%conformance", os.path.join(shared, "conformance", "unum")))
else:
    lit_config.note("conformance tests unsupported: no conformance data at %s "
                    "(set UNUM_SHARED_DIR)" % shared)

tool_dirs = [config.unum_tools_dir, config.llvm_tools_dir]
tools = ["unum-opt", "unum-translate", "unumc", "unum-run", "unum-airc", "unum-nn-sim",
         "split-file", "not", "count"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The AOT tests link a C program against the objects unum-airc writes.
cc = shutil.which("cc") or shutil.which("gcc")
if cc:
    config.available_features.add("c-compiler")
    config.substitutions.append(("%cc", cc))

# Gradient checks against PyTorch autograd run under Debian's python3, which
# has python3-torch (utils/bootstrap.sh installs it).
import subprocess
if subprocess.run(["/usr/bin/python3", "-c", "import torch, numpy"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("torch")
    config.substitutions.append(("%torch_python", "/usr/bin/python3"))
else:
    lit_config.note("gradient checks against PyTorch unsupported: /usr/bin/python3 "
                    "cannot import torch (apt-get install python3-torch)")

# Runtime tests against a real Redis start their own redis-server.
if shutil.which("redis-server"):
    config.available_features.add("redis-server")
# Hardware tests simulate and synthesise the emitted VHDL with GHDL.
if shutil.which("ghdl"):
    config.available_features.add("ghdl")
