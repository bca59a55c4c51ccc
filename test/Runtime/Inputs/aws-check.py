"""botocore (python3-botocore), an independent SigV4 implementation, checks
ours.

usage: /usr/bin/python3 aws-check.py sign < requests.json
         prints botocore's signature of each request, one a line; a request
         is {method, url, headers: [[name, value]...], body, region,
         service, access_key, secret_key, token, timestamp}
       /usr/bin/python3 aws-check.py lambda PORTFILE LOGFILE
         a fake Lambda Invoke endpoint on 127.0.0.1: it recomputes the
         signature of each request with botocore (secret: FAKE_AWS_SECRET)
         and answers 403 on a mismatch, 429 for a function whose name has
         "Throttled", else 202; accepted invocations go to LOGFILE as JSON
         lines {arn, type, body}. Stops on SIGTERM.
"""
import json, os, re, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def botocore_signature(method, url, headers, body, region, service, key,
                       secret, token, timestamp):
    req = AWSRequest(method=method, url=url, data=body, headers=headers)
    auth = SigV4Auth(Credentials(key, secret, token or None), service, region)
    req.context["timestamp"] = timestamp
    auth._modify_request_before_signing(req)
    canonical = auth.canonical_request(req)
    return auth.signature(auth.string_to_sign(req, canonical), req)


def sign():
    for r in json.load(sys.stdin):
        headers = {}
        for name, value in r["headers"]:  # repeated names: botocore joins
            headers[name] = (headers[name] + "," + value) if name in headers else value
        print(botocore_signature(r["method"], r["url"], headers, r["body"].encode(),
                                 r["region"], r["service"], r["access_key"],
                                 r["secret_key"], r.get("token"), r["timestamp"]))


AUTH = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                  r"SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$")


class Lambda(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, code, message=""):
        body = json.dumps({"message": message}).encode() if message else b""
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        m = AUTH.match(self.headers.get("Authorization", ""))
        if not m:
            return self.answer(403, "missing or malformed Authorization")
        key, day, region, service, signed, signature = m.groups()
        names = signed.split(";")
        if service != "lambda" or not {"host", "x-amz-date"} <= set(names):
            return self.answer(403, "bad scope or signed headers: " + signed)
        headers = {n: self.headers[n] for n in names}
        mine = botocore_signature("POST", "http://" + self.headers["Host"] + self.path,
                                  headers, body, region, service, key,
                                  os.environ["FAKE_AWS_SECRET"],
                                  self.headers.get("X-Amz-Security-Token"),
                                  self.headers["X-Amz-Date"])
        if mine != signature:
            return self.answer(403, "The request signature we calculated does not match "
                                    "the signature you provided")
        match = re.match(r"^/2015-03-31/functions/([^/]+)/invocations$", self.path)
        if not match:
            return self.answer(404, "no such path " + self.path)
        arn = urllib.parse.unquote(match.group(1))
        if "Throttled" in arn:
            return self.answer(429, "Rate exceeded")
        with open(self.server.log, "a") as f:
            f.write(json.dumps({"arn": arn,
                                "type": self.headers.get("X-Amz-Invocation-Type"),
                                "body": json.loads(body)}) + "\n")
        self.answer(202)


def serve(portfile, log):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Lambda)
    server.log = log
    with open(portfile + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    import signal
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    server.serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "sign":
        sign()
    else:
        serve(sys.argv[2], sys.argv[3])
