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
tools = ["unum-opt", "unum-translate", "unumc", "unum-run", "unum-runtime-bench", "unum-serve", "unum-lambda", "unum-deploy", "unum-airc", "unum-nn-sim",
         "split-file", "not", "count", "llvm-objdump", "llvm-mca"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The AOT tests link a C program against the objects unum-airc writes.
cc = shutil.which("cc") or shutil.which("gcc")
if cc:
    config.available_features.add("c-compiler")
    config.substitutions.append(("%cc", cc))

# Tests that need Debian's python3 modules run /usr/bin/python3 (the
# python3 on PATH may be another interpreter without them).
import subprocess


def debian_python_feature(modules, feature, substitution, what, package):
    if subprocess.run(["/usr/bin/python3", "-c", "import " + modules],
                      stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add(feature)
        config.substitutions.append((substitution, "/usr/bin/python3"))
    else:
        lit_config.note("%s unsupported: /usr/bin/python3 cannot import %s "
                        "(apt-get install %s)" % (what, modules, package))


# Gradient checks against PyTorch autograd (python3-torch).
debian_python_feature("torch, numpy", "torch", "%torch_python",
                      "gradient checks against PyTorch", "python3-torch")
# The deployment files' checks (test/Runtime/deploy*.test) read YAML.
debian_python_feature("yaml", "python3-yaml", "%debian_python",
                      "deployment file checks", "python3-yaml")

# Runtime tests against a real Redis start their own redis-server.
if shutil.which("redis-server"):
    config.available_features.add("redis-server")
# Hardware tests simulate and synthesise the emitted VHDL with GHDL.
if shutil.which("ghdl"):
    config.available_features.add("ghdl")

# The embedding test builds examples/ against an installed Unum: with Unum's
# compiler, Ninja, ccache and lld when there (as environment variables, so the
# commands it runs are docs/Embedding.md's own).
embed_env = ["CMAKE_GENERATOR=Ninja", "CMAKE_BUILD_TYPE=Release",
             "CMAKE_BUILD_PARALLEL_LEVEL=2", "CXX=" + config.cxx_compiler]
if shutil.which("ccache"):
    embed_env.append("CMAKE_CXX_COMPILER_LAUNCHER=ccache")
if shutil.which("ld.lld"):
    embed_env.append("LDFLAGS=-fuse-ld=lld")
config.substitutions.append(("%embed_env", "env " + " ".join(embed_env)))
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake")
# The ASL differential suite's oracle: Node.js and the npm package that
# utils/bootstrap.sh installs in utils/asl-oracle.
oracle_pkg = os.path.join(config.unum_src_root, "utils", "asl-oracle", "node_modules",
                          "aws-local-stepfunctions")
if not shutil.which("node"):
    lit_config.note("ASL differential suite unsupported: node is not installed "
                    "(utils/bootstrap.sh installs nodejs)")
elif not os.path.isdir(oracle_pkg):
    lit_config.note("ASL differential suite unsupported: the oracle is not installed in %s "
                    "(run utils/bootstrap.sh)" % os.path.dirname(oracle_pkg))
else:
    config.available_features.add("asl-oracle")
# The DynamoDB store's tests run dynalite (utils/bootstrap.sh installs it in
# utils/dynalite).
dynalite_cli = os.path.join(config.unum_src_root, "utils", "dynalite", "node_modules",
                            "dynalite", "cli.js")
if not shutil.which("node"):
    lit_config.note("DynamoDB tests unsupported: node is not installed "
                    "(utils/bootstrap.sh installs nodejs)")
elif not os.path.isfile(dynalite_cli):
    lit_config.note("DynamoDB tests unsupported: dynalite is not installed in "
                    "utils/dynalite (run utils/bootstrap.sh)")
else:
    config.available_features.add("dynalite")
# script(1) runs a command on a pseudo-terminal (unum-run's progress line).
if shutil.which("script"):
    config.available_features.add("script")
