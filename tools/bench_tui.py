"""What the live dashboard costs: CPU time of the UI (main) thread, in % of one core.

    python tools/bench_tui.py [--model path/to/tiny.gguf]

1. idle: the dashboard open, the run thread asleep;
2. decoding: a stream of token events at 30 tok/s (a load generator, not a run) during one
   step, so only the step panel and the clocks move;
3. with --model: a real run (the tiny test model ends a step every fraction of a second:
   the charts' worst case).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgeagent.config import load_config  # noqa: E402
from edgeagent.events import PhaseStarted, RunStarted, TaskStarted, TokenDelta  # noqa: E402
from edgeagent.run import execute_run  # noqa: E402
from edgeagent.tui.app import DashboardApp  # noqa: E402


async def measure(start, label: str) -> None:
    app = DashboardApp(start, exit_when_done=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.5)  # past the first layout
        c0, t0 = time.thread_time(), time.monotonic()
        while app.is_running:
            await pilot.pause(0.1)
        cpu, wall = time.thread_time() - c0, time.monotonic() - t0
    steps = sum(len(v) for v in app.state.steps.values())
    print(f"{label:<28} UI thread {cpu:5.2f} s CPU over {wall:5.1f} s = "
          f"{cpu / wall * 100:4.1f}% of a core" + (f" ({steps} steps)" if steps else ""))


def idle(sink, control) -> None:
    time.sleep(10)


def decoding(sink, control) -> None:
    sink.emit(RunStarted("bench", "-", "bench", ("t",), {}))
    sink.emit(TaskStarted("t", 0, "bench", "", ""))
    sink.emit(PhaseStarted("t", 0, 0, "decode", time.monotonic_ns()))
    for _ in range(300):
        sink.emit(TokenDelta("t", 0, 0, "tok "))
        time.sleep(1 / 30)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", help="a GGUF for a real run (e.g. the tiny test model)")
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    asyncio.run(measure(idle, "idle 10 s"))
    asyncio.run(measure(decoding, "decoding at 30 tok/s, 10 s"))
    if args.model:
        config = load_config(None, {
            "model": args.model, "out": "/tmp/edgeagent-bench-tui", "max_steps": args.steps,
            "max_new_tokens": 24, "max_format_errors": 1000, "threads": 1,
        })
        asyncio.run(measure(lambda sink, control: execute_run(
            config, sinks=[sink], stop_requested=control, progress=False),
            f"run, {args.steps} steps x 3 tasks"))


if __name__ == "__main__":
    main()
