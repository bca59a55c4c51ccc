#!/usr/bin/python3
# aws-sdk:transcribe:startTranscriptionJob, mapped with --functions: the job,
# in progress.
import json, sys
x = json.load(sys.stdin)
assert x["Media"]["MediaFileUri"].startswith("s3://calls/"), x
assert x["OutputBucketName"] == "transcripts", x
print(json.dumps({"TranscriptionJob": {
    "TranscriptionJobName": x["TranscriptionJobName"],
    "TranscriptionJobStatus": "IN_PROGRESS",
    "OutputKey": x["OutputKey"]}}))
