"""The grader's runner: holds the key that marks a result and imports no code under test.

The grader runs this file's text inside the sandbox as `python -I -B -c TEXT FD KEY_FD IDS_JSON
LIMIT_S` in the workspace. KEY_FD is a pipe holding the key on its first line and the text of
test_child.py after it; it is read to its end and closed before anything else happens. This
process then makes itself undumpable (a process of the same uid can neither ptrace it nor
open its memory or descriptors through /proc), keeps FD from its children, and starts
test_child.py as a separate interpreter: the only process that imports the code under test,
and one that never holds the key.

It asks the child for one id at a time over a pipe and takes exactly one answer line per
request, for the id it asked. An answer for another id, a second line, bytes that arrive
before a request or after the last answer: the code under test wrote into the channel, and
the whole run is void. Each answer goes to FD at once, marked with the key, so a killed run
still reports what finished:

    KEY {"id": ID, "status": pass|fail|error|timeout|missing, "detail": TEXT}
    KEY {"void": WHY}          (every id fails)

If the child dies mid-test, that id and the ones after it are reported as errors.
"""

import sys

sys.path[:] = [p for p in sys.path if p not in ("", ".")]

import ctypes  # noqa: E402  (after the path is cleaned)
import json  # noqa: E402
import os  # noqa: E402
import select  # noqa: E402
import subprocess  # noqa: E402

PR_SET_DUMPABLE = 4
STATUSES = ("pass", "fail", "error", "timeout", "missing")


class Void(Exception):
    """The child's channel carried something the protocol does not allow."""


def read_all(fd):
    data = b""
    while chunk := os.read(fd, 1 << 16):
        data += chunk
    os.close(fd)
    return data


def undumpable():
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no prctl here: the pid namespace and no_new_privs still apply


def start_child(text, limit):
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    child = subprocess.Popen(
        [sys.executable, "-I", "-B", "-c", text, str(req_r), str(rep_w), limit],
        pass_fds=(req_r, rep_w), close_fds=True,
    )
    os.close(req_r)
    os.close(rep_w)
    return child, req_w, rep_r


def nothing_waiting(fd):
    if select.select([fd], [], [], 0)[0]:
        raise Void("the test process wrote to the result channel out of turn")


def ask(req_w, rep_r, tid):
    """The child's one answer line for tid, or None when it exited first."""
    nothing_waiting(rep_r)
    try:
        os.write(req_w, (json.dumps(tid) + "\n").encode())
    except BrokenPipeError:
        return None
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(rep_r, 1 << 16)
        if not chunk:
            if line:
                raise Void("the test process left a partial line on the result channel")
            return None
        line += chunk
        if b"\n" in line[:-1]:
            raise Void("the test process wrote more than one line for one test")
    try:
        item = json.loads(line)
        ok = (item["id"] == tid and item["status"] in STATUSES
              and isinstance(item["detail"], str))
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise Void(f"the answer for {tid} was not the runner's: {line[:120]!r}")
    return item


def run(fd, key, ids, child, req_w, rep_r):
    def report(item):
        os.write(fd, key + b" " + json.dumps(item).encode() + b"\n")

    for n, tid in enumerate(ids):
        item = ask(req_w, rep_r, tid)
        if item is None:
            code = child.wait()
            why = f"not run: the test process exited (code {code}) during {tid}"
            report({"id": tid, "status": "error",
                    "detail": f"the test process exited (code {code}) during this test"})
            for rest in ids[n + 1:]:
                report({"id": rest, "status": "error", "detail": why})
            return
        report(item)
    os.close(req_w)
    if read_all(rep_r):
        raise Void("the test process wrote to the result channel after its last answer")
    child.wait()


def main(argv):
    fd, key_fd, ids, limit = int(argv[1]), int(argv[2]), json.loads(argv[3]), argv[4]
    key, _, child_text = read_all(key_fd).partition(b"\n")
    undumpable()
    os.set_inheritable(fd, False)
    child, req_w, rep_r = start_child(child_text.decode(), limit)
    try:
        run(fd, key, ids, child, req_w, rep_r)
    except Void as why:
        os.write(fd, key + b" " + json.dumps({"void": str(why)}).encode() + b"\n")
        child.kill()
    sys.exit(0)

if __name__ == "__main__":
    main(sys.argv)
