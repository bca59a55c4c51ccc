#!/usr/bin/python3
# dynamodb:putItem, mapped with --functions: checks the item (a string id,
# here a States.UUID() or the path parameter, and a map of attributes).
import json, sys
x = json.load(sys.stdin)
assert x["TableName"] == "crud-items", x
assert isinstance(x["Item"]["id"]["S"], str) and x["Item"]["id"]["S"], x
assert isinstance(x["Item"]["data"]["M"], dict), x
print(json.dumps({}))
