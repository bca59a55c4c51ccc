#!/usr/bin/python3
# sns:publish, mapped with --functions.
import json, sys
x = json.load(sys.stdin)
print(json.dumps({"MessageId": "m-" + str(len(x["Message"]["Input"])), "TopicArn": x["TopicArn"]}))
