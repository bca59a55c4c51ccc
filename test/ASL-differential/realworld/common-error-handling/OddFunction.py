#!/usr/bin/python3
import json, sys
x = json.load(sys.stdin)
if x["number"] % 2 == 0:
    print(json.dumps({"errorType": "NotOddError", "errorMessage": "%d is even" % x["number"]}))
    sys.exit(1)
print(json.dumps({"odd": x["number"]}))
