#!/usr/bin/python3
# Sleeps input.sleep seconds (a float), then returns {"slept": input.sleep}.
import time
import _lambda
x = _lambda.read()
time.sleep(x["sleep"])
_lambda.reply({"slept": x["sleep"]})
