"""Apple Silicon power from `powermetrics` (needs root: run through `sudo -n`).

Each read runs `sudo -n powermetrics --samplers cpu_power -i <ms> -n 1` and parses the one
sample it prints. macOS 13 and later print

    CPU Power: 1000 mW
    GPU Power: 200 mW
    ANE Power: 3 mW
    Combined Power (CPU + GPU + ANE): 1203 mW

while macOS 12 prints "Package Power" (plus ANE and DRAM) and no "Combined" line. Values
are the average over the -i window, so a reading describes the <ms> after the sampler
stamped it.

The primary source is the widest total the output has: "Combined" (CPU + GPU + ANE) on
macOS 13+, "Package Power" on macOS 12. llama.cpp runs on the GPU through Metal, so the CPU
figure alone would miss most of an inference step. CPU and GPU follow as separate
sources for the breakdown; all of them share one powermetrics run per sampler tick.
"""

from __future__ import annotations

import functools
import re
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from edgeagent.meter.sources.family import Described, Discovery, SourceInfo, Unavailable
from edgeagent.meter.sources.reading import first_line

FAMILY = "apple"
NAME = "apple:powermetrics"  # what family-wide failures are reported under
SUDO_FIX = "run with sudo, or add a sudoers rule for powermetrics"
DEFAULT_INTERVAL_MS = 250  # the doc's low end for powermetrics (250-1000 ms)

# Runs a command and returns its stdout; raises FileNotFoundError when it is missing and
# subprocess.CalledProcessError (with stderr) when it fails.
Run = Callable[[Sequence[str]], str]

_HEADER = re.compile(r"^\*\*\* Sampled system activity", re.MULTILINE)
_POWER = re.compile(
    r"^\s*(CPU|GPU|ANE|Combined|Package) Power(?: \([^)]*\))?:\s*([\d.]+)\s*(mW|W)\s*$",
    re.MULTILINE,
)


@dataclass(frozen=True)
class PowermetricsReading:
    """One powermetrics sample in watts; None where the output has no such line."""

    cpu_w: float | None = None
    gpu_w: float | None = None
    ane_w: float | None = None
    combined_w: float | None = None  # CPU + GPU + ANE (macOS 13+)
    package_w: float | None = None  # macOS 12's SoC total


_FIELDS = {
    "CPU": "cpu_w",
    "GPU": "gpu_w",
    "ANE": "ane_w",
    "Combined": "combined_w",
    "Package": "package_w",
}


def parse_powermetrics(text: str) -> PowermetricsReading:
    """The power lines of the first sample in text, in watts (mW and W both accepted).

    Parsing is anchored on the first sample header, and the first line of each kind wins:
    the gpu_power sampler's "GPU usage" block repeats "GPU Power:" later in the sample.
    """
    headers = list(_HEADER.finditer(text))
    if headers:
        end = headers[1].start() if len(headers) > 1 else len(text)
        text = text[headers[0].start() : end]
    values: dict[str, float] = {}
    for m in _POWER.finditer(text):
        label, number, unit = m.groups()
        key = _FIELDS[label]
        if key in values:
            continue
        try:
            value = float(number)
        except ValueError:  # e.g. "1.2.3": not a reading
            continue
        values[key] = value / 1000.0 if unit == "mW" else value
    return PowermetricsReading(**values)


def powermetrics_command(interval_ms: int) -> tuple[str, ...]:
    # -n: never prompt for a password (a prompt would hang the sampler); fail instead.
    sampler = ("powermetrics", "--samplers", "cpu_power", "-i", str(interval_ms), "-n", "1")
    return ("sudo", "-n", *sampler)


def run_command(argv: Sequence[str], timeout_s: float) -> str:
    proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout_s, check=True)
    return proc.stdout


class PowermetricsReader:
    """Runs powermetrics for whichever source asks first, and shares the sample.

    Not a frozen dataclass: it holds the latest sample and which source has seen it. A
    source that already consumed the current sample (the next sampler tick) triggers a new
    run; the others in the same tick take that run's result, so one tick costs one run.
    """

    def __init__(self, run: Run, interval_ms: int) -> None:
        self._run = run
        self.argv = powermetrics_command(interval_ms)
        self._max_age_s = interval_ms / 1000.0
        self._lock = threading.Lock()
        self._generation = 0
        self._taken_at = float("-inf")
        self._reading: PowermetricsReading | None = None
        self._seen: dict[str, int] = {}

    def reading_for(self, consumer: str) -> PowermetricsReading | None:
        with self._lock:
            stale = time.monotonic() - self._taken_at > self._max_age_s
            if stale or self._seen.get(consumer) == self._generation:
                self._refresh()
            self._seen[consumer] = self._generation
            return self._reading

    def _refresh(self) -> None:
        # A failed run is a generation too, so the other sources of this tick take the gap
        # instead of each running (and waiting on) powermetrics again.
        try:
            self._reading = parse_powermetrics(self._run(self.argv))
        except Exception:  # noqa: BLE001 - a failed read is a gap, never a stopped sampler
            self._reading = None
        self._generation += 1
        self._taken_at = time.monotonic()


