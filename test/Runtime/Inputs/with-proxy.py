"""Runs unum-run --invoker http with one function routed through a proxy.

usage: with-proxy.py [--swallow] FUNCTION COMMAND...

Starts an HTTP proxy on a free 127.0.0.1 port that forwards POST
/proxy/<Function> to unum-run's own gateway (POST /fn/<Function>), or with
--swallow answers 202 without forwarding (an endpoint that runs the function
elsewhere and never calls back), writes a
--url-map that sends FUNCTION to the proxy, and runs COMMAND with {gateway}
(a free HOST:PORT for --listen) and {urlmap} (the map's path) replaced.
Afterwards it prints how many invocations went through the proxy.
"""
import http.client, http.server, json, os, socket, subprocess, sys
import tempfile, threading


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netutil import free_port  # noqa: E402


swallow = sys.argv[1] == "--swallow"
if swallow:
    del sys.argv[1]
function, cmd = sys.argv[1], sys.argv[2:]
gateway = free_port()
seen = []


class Proxy(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        name = self.path.rsplit("/", 1)[-1]
        seen.append(name)
        if swallow:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        up = http.client.HTTPConnection("127.0.0.1", gateway, timeout=30)
        up.request("POST", "/fn/" + name, body,
                   {"Content-Type": "application/json"})
        r = up.getresponse()
        data = r.read()
        self.send_response(r.status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
threading.Thread(target=proxy.serve_forever, daemon=True).start()
with tempfile.TemporaryDirectory() as d:
    urlmap = os.path.join(d, "urls.json")
    with open(urlmap, "w") as f:
        json.dump({function: "http://127.0.0.1:%d/proxy/%s" %
                   (proxy.server_address[1], function)}, f)
    cmd = [a.replace("{gateway}", "127.0.0.1:%d" % gateway)
            .replace("{urlmap}", urlmap) for a in cmd]
    rc = subprocess.call(cmd)
    sys.stdout.flush()
proxy.shutdown()
print("proxied: %s" % " ".join(sorted(seen)))
sys.exit(rc)
