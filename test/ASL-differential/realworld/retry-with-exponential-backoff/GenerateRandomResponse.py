#!/usr/bin/python3
# The sample's function answers at random; this one fails once with the
# transient error the Retry names (InternalServerError), then succeeds.
import sys, os, json
sys.stdin.read()
path = os.path.join(os.environ["ASL_DIFF_STATE_DIR"], "generate")
n = int(open(path).read()) + 1 if os.path.exists(path) else 1
open(path, "w").write(str(n))
if n == 1:
    print(json.dumps({"errorType": "InternalServerError", "errorMessage": "upstream busy"}))
    sys.exit(1)
print(json.dumps({"statusCode": 200, "body": "Success after %d calls" % n}))
