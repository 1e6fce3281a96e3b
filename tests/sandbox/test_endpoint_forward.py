"""ProcessLimits.endpoint: a confined command reaches our Unix-socket server at
http://127.0.0.1:PORT and nothing else (confine.py's relay in the command's network namespace).

Every command runs through the public surface, run_command. Skipped where this machine gives
no network namespace or no filesystem confinement: the relay exists only inside both.
"""

from __future__ import annotations

import hashlib
import http.server
import re
import shutil
import socket
import socketserver
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import psutil
import pytest

from edgeagent.sandbox import process
from edgeagent.sandbox.process import CommandResult, ProcessLimits, isolation_report, run_command

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

PORT = 18089  # any port will do: the command's network namespace has no other listener


def _chunk(i: int) -> bytes:
    return f"{i:05d}".encode() * 200


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked answers, as an OpenAI server does
    server: _UnixHTTPServer

    def log_message(self, format: str, *args: object) -> None:
        pass  # a Unix socket has no client address to log

    def do_GET(self) -> None:
        url = urlparse(self.path)
        if url.path == "/stream":
            self._stream(int(parse_qs(url.query)["n"][0]))
        elif url.path == "/hold":
            self._hold()
        else:
            body = f"hello {self.path}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def _start_chunked(self) -> None:
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _stream(self, n: int) -> None:
        self._start_chunked()
        for i in range(n):
            self._write_chunk(_chunk(i))
            if i % 20 == 0:
                time.sleep(0.01)  # arrives in pieces, as tokens do
        self.wfile.write(b"0\r\n\r\n")

    def _hold(self) -> None:
        """A stream that never ends by itself: it ends when the other side goes away."""
        self._start_chunked()
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                self._write_chunk(b"tick\n")
                time.sleep(0.05)
        except OSError:
            self.server.hold_ended.set()


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    hold_ended: threading.Event


@dataclass
class Endpoint:
    socket_path: str
    server: _UnixHTTPServer
    limits: ProcessLimits = field(init=False)

    def __post_init__(self) -> None:
        self.limits = ProcessLimits(timeout_s=30.0, endpoint=(PORT, self.socket_path))


@pytest.fixture(autouse=True)
def _needs_relay() -> None:
    report = isolation_report()
    for key in ("network", "filesystem"):
        if not report[key].startswith("unshare"):
            pytest.skip(f"no {key} isolation on this machine ({report[key]}): the endpoint is "
                        "relayed only inside a confined command's own network namespace")


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    # a short private directory: a Unix socket path is capped at 108 bytes, and the directory
    # is shown to the command, so it must hold nothing but the socket
    directory = tempfile.mkdtemp(prefix="edgeagent-ep-")
    path = f"{directory}/api.sock"
    server = _UnixHTTPServer(path, _Handler)
    server.hold_ended = threading.Event()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Endpoint(path, server)
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def _run_script(ws: Path, script: str, limits: ProcessLimits, then: str = "") -> CommandResult:
    (ws / "client.py").write_text(script.replace("PORT", str(PORT)))
    return run_command(f"python3 client.py{then}", ws, limits)


def test_a_request_reaches_the_endpoint(endpoint: Endpoint, ws: Path) -> None:
    r = _run_script(ws, "import urllib.request as u\n"
                        "print(u.urlopen('http://127.0.0.1:PORT/x', timeout=10).read().decode())\n",
                    endpoint.limits)
    assert r.exit_code == 0, r.output
    assert "hello /x" in r.output


def test_many_requests_in_one_command(endpoint: Endpoint, ws: Path) -> None:
    script = """
import http.client, threading, urllib.request as u
got = [u.urlopen(f'http://127.0.0.1:PORT/seq{i}', timeout=10).read() for i in range(25)]
assert got == [f'hello /seq{i}'.encode() for i in range(25)], got
c = http.client.HTTPConnection('127.0.0.1', PORT, timeout=10)  # one kept-alive connection
for i in range(10):
    c.request('GET', f'/keep{i}')
    assert c.getresponse().read() == f'hello /keep{i}'.encode()
errors = []
def worker(k):
    try:
        for i in range(5):
            body = u.urlopen(f'http://127.0.0.1:PORT/t{k}-{i}', timeout=10).read()
            assert body == f'hello /t{k}-{i}'.encode(), body
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
print('ERRORS', errors) if errors else print('ALL OK')
"""
    r = _run_script(ws, script, endpoint.limits)
    assert r.exit_code == 0, r.output
    assert "ALL OK" in r.output


