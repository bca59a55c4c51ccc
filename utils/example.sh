#!/usr/bin/env bash
# The main job on the embedded defaults: compile the example Step Functions
# app docs/examples/order-batch with unumc, put each function's handler next
# to its config, and run it with unum-run on SQLite. Prints the outputs of
# the terminal functions.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${UNUM_BUILD_DIR:-build}
APP=${1:-docs/examples/order-batch}
OUT="$BUILD_DIR/examples/$(basename "$APP")"
./utils/build.sh --target unumc unum-run >/dev/null
rm -rf "$OUT" "$OUT.db" "$OUT.db-wal" "$OUT.db-shm"
mkdir -p "$(dirname "$OUT")"
"$BUILD_DIR/bin/unumc" "$APP/statemachine.asl.json" -o "$OUT"
for handler in "$APP"/functions/*/handler; do
  cp "$handler" "$OUT/$(basename "$(dirname "$handler")")/handler"
done
"$BUILD_DIR/bin/unum-run" "$OUT" --input "$APP/input.json" --store "sqlite:$OUT.db"
