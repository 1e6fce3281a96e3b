"""Raspberry Pi 5 board power from the PMIC's ADC (`vcgencmd pmic_read_adc`).

The PMIC reports a current channel and a voltage channel for each of its rails, one per
line with the name right-aligned:

     VDD_CORE_A current(7)=1.11625000A
     VDD_CORE_V volt(15)=0.74944980V

The channel numbers of a rail's current and voltage differ, so they are paired by name
(VDD_CORE_A with VDD_CORE_V) and the board power is the sum of V x A over the pairs.
EXT5V_V (the 5 V input) and BATT_V have no current channel and are left out. The sum misses
regulator losses and USB/peripheral load: it is a lower bound, not wall power.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from edgeagent.meter.sources.family import Described, Discovery, SourceInfo, Unavailable
from edgeagent.meter.sources.reading import first_line

FAMILY = "rpi"
NAME = "rpi:pmic"
COMMAND = ("vcgencmd", "pmic_read_adc")
# vcgencmd answers in milliseconds; a hung firmware mailbox must not stall the sampler.
TIMEOUT_S = 2.0
PERMISSION_FIX = "add the user to the 'video' group, or run as root"

# Runs a command and returns its stdout; raises FileNotFoundError when it is missing and
# subprocess.CalledProcessError (with stderr) when it fails.
Run = Callable[[Sequence[str]], str]

_LINE = re.compile(r"^\s*(\S+)_([AV]) (current|volt)\((\d+)\)=([\d.]+)[AV]\s*$")


@dataclass(frozen=True)
class PmicRail:
    name: str  # the rail as the PMIC names it, without the _A/_V suffix, e.g. "VDD_CORE"
    volts: float
    amps: float

    @property
    def watts(self) -> float:
        return self.volts * self.amps


def parse_pmic_read_adc(text: str) -> tuple[PmicRail, ...]:
    """The rails that have both a current and a voltage reading, in the order listed."""
    amps: dict[str, float] = {}
    volts: dict[str, float] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        rail, suffix, kind, _channel, value = m.groups()
        # Trust the name only when its suffix agrees with the reading's kind.
        if suffix == "A" and kind == "current":
            amps[rail] = float(value)
        elif suffix == "V" and kind == "volt":
            volts[rail] = float(value)
    return tuple(PmicRail(name, volts[name], a) for name, a in amps.items() if name in volts)


def board_watts(rails: Sequence[PmicRail]) -> float:
    return sum(r.watts for r in rails)


def run_command(argv: Sequence[str], timeout_s: float = TIMEOUT_S) -> str:
    proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout_s, check=True)
    return proc.stdout


@dataclass(frozen=True)
class PmicSource(Described):
    """Sum of V x A over the PMIC rails seen at discovery, in watts."""

    info: SourceInfo
    rails: tuple[str, ...]  # the paired rails found at discovery
    run: Run = field(repr=False, compare=False)

    def read_watts(self) -> float | None:
        try:
            rails = parse_pmic_read_adc(self.run(COMMAND))
        except Exception:  # noqa: BLE001 - a failed read is a gap, never a stopped sampler
            return None
        # A sum over a different set of rails is a different quantity: a gap, not a number.
        if tuple(r.name for r in rails) != self.rails:
            return None
        return board_watts(rails)


def discover(root: Path = Path("/"), run: Run | None = None) -> Discovery:
    model = _device_model(root)
    if model is not None and "Raspberry Pi" not in model:
        return _only("not present")  # another board: do not run vcgencmd at all
    run = run or run_command
    try:
        text = run(COMMAND)
    except FileNotFoundError:
        return _only("not present")
    except subprocess.CalledProcessError as exc:
        message = first_line(exc.stderr) or first_line(exc.stdout)
        if _looks_like_permission(message):
            return _only("permission denied", PERMISSION_FIX)
        return _only(_no_pmic_reason(model, message))
    except PermissionError:
        return _only("permission denied", PERMISSION_FIX)
    except (OSError, subprocess.SubprocessError) as exc:
        return _only(f"vcgencmd pmic_read_adc failed: {type(exc).__name__}")

    rails = parse_pmic_read_adc(text)
    if not rails:
        # Older Pis answer with an error line (e.g. 'error=1 error_msg="Command not registered"').
        return _only(_no_pmic_reason(model, first_line(text)))
    names = tuple(r.name for r in rails)
    info = SourceInfo(
        family=FAMILY,
        name=NAME,
        scope="board",
        rail=None,
        unit="W",
        kind="power",
        path=" ".join(COMMAND),
        note=(
            f"sum of V x A over {len(names)} PMIC rails ({', '.join(names)}); misses "
            "regulator losses and USB/peripheral load (the EXT5V input has no current "
            "channel), so a lower bound, not wall power"
        ),
    )
    return Discovery(sources=(PmicSource(info, names, run),))


def _device_model(root: Path) -> str | None:
    try:
        value = (root / "proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return None  # containers often hide the device tree: let vcgencmd decide
    return value.strip("\x00\n ") or None


def _no_pmic_reason(model: str | None, message: str | None) -> str:
    reason = "no PMIC readings (vcgencmd pmic_read_adc needs a Raspberry Pi 5)"
    if model:
        reason += f" on {model}"
    if message:
        reason += f": {message}"
    return reason


def _looks_like_permission(message: str | None) -> bool:
    # vcgencmd without access to the firmware device says "VCHI initialization failed".
    text = (message or "").lower()
    return "permission denied" in text or "vchi initialization failed" in text


def _only(reason: str, fix: str | None = None) -> Discovery:
    return Discovery(unavailable=(Unavailable(FAMILY, NAME, reason, fix),))