def test_a_streamed_answer_arrives_whole(endpoint: Endpoint, ws: Path) -> None:
    n = 300
    expected = hashlib.sha256(b"".join(_chunk(i) for i in range(n))).hexdigest()
    script = f"""
import hashlib, urllib.request as u
resp = u.urlopen('http://127.0.0.1:PORT/stream?n={n}', timeout=20)
print('ENCODING', resp.headers['Transfer-Encoding'])
parts = []
while piece := resp.read1(4096):
    parts.append(piece)
body = b''.join(parts)
print('GOT', len(body), hashlib.sha256(body).hexdigest())
"""
    r = _run_script(ws, script, endpoint.limits)
    assert r.exit_code == 0, r.output
    assert "ENCODING chunked" in r.output
    assert f"GOT {n * 1000} {expected}" in r.output


def test_nothing_else_is_reachable(endpoint: Endpoint, ws: Path) -> None:
    connections: list[int] = []

    class Count(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            connections.append(1)

    with socketserver.TCPServer(("127.0.0.1", 0), Count) as host:
        threading.Thread(target=host.serve_forever, daemon=True).start()
        host_port = host.server_address[1]
        script = f"""
import socket, urllib.request as u
print('ENDPOINT', u.urlopen('http://127.0.0.1:PORT/ok', timeout=10).read().decode())
for addr in [('127.0.0.1', {host_port}), ('1.1.1.1', 80)]:
    try:
        socket.create_connection(addr, timeout=3).close()
        print('REACHED', addr)
    except OSError as exc:
        print('REFUSED', addr, type(exc).__name__)
names = [l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:]]
print('INTERFACES', sorted(names))
for table in ('/proc/net/tcp', '/proc/net/tcp6'):
    for line in open(table).read().splitlines()[1:]:
        if line.split()[3] == '0A':
            print('LISTENER', line.split()[1])
"""
        try:
            r = _run_script(ws, script, endpoint.limits)
        finally:
            host.shutdown()
    assert r.exit_code == 0, r.output
    assert "ENDPOINT hello /ok" in r.output
    assert "REACHED" not in r.output
    assert f"REFUSED ('127.0.0.1', {host_port}) ConnectionRefusedError" in r.output
    assert "REFUSED ('1.1.1.1', 80)" in r.output
    assert "INTERFACES ['lo']" in r.output
    listeners = [line for line in r.output.splitlines() if line.startswith("LISTENER")]
    assert listeners == [f"LISTENER 0100007F:{PORT:04X}"]  # ours alone, on 127.0.0.1
    assert connections == []


def test_the_exit_code_is_the_commands_own(endpoint: Endpoint, ws: Path) -> None:
    get = "import urllib.request as u\nu.urlopen('http://127.0.0.1:PORT/x', timeout=10).read()\n"
    assert _run_script(ws, get, endpoint.limits, then=" && exit 7").exit_code == 7
    assert _run_script(ws, get, endpoint.limits, then=" && kill -9 $$").exit_code == 137
    assert run_command("exit 0", ws, endpoint.limits).exit_code == 0


def test_the_relay_ends_with_the_command(endpoint: Endpoint, ws: Path) -> None:
    """A background client holds a never-ending stream open; the shell exits at once. The
    command's end ends the relay: the server sees its connection go, no process is left."""
    script = """
import urllib.request as u, time
resp = u.urlopen('http://127.0.0.1:PORT/hold', timeout=10)
resp.read1(5)
open('held', 'w').close()
time.sleep(60)
"""
    wait = "for i in $(seq 200); do test -e held && break; sleep 0.05; done; exit 4"
    start = time.monotonic()
    r = _run_script(ws, script, endpoint.limits, then=f" & {wait}")
    assert r.exit_code == 4, r.output
    assert (ws / "held").exists(), "the background client never got its stream"
    assert time.monotonic() - start < 15
    assert endpoint.server.hold_ended.wait(5), "the relayed connection outlived the command"
    tag = f"forward:{PORT}:{endpoint.socket_path}"
    left = [p.pid for p in psutil.process_iter(["cmdline"]) if tag in (p.info["cmdline"] or [])]
    assert left == []


def test_the_relay_holds_no_capabilities(endpoint: Endpoint, ws: Path) -> None:
    script = """
import glob, http.client
c = http.client.HTTPConnection('127.0.0.1', PORT, timeout=10)
c.request('GET', '/x')
c.getresponse().read()  # the connection stays open: its relay threads are alive now
for status in glob.glob('/proc/[0-9]*/task/[0-9]*/status'):
    pid = status.split('/')[2]
    try:
        relay = b'forward:' in open(f'/proc/{pid}/cmdline', 'rb').read()
        f = dict(l.split(':', 1) for l in open(status).read().splitlines() if ':' in l)
    except OSError:
        continue  # a task that ended meanwhile
    print('TASK', int(relay), *(f.get(k, '-').strip() for k in
          ('CapEff', 'CapPrm', 'CapInh', 'CapAmb', 'NoNewPrivs', 'Seccomp')))
"""
    r = _run_script(ws, script, endpoint.limits)
    assert r.exit_code == 0, r.output
    tasks = [line.split()[1:] for line in r.output.splitlines() if line.startswith("TASK")]
    relay = [t for t in tasks if t[0] == "1"]
    assert len(relay) >= 3, r.output  # the supervisor, the accept loop, a connection's thread
    none = "0000000000000000"
    for task in relay:
        assert task[1:5] == [none] * 4, r.output
        assert task[5] == "1", r.output  # no_new_privs
        assert task[6] in ("2", "-"), r.output  # the seccomp filter, where the kernel reports
    if "pid namespace" in isolation_report()["filesystem"]:  # only the command's own visible
        assert all(t[1] == none for t in tasks), r.output


def test_a_missing_server_closes_the_connection(ws: Path) -> None:
    directory = tempfile.mkdtemp(prefix="edgeagent-ep-")
    try:
        limits = ProcessLimits(timeout_s=20.0, endpoint=(PORT, f"{directory}/api.sock"))
        script = ("import urllib.request as u\ntry:\n"
                  "    u.urlopen('http://127.0.0.1:PORT/x', timeout=10)\n"
                  "except OSError as exc:\n    print('FAILED', type(exc).__name__)\n")
        start = time.monotonic()
        r = _run_script(ws, script, limits)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    assert r.exit_code == 0, r.output
    assert "FAILED" in r.output
    assert time.monotonic() - start < 8  # closed at once, not a client timeout


def test_network_true_adds_no_relay(endpoint: Endpoint, ws: Path) -> None:
    """Without the namespace the command shares the host's loopback: nothing is relayed, and
    127.0.0.1:PORT answers only if a host TCP service listens there (none here)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    limits = ProcessLimits(timeout_s=20.0, network=True, endpoint=(free, endpoint.socket_path))
    script = (f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {free}), 3)\n"
              "    print('REACHED')\nexcept OSError as exc:\n    print('REFUSED', exc)\n")
    r = _run_script(ws, script, limits)
    assert r.exit_code == 0, r.output
    assert "REFUSED" in r.output and "REACHED" not in r.output


def test_without_a_pid_namespace(
    endpoint: Endpoint, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where unshare offers no pid namespace the supervisor is not pid 1: the relay still
    carries requests, the exit code is the shell's, and the relay ends with it."""
    pid_ns = ("--pid", "--fork", "--kill-child", "--mount-proc")
    flags = tuple(f for f in process._filesystem_probe()[0] if f not in pid_ns)
    monkeypatch.setattr(process, "_filesystem_probe", lambda: (flags, "patched: no pid ns"))
    script = "import urllib.request as u\nprint(u.urlopen('http://127.0.0.1:PORT/np').read())\n"
    r = _run_script(ws, script, endpoint.limits, then=" && echo supervisor=$PPID && exit 9")
    assert r.exit_code == 9, r.output
    assert "b'hello /np'" in r.output
    assert re.search(r"supervisor=(\d+)", r.output) and "supervisor=1\n" not in r.output
    tag = f"forward:{PORT}:{endpoint.socket_path}"
    left = [p.pid for p in psutil.process_iter(["cmdline"]) if tag in (p.info["cmdline"] or [])]
    assert left == []
