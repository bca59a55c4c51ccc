#!/bin/sh
# The Parallel's Task branch: an effect per visit.
n=$(sed -n 's/.*"n": *\([0-9]*\).*/\1/p')
echo "{\"right\": $n, \"by\": \"$UNUM_INSTANCE\"}" >&"$UNUM_EFFECTS_FD"
echo "{\"r\": $((n * 10))}"
