#!/bin/sh
# The fan-in target: sums the charges into a ledger entry (an effect). Each
# execution is also counted in $SERVE_TEST_RUNS when set (outside the
# store: how often the user code really ran).
input=$(cat)
sum=$(printf '%s' "$input" | sed 's/.*"charges": *\[\([-0-9, ]*\)\].*/\1/' | tr -d ' ' | tr ',' '+')
total=$(($sum))
[ -n "$SERVE_TEST_RUNS" ] && echo "$UNUM_SESSION $UNUM_INSTANCE" >> "$SERVE_TEST_RUNS"
echo "{\"ledger\": $total, \"by\": \"$UNUM_INSTANCE\"}" >&"$UNUM_EFFECTS_FD"
n=$(printf '%s' "$input" | sed -n 's/.*"n": *\([0-9]*\).*/\1/p')
echo "{\"total\": $total, \"visits\": $n}"
