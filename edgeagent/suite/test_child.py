"""Runs unittest ids, one per request, for the grader's runner (test_runner.py): the process
the code under test shares.

Run inside the sandbox as `python -I -B -c TEXT REQ_FD REP_FD LIMIT_S` by the runner, which
holds the result key; this process never sees it. It reads one JSON id per line from REQ_FD,
runs that id under a SIGALRM limit and answers with exactly one line on REP_FD:

    {"id": ID, "status": pass|fail|error|timeout|missing, "detail": TEXT}

then waits for the next id, and exits at end of input. `-I` keeps the workspace off sys.path
while the standard library is imported (a workspace `unittest/` or `json.py` cannot stand in
for it), then the workspace goes in after the standard library and before site-packages,
where a test run would find the code under test.
"""

import sys

# -I already leaves the working directory out; older interpreters may not for -c
sys.path[:] = [p for p in sys.path if p not in ("", ".")]

import json  # noqa: E402  (after the path is cleaned)
import os  # noqa: E402
import signal  # noqa: E402
import unittest  # noqa: E402


class TestTimeout(Exception):
    pass


def _workspace_on_path():
    where = next((i for i, p in enumerate(sys.path) if p.endswith("-packages")), len(sys.path))
    sys.path.insert(where, os.getcwd())


def _framework_snapshot():
    """What the tests' verdicts rest on, as it is before any test code runs: a module under
    test that patches an assertion or the result class in memory is caught by comparing."""
    classes = (unittest.TestCase, unittest.TestResult, unittest.TestSuite, unittest.TestLoader,
               unittest.case._Outcome)
    modules = (unittest, unittest.case, unittest.result, unittest.suite, unittest.loader)
    # behaviour only: a test may set data such as TestCase.maxDiff
    return [(c, {k: v for k, v in vars(c).items()
                 if callable(v) or isinstance(v, (staticmethod, classmethod, property))})
            for c in (*classes, *modules)]


def _framework_changed(snapshot):
    for owner, attrs in snapshot:
        now = vars(owner)
        if any(now.get(k) is not v for k, v in attrs.items()):
            return True
        if owner.__class__ is type and any(  # a method added over an inherited one
                k not in attrs and callable(v) for k, v in now.items()):
            return True
    return False


def _run_one(tid, limit):
    status, detail = "pass", ""
    try:
        suite = unittest.defaultTestLoader.loadTestsFromName(tid)
        result = unittest.TestResult()
        result.buffer = True
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            suite.run(result)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        bad = result.errors + result.failures + [
            (t, "unexpected success") for t in result.unexpectedSuccesses
        ]
        load_error = next((x for t, x in bad if "_FailedTest" in type(t).__name__), None)
        if result.testsRun == 0:
            status, detail = "missing", "no test with this id"
        elif load_error is not None:
            # absent id -> missing; an import error in the code under test -> error
            last = load_error.strip().splitlines()[-1]
            absent = any(f"'{part}'" in last for part in tid.split(".")) and (
                "AttributeError" in last or "ModuleNotFoundError" in last
            )
            status, detail = ("missing" if absent else "error"), load_error
        elif any("TestTimeout" in text for _, text in bad):
            status, detail = "timeout", f"test ran over {limit:g} s"
        elif result.errors:
            status, detail = "error", result.errors[0][1]
        elif bad:
            status, detail = "fail", bad[0][1]
    except TestTimeout:
        status, detail = "timeout", f"test ran over {limit:g} s"
    except BaseException as exc:
        status, detail = "missing", f"{type(exc).__name__}: {exc}"
    return status, detail


def main(argv):
    req_fd, rep_fd, limit = int(argv[1]), int(argv[2]), float(argv[3])
    for fd in (req_fd, rep_fd):  # the tests' own subprocesses do not get the channels
        os.set_inheritable(fd, False)
    read, write = os.read, os.write  # bound now: the code under test may patch modules
    dumps, loads = json.dumps, json.loads

    def alarm(signum, frame):
        raise TestTimeout(f"test ran over {limit:g} s")

    signal.signal(signal.SIGALRM, alarm)
    snapshot = _framework_snapshot()
    _workspace_on_path()
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = read(req_fd, 65536)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        tid = loads(line)
        status, detail = _run_one(tid, limit)
        if _framework_changed(snapshot):
            status, detail = "error", "the code under test changed unittest in memory"
        lines = [x for x in str(detail).strip().splitlines() if x.strip()]
        detail = " | ".join(lines[-3:])[-400:]
        write(rep_fd, (dumps({"id": tid, "status": status, "detail": detail}) + "\n").encode(
            "utf-8", "replace"))


if __name__ == "__main__":
    main(sys.argv)
