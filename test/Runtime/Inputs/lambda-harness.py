"""A fake AWS Lambda Runtime API that drives unum-lambda (the `bootstrap` of
a custom runtime) through the documented protocol and checks its requests.

usage: lambda-harness.py UNUM_LAMBDA APPDIR FUNCTION STORE

The server follows
https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html: GET
/2018-06-01/runtime/invocation/next blocks until an event is queued and
answers it with the Lambda-Runtime-* headers; POST .../invocation/ID/response
and .../invocation/ID/error answer 202 for the outstanding ID (anything else
is a protocol violation: a second answer, an unknown ID, a /next before the
answer); POST /2018-06-01/runtime/init/error. The same server takes the
bootstrap's continuations at POST /fn/NAME (standing in for the next
functions), and can refuse them with 503. Prints one line per check.
"""
import json, os, queue, subprocess, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

unum_lambda, app, function, store = sys.argv[1:5]
events = queue.Queue()
answers = queue.Queue()      # (kind, id, headers, body)
continuations = []           # (function, payload)
violations = []
state = {"outstanding": None, "refuse": False, "n": 0}
lock = threading.Lock()
PREFIX = "/2018-06-01/runtime"


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def do_GET(self):
        if self.path != PREFIX + "/invocation/next":
            violations.append("GET " + self.path)
            return self.reply(404)
        with lock:
            if state["outstanding"]:
                violations.append("/next before answering " + state["outstanding"])
        event = None if state.get("gone") else events.get()
        if event is None:  # the harness is done: the sandbox goes away
            state["gone"] = True
            return self.reply(500, b"shutting down")
        with lock:
            state["n"] += 1
            rid = "req-%d" % state["n"]
            state["outstanding"] = rid
        deadline = int((time.time() + 30) * 1000)
        self.reply(200, event, [
            ("Content-Type", "application/json"),
            ("Lambda-Runtime-Aws-Request-Id", rid),
            ("Lambda-Runtime-Deadline-Ms", str(deadline)),
            ("Lambda-Runtime-Invoked-Function-Arn",
             "arn:aws:lambda:us-east-1:123456789012:function:" + function),
            ("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000")])

    def do_POST(self):
        body = self.body()
        if self.path.startswith("/fn/"):
            if state["refuse"]:
                return self.reply(503, b"busy")
            with lock:
                continuations.append((self.path[4:], json.loads(body)))
            return self.reply(202)
        if self.path == PREFIX + "/init/error":
            answers.put(("init-error", None, dict(self.headers), body))
            return self.reply(202, b'{"status":"OK"}')
        parts = self.path[len(PREFIX):].split("/")  # '', invocation, ID, kind
        if len(parts) != 4 or parts[1] != "invocation" or parts[3] not in ("response", "error"):
            violations.append("POST " + self.path)
            return self.reply(404)
        with lock:
            if parts[2] != state["outstanding"]:
                violations.append("an answer for %s, not the outstanding %s"
                                  % (parts[2], state["outstanding"]))
                return self.reply(400, b'{"errorType":"InvalidRequestID"}')
            state["outstanding"] = None
        answers.put((parts[3], parts[2], dict(self.headers), body))
        self.reply(202, b'{"status":"OK"}')


server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]
env = dict(os.environ, AWS_LAMBDA_RUNTIME_API="127.0.0.1:%d" % port,
           _HANDLER=function, LAMBDA_TASK_ROOT=app, UNUM_STORE=store,
           UNUM_PEERS="*=http://127.0.0.1:%d/fn/{function}" % port)
env.pop("UNUM_HTTP_SECRET", None)


def answer(event):
    events.put(event.encode() if isinstance(event, str) else event)
    kind, rid, headers, body = answers.get(timeout=30)
    return kind, headers, json.loads(body)


def taken():
    with lock:
        out = list(continuations)
        continuations.clear()
    return out


boot = subprocess.Popen([unum_lambda], env=env, stderr=subprocess.PIPE)

kind, _, body = answer('{"Data": {"Value": [1, 2, 3]}, "Session": "s1"}')
print("event:", kind, json.dumps(body, sort_keys=True))
sent = taken()
print("continuations:", sorted((f, p["Session"], p["Fan-out"]["Index"], p["Data"]["Value"])
                               for f, p in sent))

kind, _, body = answer('{"Data": {"Value": [1, 2, 3]}, "Session": "s1"}')
again = taken()
# A duplicate of a finished instance (its checkpoint retired): nothing to do.
print("redelivered event:", kind, len(again), "continuations")

kind, headers, body = answer("{not json")
print("bad event:", kind, headers.get("Lambda-Runtime-Function-Error-Type"),
      body["errorType"], "errorMessage" in body)

state["refuse"] = True
kind, headers, body = answer('{"Data": {"Value": [7]}, "Session": "s2"}')
print("continuation refused:", kind, headers.get("Lambda-Runtime-Function-Error-Type"),
      body["errorType"])
state["refuse"] = False
kind, _, body = answer('{"Data": {"Value": [7]}, "Session": "s2"}')
print("retried by Lambda:", kind, [p["Data"]["Value"] for _, p in taken()])

kind, _, body = answer("[5, 6]")
print("bare input:", kind, sorted(body), len([1 for _ in taken()]), "continuations")

events.put(None)
try:
    boot.wait(timeout=10)
except subprocess.TimeoutExpired:
    boot.kill()
    violations.append("the bootstrap did not stop when the Runtime API went away")
print("violations:", violations)

# A function that is not the app's: reported to /runtime/init/error.
env["_HANDLER"] = "Nope"
boot = subprocess.Popen([unum_lambda], env=env, stderr=subprocess.DEVNULL)
kind, _, headers, body = answers.get(timeout=30)
print("init:", kind, headers.get("Lambda-Runtime-Function-Error-Type"),
      json.loads(body)["errorMessage"], "exit", boot.wait(timeout=10))
server.shutdown()
