"""Helpers of the unum-serve tests: free ports and plain HTTP over sockets."""
import random
import socket


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now, below the
    kernel's ephemeral range: no outgoing connection takes it as its local
    port, so a host killed and started again on it (serve-kill.py) finds it
    free. (A port from the ephemeral range could be taken meanwhile by a
    connection of another process, whose TIME_WAIT then refuses the bind
    for a minute: "Address already in use".)"""
    low = 32768
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    for _ in range(100 if low > 11000 else 0):
        port = random.randrange(10000, low)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
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
