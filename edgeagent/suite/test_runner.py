"""Runs unittest ids one by one and reports one line per id: the grader's runner.

The grader never runs this in its own process: the file's text is run inside the sandbox as
`python -I -B -c TEXT FD KEY_FD IDS_JSON LIMIT_S` in the workspace, so it imports the standard
library only. `-I` keeps the workspace off sys.path while this runner imports what it needs
(a workspace `unittest/` or `json.py` cannot stand in for them), then the workspace goes in
after the standard library and before site-packages, where a test run would find the code
under test.

Results go to file descriptor FD, a file the grader opened outside the workspace and passed
down; stdout and stderr are only the tests' own output, so a program that prints result lines
forges nothing. Each line starts with a key read once from the pipe KEY_FD (then closed)
before any test code runs, so a line written blindly to every descriptor forges nothing either.
Each id runs in this one process, in order, under a SIGALRM limit, and its line is written as
soon as it is known, so a killed run still reports what finished:

    KEY {"id": ID, "status": pass|fail|error|timeout|missing, "detail": TEXT}

An id without a line counts as failed.
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


def main(argv):
    fd, key_fd, ids, limit = int(argv[1]), int(argv[2]), json.loads(argv[3]), float(argv[4])
    key = os.read(key_fd, 256).strip()
    os.close(key_fd)
    os.set_inheritable(fd, False)  # the tests' own subprocesses do not get the channel
    write, dumps = os.write, json.dumps  # bound now: code under test may patch the modules

    def alarm(signum, frame):
        raise TestTimeout(f"test ran over {limit:g} s")

    signal.signal(signal.SIGALRM, alarm)
    snapshot = _framework_snapshot()
    _workspace_on_path()
    for tid in ids:
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
        if _framework_changed(snapshot):
            status, detail = "error", "the code under test changed unittest in memory"
        lines = [x for x in str(detail).strip().splitlines() if x.strip()]
        detail = " | ".join(lines[-3:])[-400:]
        line = dumps({"id": tid, "status": status, "detail": detail}) + "\n"
        write(fd, key + b" " + line.encode("utf-8", "replace"))


if __name__ == "__main__":
    main(sys.argv)
