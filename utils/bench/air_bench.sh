#!/usr/bin/env bash
# Builds and runs unum-air-bench (see utils/bench/README.md); the arguments go
# to the benchmark, e.g. `utils/bench/air_bench.sh --quick`. Set
# UNUM_BUILD_JOBS=1 to build with one job on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
./utils/build.sh ${UNUM_BUILD_JOBS:+-j"$UNUM_BUILD_JOBS"} --target unum-air-bench >&2
exec "${UNUM_BUILD_DIR:-build}/bin/unum-air-bench" "$@"
