#!/usr/bin/python3
# Loop counter: returns the input object with "count" one higher (0 when absent).
import _lambda
x = _lambda.read()
x["count"] = x.get("count", 0) + 1
_lambda.reply(x)
