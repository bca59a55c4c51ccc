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
  # Unit tests
  libgtest-dev libgmock-dev
  # Hardware path: VHDL analysis, synthesis check and simulation (test/Target/VHDL)
  ghdl
  # Array benchmarks (utils/bench): numpy for /usr/bin/python3, oneDNN for conv1d
  python3-numpy libdnnl-dev
  # Gradient checks against PyTorch autograd (test/Dialect/Air/grad-torch.test)
  python3-torch
  # Graph rendering is optional (dot output is tested as text); python3 runs lit.
  python3
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "bootstrap: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
