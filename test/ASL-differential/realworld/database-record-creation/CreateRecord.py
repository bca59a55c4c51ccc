#!/usr/bin/python3
# dynamodb:putItem, mapped with --functions.
import json, sys
x = json.load(sys.stdin)
print(json.dumps({"created": x["Item"]["id"]["S"], "table": x["TableName"]}))
