#!/usr/bin/python3
import json, sys
rec = json.load(sys.stdin)
ok = "@" in rec.get("email", "") and bool(rec.get("firstname"))
print(json.dumps({"statusCode": 200, "body": dict(rec, isValid=ok)}))
