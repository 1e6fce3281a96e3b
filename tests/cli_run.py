"""The CLI called in process, its stdout and stderr kept apart (shared by the tests)."""

from __future__ import annotations

import contextlib
import io

from edgeagent import cli


def run_cli(*args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `edgeagent ARGS`."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()
