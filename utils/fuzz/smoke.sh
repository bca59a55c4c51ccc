#!/usr/bin/env bash
# Builds the libFuzzer targets (utils/fuzz/build.sh) and runs each on its
# seed corpus for a few seconds: every seed must pass, and whatever the
# mutations reach in that time must not crash, leak, hang or trip a
# sanitizer. utils/test.sh runs it last. New inputs go to a scratch
# directory, never into the committed corpus.
#
#   utils/fuzz/smoke.sh [SECONDS_PER_TARGET]   (default 4; UNUM_FUZZ_SMOKE_SECONDS)
#
# Without clang-22 or libclang-rt-22-dev (utils/bootstrap.sh installs them)
# it says so and skips (exit 0).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-${UNUM_FUZZ_SMOKE_SECONDS:-4}}
BUILD_DIR=${UNUM_FUZZ_BUILD_DIR:-build-fuzz}
CXX=${UNUM_FUZZ_CXX:-clang++-22}
if ! command -v "$CXX" >/dev/null 2>&1; then
  echo "fuzz smoke: skipped: $CXX not found (utils/bootstrap.sh installs clang-22)"
  exit 0
fi
# libclang-rt-22-dev holds the fuzzer and sanitizer runtimes.
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char *, long) { return 0; }' |
    "$CXX" -x c++ -fsanitize=fuzzer,address,undefined -o /dev/null - 2>/dev/null; then
  echo "fuzz smoke: skipped: $CXX cannot link -fsanitize=fuzzer,address,undefined (install libclang-rt-22-dev)"
  exit 0
fi
./utils/fuzz/build.sh
# The reason from known-findings.txt when the log of target $1 ($2) shows
# one of its known findings (its text appears in the report); fails
# otherwise.
known_finding() {
  local target text why
  while IFS=$'\t' read -r target text why; do
    case "$target" in ''|'#'*) continue ;; esac
    if [ "$target" = "$1" ] && grep -qF -- "$text" "$2"; then
      echo "$why"
      return 0
    fi
  done < utils/fuzz/known-findings.txt
  return 1
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=()
for corpus in utils/fuzz/corpus/*/; do
  name=$(basename "$corpus")
  bin="$BUILD_DIR/bin/unum-fuzz-$name"
  mkdir -p "$scratch/$name"
  # -timeout: one input taking longer is a hang; -rss_limit_mb: a runaway
  # allocation is a finding too.
  if "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$scratch/$name/" \
      "$scratch/$name" "$corpus" > "$scratch/$name.log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$name.log")
    echo "fuzz smoke: $name: ok, $runs executions in ${SECONDS_EACH}s"
  elif known=$(known_finding "$name" "$scratch/$name.log"); then
    echo "fuzz smoke: $name: known finding, not counted (utils/fuzz/known-findings.txt): $known"
  else
    echo "fuzz smoke: $name: FAILED"
    grep -v '^#\|^INFO' "$scratch/$name.log" | head -40
    for a in "$scratch/$name"/crash-* "$scratch/$name"/leak-* \
             "$scratch/$name"/timeout-* "$scratch/$name"/oom-*; do
      [ -f "$a" ] && { echo "--- reproducer $(basename "$a") (base64):"; base64 "$a" | head -20; }
    done
    failed+=("$name")
  fi
done
# A known finding that did not show: its fix may have landed.
# (A smoke run is short: a known finding that needs many mutations may not
# show in one.)
while IFS=$'\t' read -r target text _; do
  case "$target" in ''|'#'*) continue ;; esac
  if ! grep -qF -- "$text" "$scratch/$target.log" 2>/dev/null; then
    echo "fuzz smoke: note: the known finding of $target ('$text') did not show; once it is fixed, remove it from utils/fuzz/known-findings.txt"
  fi
done < utils/fuzz/known-findings.txt
if [ "${#failed[@]}" -ne 0 ]; then
  echo "fuzz smoke: findings in: ${failed[*]}"
  exit 1
fi
