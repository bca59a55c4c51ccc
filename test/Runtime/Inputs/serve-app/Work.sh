#!/bin/sh
# A visit of the loop: {"n": N, "items": [...]} -> n + 1; the visit is an
# effect. (sed, not a JSON parser: the input is this app's own.)
input=$(cat)
n=$(printf '%s' "$input" | sed -n 's/.*"n": *\([0-9]*\).*/\1/p')
echo "{\"visit\": $n, \"by\": \"$UNUM_INSTANCE\"}" >&"$UNUM_EFFECTS_FD"
printf '%s\n' "$input" | sed "s/\"n\": *$n/\"n\": $((n + 1))/"
