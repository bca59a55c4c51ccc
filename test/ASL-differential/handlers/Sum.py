#!/usr/bin/python3
# Sums a list of numbers, or the "values" list of an object.
import _lambda
x = _lambda.read()
if isinstance(x, dict):
    x = x["values"]
_lambda.reply(sum(x))
