#!/usr/bin/python3
# aws-sdk:s3:getObject, mapped with --functions: the transcript file, whose
# text says how the call went (the key names the caller's mood).
import json, sys
x = json.load(sys.stdin)
assert x["Bucket"] == "transcripts", x
text = "this is bad" if "angry" in x["Key"] else "this is fine"
body = {"jobName": x["Key"], "results": {"transcripts": [{"transcript": text}]}}
print(json.dumps({"Body": json.dumps(body), "ContentType": "text/plain"}))
