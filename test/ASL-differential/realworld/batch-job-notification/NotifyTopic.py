#!/usr/bin/python3
# sns:publish, mapped with --functions.
import json, sys
x = json.load(sys.stdin)
print(json.dumps({"MessageId": "n-1", "Published": x["Message"]}))
