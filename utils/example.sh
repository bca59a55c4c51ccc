#!/usr/bin/env bash
# The main job on the embedded defaults: compile the example app shipped in
# docs/examples/order-pipeline (Unum IR, YAML) to the runtime's JSON configs,
# check it, and print one config per function.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${UNUM_BUILD_DIR:-build}
APP=${1:-docs/examples/order-pipeline}
./utils/build.sh --target unum-translate >/dev/null
"$BUILD_DIR/bin/unum-translate" --from-yaml "$APP" --app-name order_pipeline \
  | "$BUILD_DIR/bin/unum-translate" --to-json
