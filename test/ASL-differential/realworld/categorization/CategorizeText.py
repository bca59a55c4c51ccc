#!/usr/bin/python3
# bedrock:invokeModel, mapped with --functions: a keyword classifier in place of the model.
import json, sys
req = json.load(sys.stdin)
text = req["Body"]["messages"][0]["content"][0]["text"].lower()
cat = "COMPLAINT" if ("broken" in text or "refund" in text) else "BILLING" if ("invoice" in text or "charged" in text) else "UNKNOWN"
print(json.dumps({"Body": {"content": [{"type": "text", "text": cat}], "stop_reason": "end_turn"}, "ContentType": "application/json"}))
