#!/usr/bin/env bash
# Configures (once) and builds Unum in ./build with Ninja and ccache.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${UNUM_BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
cmake --build "$BUILD_DIR" "$@"
