#!/usr/bin/python3
"""One ATM dispenser in the chain: hands out as many notes of its value as fit."""
import json
import sys


def dispense(note):
    x = json.load(sys.stdin)
    left = x.get("remaining", x["amount"])
    notes = dict(x.get("notes", {}))
    if left // note:
        notes[str(note)] = left // note
    print(json.dumps({"amount": x["amount"], "remaining": left % note, "notes": notes}))
