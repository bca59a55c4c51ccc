#!/usr/bin/python3
# Returns {"type": JSON type name, "value": input}.
import _lambda
x = _lambda.read()
names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null", int: "number", float: "number"}
_lambda.reply({"type": names[type(x)], "value": x})
