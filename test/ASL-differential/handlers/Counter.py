#!/usr/bin/python3
# Counts its calls in this execution (per input.key, default "c") and returns
# the input with "calls" set and "done" once calls reach input.until (default
# 3): a poll loop's "is it done yet" service.
import _lambda
x = _lambda.read()
n = _lambda.count("counter-" + str(x.get("key", "c")))
x["calls"] = n
x["done"] = n >= x.get("until", 3)
_lambda.reply(x)
