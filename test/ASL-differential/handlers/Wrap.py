#!/usr/bin/python3
# Returns {"wrapped": input}: shows exactly what the Task received.
import _lambda
_lambda.reply({"wrapped": _lambda.read()})
