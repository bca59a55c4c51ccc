#!/usr/bin/python3
# aws-sdk:comprehend:detectSentiment, mapped with --functions.
import json, sys
x = json.load(sys.stdin)
assert x["LanguageCode"] == "en", x
text = json.dumps(x["Text"])
print(json.dumps({"Sentiment": "NEGATIVE" if "bad" in text else "POSITIVE"}))
