#!/usr/bin/python3
import json, sys
x = json.load(sys.stdin)
if x.get("quickFail", True):
    print(json.dumps({"errorType": "QuickFailError", "errorMessage": "failed quickly"}))
    sys.exit(1)
print(json.dumps({"result": "no failure"}))
