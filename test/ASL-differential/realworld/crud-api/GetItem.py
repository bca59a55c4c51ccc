#!/usr/bin/python3
# dynamodb:getItem, mapped with --functions: the item stored under the key.
import json, sys
x = json.load(sys.stdin)
assert x["TableName"] == "crud-items", x
key = x["Key"]["id"]["S"]
print(json.dumps({"Item": {"id": {"S": key}, "data": {"M": {"name": {"S": "item " + key}}}}}))
