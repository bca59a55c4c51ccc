#!/usr/bin/python3
# sns:publish, mapped with --functions: returns a message id.
import json, sys
msg = json.load(sys.stdin)
print(json.dumps({"MessageId": "sms-" + msg["Message"].split()[-1].lower()}))
