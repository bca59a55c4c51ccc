#!/usr/bin/python3
# Fails with the error named by input.errorType (default "CustomError") and
# message input.message (default "it failed"); an input without "fail": false
# always fails, {"fail": false} returns the input.
import _lambda
x = _lambda.read()
if isinstance(x, dict) and x.get("fail") is False:
    _lambda.reply(x)
et = x.get("errorType", "CustomError") if isinstance(x, dict) else "CustomError"
msg = x.get("message", "it failed") if isinstance(x, dict) else "it failed"
_lambda.fail(et, msg)
