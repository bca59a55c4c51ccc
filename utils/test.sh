#!/usr/bin/env bash
# Builds everything, then runs the lit suite (check-unum), the unit tests and
# a short smoke run of each libFuzzer target (utils/fuzz/smoke.sh; skipped,
# saying why, without clang-22).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${UNUM_BUILD_DIR:-build}
./utils/build.sh
cmake --build "$BUILD_DIR" --target check-unum
ctest --test-dir "$BUILD_DIR" --output-on-failure
./utils/fuzz/smoke.sh
