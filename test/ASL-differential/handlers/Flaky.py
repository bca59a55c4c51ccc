#!/usr/bin/python3
# Fails input.failures times (default 2) with error input.errorType (default
# "Transient"), then succeeds returning {"attempts": n, "key": key}. The count
# is kept per execution and per input.key (so Map items count separately).
import _lambda
x = _lambda.read()
key = x.get("key", "flaky")
n = _lambda.count("flaky-" + str(key))
if n <= x.get("failures", 2):
    _lambda.fail(x.get("errorType", "Transient"), "attempt %d" % n)
_lambda.reply({"attempts": n, "key": key})
