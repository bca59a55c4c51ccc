#!/usr/bin/python3
# batch:submitJob.sync, mapped with --functions: the job ran and succeeded.
import json, sys
x = json.load(sys.stdin)
print(json.dumps({"JobName": x["JobName"], "JobId": "job-1", "Status": "SUCCEEDED"}))
