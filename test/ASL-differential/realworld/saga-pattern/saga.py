#!/usr/bin/python3
"""One travel-booking step: fails with <Step>Error when the booking's
fail_at names the step, else records it."""
import json
import sys


def run(step):
    booking = json.load(sys.stdin)
    if booking.get("fail_at") == step:
        print(json.dumps({"errorType": step + "Error", "errorMessage": step + " refused trip " + booking["trip_id"]}))
        sys.exit(1)
    print(json.dumps({"status": "ok", "step": step, "trip_id": booking["trip_id"]}))
