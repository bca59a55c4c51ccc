#!/usr/bin/python3
# Receives the queue's messages (a fixed batch here; the sample calls SQS).
import json, sys
sys.stdin.read()
print(json.dumps([{"MessageId": "m1", "Body": "hello", "ReceiptHandle": "r1"},
                  {"MessageId": "m2", "Body": "world", "ReceiptHandle": "r2"}]))
