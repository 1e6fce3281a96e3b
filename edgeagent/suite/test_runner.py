"""Runs unittest ids one by one and prints one marker line per id: the grader's runner.

The grader never runs this in its own process: the file's text is run inside the sandbox
(`python -c TEXT IDS_JSON LIMIT_S`, in the workspace, whose modules come first on sys.path),
so it imports the standard library only.

Each id runs in this one process, in order, under a SIGALRM limit, and its marker line is
printed as soon as it is known, so a killed run still reports what finished:

    @@edgeagent-test {"id": ID, "status": pass|fail|error|timeout|missing, "detail": TEXT}
"""

import json
import signal
import sys
import unittest

MARK = "@@edgeagent-test "


class TestTimeout(Exception):
    pass


def main(argv):
    ids, limit = json.loads(argv[1]), float(argv[2])

    def alarm(signum, frame):
        raise TestTimeout(f"test ran over {limit:g} s")

    signal.signal(signal.SIGALRM, alarm)
    if "" not in sys.path:
        sys.path.insert(0, "")
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
        lines = [x for x in detail.strip().splitlines() if x.strip()]
        detail = " | ".join(lines[-3:])[-400:]
        print(MARK + json.dumps({"id": tid, "status": status, "detail": detail}), flush=True)


if __name__ == "__main__":
    main(sys.argv)
