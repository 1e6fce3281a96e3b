"""Background sampling of CPU, memory, temperature and power with monotonic timestamps.

One daemon thread per run reads everything every `interval_s`; phases are attributed
afterwards from the recorded samples (the engine never waits on a sensor).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType

from edgeagent.events import PhaseEnergy
from edgeagent.meter.cpu_load import HostCpuReader
from edgeagent.meter.energy import Source, attribute_energy, is_energy_counter, read_source
from edgeagent.meter.host_state import HostReader
from edgeagent.meter.sample import Sample
from edgeagent.meter.sources import KEPT


@dataclass(frozen=True)
class WindowStats:
    cpu_percent_mean: float | None
    rss_bytes_max: int | None
    temp_c_max: float | None
    samples: int  # samples inside the window; 1 when the nearest one stood in
    cpu_mhz_mean: float | None = None


# RSS, temperature, CPU clock and the side sources are read at most this often and held
# between reads: none of them moves much within a second, and reading them 20 times a
# second would spend most of the meter's 0.5%-of-a-core budget.
_SLOW_INTERVAL_NS = 1_000_000_000


def _read(reader: Callable[[], float | None]) -> float | None:
    """One source reading as read_source gives it, for a reader bound in advance."""
    try:
        value = reader()
    except Exception:  # noqa: BLE001 - a flaky sensor must not stop the sampler
        return None
    if value is None:
        return None
    value = float(value)
    return value if value == value else None  # NaN is a failed read, not a measurement


class Sampler:
    """Samples this process and the power sources every interval_s on a daemon thread.

    Memory is bounded: the newest `history_s` seconds of samples are kept (default two
    hours, 72,000 samples at 0.1 s, about 15 MB at most) because phases are attributed
    right after each step, so older samples are not needed.
    """

    def __init__(
        self,
        interval_s: float = 0.1,
        sources: Sequence[Source] = (),
        *,
        side_sources: Sequence[Source] = (),
        host: HostReader | None = None,
        cpu_reader: HostCpuReader | None = None,
        history_s: float = 2 * 3600,
    ) -> None:
        if interval_s <= 0:
            raise ValueError(f"interval_s must be positive, got {interval_s}")
        self.interval_s = interval_s
        # Read every sample: the device total that phases are attributed from.
        self.sources: tuple[Source, ...] = tuple(sources)
        # Read with the slow readings, at most once a second: the other rails and nested
        # zones, which feed per-rail summaries, not phase attribution. A counter's energy
        # between any two readings is exact however far apart they are, and reading every
        # rail 20 times a second would cost more than the meter's whole CPU budget.
        self.side_sources: tuple[Source, ...] = tuple(
            s for s in side_sources if s.name not in {t.name for t in self.sources}
        )
        self._is_counter = {s.name: is_energy_counter(s) for s in self.sources}
        # bound once: the per-sample path is the meter's whole CPU cost
        self._readers = [
            (s.name, s.read_joules if self._is_counter[s.name] else s.read_watts)
            for s in self.sources
        ]
        self._edge_waiters = 0
        self._samples: deque[Sample] = deque(maxlen=max(2, math.ceil(history_s / interval_s)))
        self._lock = threading.Lock()  # guards _samples
        self._read_lock = threading.Lock()  # one sample at a time (thread and phase edges)
        self._stop = threading.Event()
        self._taken = threading.Condition(self._lock)  # notified on every new sample
        self._thread: threading.Thread | None = None
        self._host = host if host is not None else HostReader()
        # the host's CPU counters, read every sample: interference is a matter of the phase
        self.cpu_reader = cpu_reader if cpu_reader is not None else HostCpuReader()
        self._last_counter: dict[str, tuple[int, float]] = {}
        self._slow_due_ns = 0  # when RSS, temperature and clock are next read
        self._slow: tuple[int | None, float | None, float | None, float | None] = (
            None, None, None, None)
        self._cpu_origin: tuple[int, float] = (time.monotonic_ns(), time.process_time())

    # --- lifecycle -----------------------------------------------------------------

    def start(self) -> Sampler:
        if self._thread is not None:
            raise RuntimeError("Sampler already started")
        self._cpu_origin = (time.monotonic_ns(), time.process_time())
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="edgeagent-sampler", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread and take a closing sample so the last phase has a right edge."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        thread.join(timeout=max(5.0, 10 * self.interval_s))
        if thread.is_alive():
            # Stuck in a sensor read that does not return (a hung I2C bus): a closing sample
            # would hang this thread too. The daemon thread is abandoned; the last phase's
            # right edge is the latest sample, or a gap the energy says it could not cover.
            return
        self.sample_now()
        KEPT.close()  # the sensor files held open for the sampler's reads
        self.cpu_reader.close()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> Sampler:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _run(self) -> None:
        # Deadlines on a fixed grid keep the rate steady however long a read takes.
        next_t = time.monotonic()
        while not self._stop.is_set():
            self.sample_now()
            next_t += self.interval_s
            delay = next_t - time.monotonic()
            if delay < 0:  # fell behind (suspend, slow sensor): resume from now
                next_t, delay = time.monotonic(), 0.0
            # A plain sleep, not an Event wait: at 20 Hz the wake-up is most of the meter's
            # CPU cost, and Event.wait's lock dance costs ~40% more than the one syscall.
            # Stop and edge samples wait at most one interval for it.
            time.sleep(delay)

    def edge_sample(self, timeout_s: float | None = None) -> Sample | None:
        """A sample taken now, for the right edge of an interval that just closed.

        With the thread running, the thread's next sample (within one interval) is it, and the
        caller waits at most timeout_s (default: two intervals, at least 0.5 s): it never reads a
        sensor itself, so a sensor read that hangs stalls the meter, never the run. Returns
        None when no sample came in time. Without the thread, samples right here.
        """
        thread = self._thread
        if thread is None or not thread.is_alive():
            return self.sample_now()
        timeout = timeout_s if timeout_s is not None else max(0.5, 2 * self.interval_s)
        asked_ns = time.monotonic_ns()
        with self._taken:
            self._edge_waiters += 1
            try:
                got = self._taken.wait_for(
                    lambda: bool(self._samples) and self._samples[-1].t_ns >= asked_ns, timeout)
            finally:
                self._edge_waiters -= 1
            return self._samples[-1] if got else None

    # --- reading -------------------------------------------------------------------

    def sample_now(self) -> Sample:
        """Take and record one sample right away (also usable at phase edges)."""
        with self._read_lock:
            t_ns, now_cpu = time.monotonic_ns(), time.process_time()
            # this process's CPU time (all threads) since the previous sample, in percent of
            # one CPU: psutil's Process.cpu_percent from one cheap clock read, inlined
            then_ns, then_cpu = self._cpu_origin
            self._cpu_origin = (t_ns, now_cpu)
            cpu = 100.0 * (now_cpu - then_cpu) / ((t_ns - then_ns) / 1e9) if t_ns > then_ns \
                else None
            readings = tuple([(name, _read(reader)) for name, reader in self._readers])
            counters = self.cpu_reader.read(now_cpu)
            if t_ns >= self._slow_due_ns:
                host = self._host
                self._slow = (
                    host.rss_bytes(), host.max_temperature_c(), host.cpu_mhz(), host.gpu_mhz())
                self._slow_due_ns = t_ns + _SLOW_INTERVAL_NS
                # Same timestamp as the total: the reads are microseconds apart.
                readings += tuple([(s.name, read_source(s)) for s in self.side_sources])
            rss, temp, mhz, gpu_mhz = self._slow
            power = self._primary_watts(t_ns, readings) if readings else None
            sample = Sample(t_ns, cpu, rss, power, temp, readings, mhz, gpu_mhz, counters)
            with self._lock:  # the condition's lock, entered directly: no Python frames
                self._samples.append(sample)
                if self._edge_waiters:
                    self._taken.notify_all()
        return sample

    def _primary_watts(
        self, t_ns: int, readings: tuple[tuple[str, float | None], ...]
    ) -> float | None:
        if not self.sources:
            return None
        source, (_, value) = self.sources[0], readings[0]
        if not self._is_counter[source.name] or value is None:
            return value
        previous = self._last_counter.get(source.name)
        self._last_counter[source.name] = (t_ns, value)
        if previous is None or t_ns <= previous[0]:
            return None
        delta = value - previous[1]
        if delta < 0:
            wrap = getattr(source, "wrap_joules", None)
            if wrap is None:
                return None
            delta += wrap
        return delta / ((t_ns - previous[0]) / 1e9)

    # --- queries (thread-safe) -----------------------------------------------------

    def samples(self) -> list[Sample]:
        with self._lock:
            return list(self._samples)

    def samples_between(self, t0_ns: int, t1_ns: int) -> list[Sample]:
        """Samples with t0_ns <= t_ns <= t1_ns, oldest first."""
        out: list[Sample] = []
        with self._lock:
            # Windows asked about are recent, so walk from the newest end.
            for s in reversed(self._samples):
                if s.t_ns < t0_ns:
                    break
                if s.t_ns <= t1_ns:
                    out.append(s)
        out.reverse()
        return out

    def samples_covering(self, t0_ns: int, t1_ns: int) -> list[Sample]:
        """The window's samples plus the nearest one on each side, for edge interpolation."""
        out: list[Sample] = []
        after: Sample | None = None
        with self._lock:
            for s in reversed(self._samples):
                if s.t_ns > t1_ns:
                    after = s
                    continue
                out.append(s)
                if s.t_ns < t0_ns:
                    break
        out.reverse()
        if after is not None:
            out.append(after)
        return out

    def window_stats(self, t0_ns: int, t1_ns: int) -> WindowStats:
        """CPU mean, RSS max and temperature max over a window.

        A window shorter than the interval may hold no sample; the one nearest its middle
        then stands in, since a phase that short cannot change them much.
        """
        inside = self.samples_between(t0_ns, t1_ns)
        if not inside:
            nearest = self._nearest((t0_ns + t1_ns) // 2)
            inside = [nearest] if nearest is not None else []
        cpus = [s.cpu_percent for s in inside if s.cpu_percent is not None]
        rss = [s.rss_bytes for s in inside if s.rss_bytes is not None]
        temps = [s.temp_c for s in inside if s.temp_c is not None]
        mhz = [s.cpu_mhz for s in inside if s.cpu_mhz is not None]
        return WindowStats(
            cpu_percent_mean=sum(cpus) / len(cpus) if cpus else None,
            rss_bytes_max=max(rss) if rss else None,
            temp_c_max=max(temps) if temps else None,
            samples=len(inside),
            cpu_mhz_mean=sum(mhz) / len(mhz) if mhz else None,
        )

    def _nearest(self, t_ns: int) -> Sample | None:
        best: Sample | None = None
        with self._lock:
            for s in reversed(self._samples):
                if best is None or abs(s.t_ns - t_ns) < abs(best.t_ns - t_ns):
                    best = s
                elif s.t_ns < t_ns:
                    break  # older samples are only farther away
        return best

    def attribute_energy(self, t0_ns: int, t1_ns: int, source: Source | None = None) -> PhaseEnergy:
        """Energy over [t0, t1] from source (default: the first source; null without one)."""
        if source is None and self.sources:
            source = self.sources[0]
        return attribute_energy(self.samples_covering(t0_ns, t1_ns), t0_ns, t1_ns, source)