@dataclass(frozen=True)
class PowermetricsSource(Described):
    """One power line of powermetrics (e.g. "Combined Power"), in watts."""

    info: SourceInfo
    reader: PowermetricsReader = field(repr=False, compare=False)
    field_name: str  # the PowermetricsReading attribute this source reports

    def read_watts(self) -> float | None:
        reading = self.reader.reading_for(self.name)
        return None if reading is None else getattr(reading, self.field_name)


# (field, source name, scope, rail as powermetrics prints it, note), primary candidates first.
_PRIMARY = (
    ("combined_w", "apple:combined", "board", "Combined Power (CPU + GPU + ANE)",
     "powermetrics CPU + GPU + ANE; excludes DRAM, display and the rest of the machine"),
    ("package_w", "apple:package", "board", "Package Power",
     "powermetrics (macOS 12) SoC package total (in captures more than CPU + GPU + ANE + "
     "DRAM); excludes display and the rest of the machine"),
)  # fmt: skip
_PARTS = (
    ("cpu_w", "apple:cpu", "cpu-package", "CPU Power", "powermetrics CPU clusters (E + P)"),
    ("gpu_w", "apple:gpu", "gpu", "GPU Power", "powermetrics integrated GPU"),
)


def discover(
    root: Path = Path("/"),
    run: Run | None = None,
    interval_ms: int = DEFAULT_INTERVAL_MS,
) -> Discovery:
    """Sources for the powermetrics power lines, the widest total first (see module doc)."""
    if interval_ms <= 0:
        raise ValueError(f"interval_ms must be positive, got {interval_ms}")
    # powermetrics ships with macOS only; looking for it below root keeps tests hermetic.
    if not (root / "usr/bin/powermetrics").exists():
        return _only("not present")
    if run is None:
        run = functools.partial(run_command, timeout_s=interval_ms / 1000.0 + 10.0)
    reader = PowermetricsReader(run, interval_ms)
    try:
        text = run(reader.argv)
    except FileNotFoundError:
        return _only("not present")  # no sudo on PATH
    except subprocess.CalledProcessError as exc:
        message = first_line(exc.stderr) or first_line(exc.stdout)
        if _sudo_refused(message):
            return _only(f"sudo refused: {message}", SUDO_FIX)
        return _only(f"powermetrics failed (exit {exc.returncode}): {message or 'no output'}")
    except subprocess.TimeoutExpired:
        return _only("powermetrics timed out")
    except OSError as exc:
        return _only(f"powermetrics could not run: {type(exc).__name__}")

    reading = parse_powermetrics(text)
    sources: list[PowermetricsSource] = []
    unavailable: list[Unavailable] = []
    path = " ".join(reader.argv)
    primary = next((p for p in _PRIMARY if getattr(reading, p[0]) is not None), None)
    candidates = ((primary,) if primary else ()) + _PARTS
    for field_name, name, scope, rail, note in candidates:
        if getattr(reading, field_name) is None:
            unavailable.append(Unavailable(FAMILY, name, f"powermetrics printed no {rail} line"))
            continue
        info = SourceInfo(
            family=FAMILY,
            name=name,
            scope=scope,
            rail=rail,
            unit="W",
            kind="power",
            path=path,
            note=f"{note}; average over the {interval_ms} ms after the sample time",
        )
        sources.append(PowermetricsSource(info, reader, field_name))
    if not sources:
        # Intel Macs print "Intel energy model derived package power" instead.
        return _only("powermetrics printed no CPU/GPU power (Apple Silicon only)")
    if primary is None:
        unavailable.insert(
            0, Unavailable(FAMILY, "apple:combined", "powermetrics printed no total power line")
        )
    return Discovery(sources=tuple(sources), unavailable=tuple(unavailable))


def _sudo_refused(message: str | None) -> bool:
    # sudo -n never prompts: it fails with "sudo: a password is required" (or "Sorry, user
    # ... may not run sudo") instead of hanging the sampler on a password prompt.
    text = (message or "").lower()
    return text.startswith("sudo:") or "password" in text or "may not run sudo" in text


def _only(reason: str, fix: str | None = None) -> Discovery:
    return Discovery(unavailable=(Unavailable(FAMILY, NAME, reason, fix),))
