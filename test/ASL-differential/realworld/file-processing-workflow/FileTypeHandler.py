#!/usr/bin/python3
import json, sys
event = json.load(sys.stdin)
key = event["detail"]["object"]["key"]
print(json.dumps({"statusCode": 200, "body": {"file_type": key.rsplit(".", 1)[-1].upper(), "key": key}}))
