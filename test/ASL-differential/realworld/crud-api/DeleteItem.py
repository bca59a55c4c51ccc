#!/usr/bin/python3
# dynamodb:deleteItem, mapped with --functions.
import json, sys
x = json.load(sys.stdin)
assert x["TableName"] == "crud-items" and x["Key"]["id"]["S"], x
print(json.dumps({}))
