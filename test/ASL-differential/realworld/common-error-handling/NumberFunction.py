#!/usr/bin/python3
import json, sys
x = json.load(sys.stdin)
print(json.dumps({"number": x["number"]}))
