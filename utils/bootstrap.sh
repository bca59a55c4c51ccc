#!/usr/bin/env bash
# Installs the Debian packages Unum needs to build and test. Idempotent: packages
# already present are skipped, so running it twice is cheap and safe.
set -euo pipefail

PACKAGES=(
  # LLVM/MLIR 22 (headers, CMake config, mlir-tblgen, FileCheck, lit)
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  # Config file parsing (lib/Config) and build tooling
  libyaml-cpp-dev ninja-build ccache cmake g++
  # Runtime data stores (lib/Runtime); redis-server runs the Redis tests
  libsqlite3-dev libhiredis-dev redis-server
  # curl: the commands of docs/Tools/unum-serve.md (health checks, a POST)
  curl
  # Unit tests
  libgtest-dev libgmock-dev
  # OpenMP runtime for AIR kernels compiled with threads > 1 (the JIT loads
  # libomp.so.5; test/python/test_matmul.py, docs/AirABI.md#threads)
  libomp-22-dev
  # Hardware path: VHDL analysis, synthesis check and simulation (test/Target/VHDL);
  # the iCE40 synthesis flow (utils/nn-flow/synth.py: yosys, nextpnr-ice40)
  ghdl yosys nextpnr-ice40
  # Array benchmarks (utils/bench): numpy for /usr/bin/python3, oneDNN for conv1d
  python3-numpy libdnnl-dev
  # Gradient checks against PyTorch autograd (test/Dialect/Air/grad-torch.test);
  # the PyTorch and ONNX importers' tests (unum.nn.from_torch/from_onnx,
  # test/python/test_nn_*.py)
  python3-torch python3-onnx
  # The Python package (python/unum, test/python): pytest runs its suite;
  # dask and distributed run a jitted function on a local cluster
  python3-pytest python3-dask python3-distributed
  # The package's C call path (python/unum/_fastcall.c) includes Python.h
  python3-dev
  # Graphviz renders unum-translate --to-dot (the README pipes into dot);
  # python3 runs lit; lld links the embedding test's my-opt (test/examples)
  # several times faster than ld.bfd.
  graphviz python3 lld
  # The ASL differential suite's oracle (test/ASL-differential) runs on Node.js,
  # and so does dynalite, the DynamoDB the DynamoDB store's tests run against
  nodejs
  # The DynamoDB store and the Lambda invoker (lib/Runtime/Aws*): HTTPS and
  # SigV4; botocore checks our signatures, python3-yaml reads the deployment
  # files (test/Runtime/aws-*, test/Deploy)
  libcurl4-openssl-dev libssl-dev python3-botocore python3-yaml
  # The libFuzzer targets (utils/fuzz): clang-22 and its fuzzer and sanitizer
  # runtimes, in a build of their own (utils/fuzz/build.sh)
  clang-22 libclang-rt-22-dev
)

# LLVM/MLIR 22 come from Debian 12's security archive (bookworm-security).
# Say what to add when apt cannot see them, instead of failing in apt-get.
check_llvm_source() {
  local missing_src=()
  for p in llvm-22-dev libmlir-22-dev mlir-22-tools clang-22 libclang-rt-22-dev; do
    if ! apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
      missing_src+=("$p")
    fi
  done
  if [ "${#missing_src[@]}" -ne 0 ]; then
    cat >&2 <<EOS
bootstrap: apt has no candidate for ${missing_src[*]} (LLVM/MLIR 22).
Debian 12 ships them in its security archive. Add this line to
/etc/apt/sources.list (or a file in /etc/apt/sources.list.d/), then run
'apt-get update' and this script again:
  deb http://deb.debian.org/debian-security bookworm-security main
(apt.llvm.org's 'llvm-toolchain-bookworm-22' suite has them too.)
EOS
    exit 1
  fi
}

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# npm comes with nodejs from some sources (NodeSource) and separately from
# Debian; ask apt for it only where the command is missing.
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ "${#missing[@]}" -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages already installed"
else
  echo "bootstrap: installing ${missing[*]}"
  $SUDO apt-get update -qq
  check_llvm_source
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Node packages pinned by a package-lock.json, installed next to it
# (node_modules is not committed). Skipped when the lock is unchanged.
npm_install() { # DIR WHAT
  local dir="$1" what="$2" stamp="$1/node_modules/.unum-lock"
  if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then
    echo "bootstrap: $what already installed"
  else
    echo "bootstrap: installing $what (npm ci in ${dir#"$ROOT"/})"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$stamp"
  fi
}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# The oracle of the ASL differential suite: npm aws-local-stepfunctions.
npm_install "$ROOT/utils/asl-oracle" "the ASL oracle"
# dynalite, the independent DynamoDB implementation the DynamoDB store's
# tests run on 127.0.0.1.
npm_install "$ROOT/utils/dynalite" "dynalite"
