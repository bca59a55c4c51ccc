#!/usr/bin/env bash
# A long fuzzing campaign: each named target (default: all) in turn, at the
# lowest priority (UNUM_FUZZ_NICE, default 19), until it has run RUNS inputs (default 10 million) or
# MAX_SECONDS passed (default: no limit), one target at a time. The working
# corpus grows in build-fuzz/campaign/<target>/ (seeded from
# utils/fuzz/corpus/<target>/); findings are left there as crash-*, leak-*,
# timeout-* and oom-* files, and each target's last lines of statistics go to
# build-fuzz/campaign/<target>.log.
#
#   utils/fuzz/campaign.sh [--runs N] [--max-seconds S] [--keep-going] [TARGET...]
#
# --keep-going: libFuzzer's fork mode, which goes on after a finding (to see
# whether there are others); its counts are then the last progress line's.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${UNUM_FUZZ_BUILD_DIR:-build-fuzz}
RUNS=10000000
MAX_SECONDS=0
NICE=${UNUM_FUZZ_NICE:-19}
MODE=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --max-seconds) MAX_SECONDS=$2; shift 2 ;;
    --keep-going) MODE=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); shift ;;
    *) break ;;
  esac
done
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for c in utils/fuzz/corpus/*/; do targets+=("$(basename "$c")"); done
fi
out="$BUILD_DIR/campaign"
mkdir -p "$out"
for t in "${targets[@]}"; do
  mkdir -p "$out/$t"
  echo "campaign: $t: starting ($(date -u +%H:%M:%S))"
  status=0
  nice -n "$NICE" "$BUILD_DIR/bin/unum-fuzz-$t" -runs="$RUNS" \
    -max_total_time="$MAX_SECONDS" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$t/" "${MODE[@]}" \
    "$out/$t" "utils/fuzz/corpus/$t" > "$out/$t.full.log" 2>&1 || status=$?
  # The statistics and any report, without the per-input progress lines.
  grep -v '^#[0-9]' "$out/$t.full.log" | tail -60 > "$out/$t.log"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.full.log")
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$out/$t.full.log" | tail -1 | tr -d '#')
  echo "campaign: $t: exit $status, ${runs:-?} executions ($(date -u +%H:%M:%S))"
done
