#!/usr/bin/python3
# sns:publish, mapped with --functions.
import json, sys
x = json.load(sys.stdin)
print(json.dumps({"MessageId": "sns-" + x["Message"], "Subject": x["Subject"]}))
