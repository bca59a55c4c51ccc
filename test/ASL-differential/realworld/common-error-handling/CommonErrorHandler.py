#!/usr/bin/python3
# Reports which Lambda failed and why, from the Catch's ResultPath fields.
import json, sys
x = json.load(sys.stdin)
failures = {k: v["Error"] for k, v in x.items() if k.endswith("Failure")}
print(json.dumps({"handled": failures}))
