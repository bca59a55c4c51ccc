#!/bin/sh
# One Map item (a number): charged once (an effect), output in cents.
read -r amount
echo "{\"charge\": $amount, \"by\": \"$UNUM_INSTANCE\"}" >&"$UNUM_EFFECTS_FD"
echo $((amount * 100))
