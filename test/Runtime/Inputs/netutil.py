"""Helpers of the unum-serve tests: free ports and plain HTTP over sockets."""
import socket


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(port, raw, timeout=5):
    """Sends a raw HTTP request; (status line, body) of the answer."""
    c = socket.create_connection(("127.0.0.1", port), timeout)
    c.sendall(raw)
    data = b""
    while True:
        chunk = c.recv(65536)
        if not chunk:
            break
        data += chunk
    c.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), body.decode().strip()


def healthy(port):
    """True if GET /healthz on the port answers 200."""
    try:
        return request(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                       0.5)[0].endswith("200 OK")
    except OSError:
        return False
