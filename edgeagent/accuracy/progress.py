"""The progress of an accuracy run on stderr: on a terminal, one bar redrawn after every
sample; otherwise (a log file, CI) a plain line every `every` samples and at the end. The
share correct is over the samples done so far, a running figure, not the run's score (which
counts samples not run yet as failures)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from .samples import SampleResult

WIDTH = 24


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class ProgressBar:
    def __init__(self, stream: TextIO | None = None, every: int = 25) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every = every
        self.correct = self.done = self.fresh = 0
        self.t0 = time.monotonic()

    def __call__(self, sample: SampleResult, n: int, total: int, fresh: bool) -> None:
        self.done += 1
        self.correct += sample.valid
        self.fresh += fresh
        if self.tty:
            end = "\n" if n == total else ""
            print(f"\r{self.line(n, total)}", end=end, file=self.stream, flush=True)
        elif n % self.every == 0 or n == total:
            print(self.line(n, total), file=self.stream, flush=True)

    def line(self, n: int, total: int) -> str:
        filled = WIDTH * n // max(total, 1)
        text = (f"[{'#' * filled}{'-' * (WIDTH - filled)}] {n}/{total} "
                f"{100 * n / max(total, 1):3.0f}% | correct so far "
                f"{100 * self.correct / max(self.done, 1):5.1f}%")
        if self.fresh:
            per = (time.monotonic() - self.t0) / self.fresh
            text += f" | {per:5.1f} s/sample | left {_clock(per * (total - n))}"
        return text

    def close(self) -> None:
        """Ends a redrawn line that a stop left unfinished."""
        if self.tty and self.done:
            print(file=self.stream, flush=True)
