"""Shared helpers of the suite's handlers (Lambda convention, contract 1)."""
import json
import os
import sys


def read():
    return json.load(sys.stdin)


def reply(value):
    print(json.dumps(value))
    sys.exit(0)


def fail(error_type, message=""):
    """Fails the call with a named error, as a Lambda function raising it."""
    print(json.dumps({"errorType": error_type, "errorMessage": message}))
    sys.exit(1)


def state_file(key):
    """A file private to this execution (the runner gives every execution of
    every engine its own ASL_DIFF_STATE_DIR)."""
    root = os.environ["ASL_DIFF_STATE_DIR"]
    return os.path.join(root, "".join(c if c.isalnum() else "_" for c in str(key)))


def count(key):
    """Adds one to this execution's counter `key` and returns the new count."""
    path = state_file(key)
    try:
        with open(path) as f:
            n = int(f.read())
    except FileNotFoundError:
        n = 0
    n += 1
    with open(path, "w") as f:
        f.write(str(n))
    return n
