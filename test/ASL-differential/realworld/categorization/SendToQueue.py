#!/usr/bin/python3
# sqs:sendMessage, mapped with --functions.
import json, sys
x = json.load(sys.stdin)
print(json.dumps({"MessageId": "q-1", "QueueUrl": x["QueueUrl"], "Sent": x["MessageBody"]}))
