#!/usr/bin/python3
# aws-sdk:ses:sendEmail, mapped with --functions.
import json, sys
x = json.load(sys.stdin)
assert x["Destination"]["ToAddresses"] == ["alerts@example.com"], x
assert x["Source"] == "alerts@example.com", x
print(json.dumps({"MessageId": "mail-" + x["Message"]["Body"]["Text"]["Data"].lower()}))
