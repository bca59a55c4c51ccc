#!/usr/bin/python3
import json, sys
x = json.load(sys.stdin)
if x["number"] % 2:
    print(json.dumps({"errorType": "NotEvenError", "errorMessage": "%d is odd" % x["number"]}))
    sys.exit(1)
print(json.dumps({"even": x["number"]}))
