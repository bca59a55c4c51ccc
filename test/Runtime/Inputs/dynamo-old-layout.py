"""Makes a DynamoDB table on dynalite as a store before the outbox
partitions left it: a session's pending invocation as an o#ID item in the
session's partition (what lib/Runtime/DynamoStore.cpp no longer reads), or
with --empty an empty table (what a SAM deploy creates).

usage: dynamo-old-layout.py PORT TABLE [--empty]
Needs AWS_ACCESS_KEY_ID and AWS_REGION (with-dynalite.py sets them;
dynalite checks that requests are signed, not the signatures).
"""
import json, os, sys, time, urllib.request

port, table = sys.argv[1], sys.argv[2]


def call(op, body):
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    req = urllib.request.Request(
        "http://127.0.0.1:%s/" % port, data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810." + op,
            "X-Amz-Date": stamp,
            "Authorization": "AWS4-HMAC-SHA256 Credential=%s/%s/%s/dynamodb/"
            "aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, "
            "Signature=%s" % (os.environ["AWS_ACCESS_KEY_ID"], stamp[:8],
                              os.environ["AWS_REGION"], "0" * 64)})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


call("CreateTable", {
    "TableName": table, "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": k, "AttributeType": "S"}
                             for k in ("pk", "sk")],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                  {"AttributeName": "sk", "KeyType": "RANGE"}]})
if "--empty" not in sys.argv:
    call("PutItem", {"TableName": table, "Item": {
        "pk": {"S": "old-session"}, "sk": {"S": "o#00000000000000000007"},
        "fn": {"S": "Square"},
        "p": {"S": json.dumps({"Data": {"Value": 3}, "Session": "old-session"})}}})
print("table %s made" % table)
