#!/usr/bin/python3
# aws-sdk:transcribe:getTranscriptionJob, mapped with --functions: a job whose
# name ends in "-bad" failed; "-slow" is still in progress on the first poll;
# any other is done, its transcript at https://<host>/<bucket>/<key>.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                "..", "..", "handlers"))
import _lambda
x = _lambda.read()
name = x["TranscriptionJobName"]
polls = _lambda.count("polls-" + name)
if name.endswith("-bad"):
    status = "FAILED"
elif name.endswith("-slow") and polls < 2:
    status = "IN_PROGRESS"
else:
    status = "COMPLETED"
seq = name[len("Transcription-Job-For-"):]
job = {"TranscriptionJobName": name, "TranscriptionJobStatus": status}
if status == "COMPLETED":
    job["Transcript"] = {"TranscriptFileUri":
        "https://s3.us-east-1.amazonaws.com/transcripts/Transcription-Output-for-%s.txt" % seq}
_lambda.reply({"TranscriptionJob": job})
