#!/usr/bin/env bash
# Builds the libFuzzer targets (utils/fuzz/*.cpp) with clang-22 under
# AddressSanitizer and UndefinedBehaviorSanitizer, in their own build
# directory (build-fuzz, or UNUM_FUZZ_BUILD_DIR), so the main gcc build in
# build/ is untouched. Needs clang-22 and libclang-rt-22-dev
# (utils/bootstrap.sh installs both). Extra arguments go to the build
# (e.g. `utils/fuzz/build.sh unum-fuzz-json`); the default builds them all.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${UNUM_FUZZ_BUILD_DIR:-build-fuzz}
CC=${UNUM_FUZZ_CC:-clang-22}
CXX=${UNUM_FUZZ_CXX:-clang++-22}
if ! command -v "$CXX" >/dev/null 2>&1; then
  echo "utils/fuzz/build.sh: $CXX not found (utils/bootstrap.sh installs clang-22)" >&2
  exit 1
fi
# -fsanitize=fuzzer-no-link: coverage instrumentation for libFuzzer in every
# library; the targets link the fuzzer itself. Assertions stay on (no
# NDEBUG): an assertion failing on some input is a finding too.
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
FLAGS="-O1 -g -fno-omit-frame-pointer $SAN"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS" \
    -DCMAKE_EXE_LINKER_FLAGS="$SAN" -DCMAKE_SHARED_LINKER_FLAGS="$SAN" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DBUILD_TESTING=OFF -DUNUM_FUZZ=ON
fi
if [ "$#" -eq 0 ]; then set -- unum-fuzzers; fi
cmake --build "$BUILD_DIR" --target "$@"
