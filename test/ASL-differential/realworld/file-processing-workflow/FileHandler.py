#!/usr/bin/python3
import json, sys
x = json.load(sys.stdin)
print(json.dumps({"statusCode": 200, "body": "processed %s file %s" % (x["body"]["file_type"], x["body"]["key"])}))
