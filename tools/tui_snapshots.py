"""Write the README's SVG screenshots of the TUI from a real run.

    python tools/tui_snapshots.py --model qwen2.5-coder-0.5b-instruct-q4_k_m \
        --power-estimate-tdp 15 --out-dir docs

1. Runs the smoke suite behind the live dashboard (headless textual, 80x24) and saves
   docs/tui-dashboard.svg while the last task's second step is decoding.
2. Opens the finished run in `edgeagent view` (100x30), goes to that step and saves
   docs/tui-view.svg.
Nothing is staged: the screens are those of the run this script makes.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgeagent.config import load_config  # noqa: E402
from edgeagent.run import execute_run  # noqa: E402
from edgeagent.tui.app import DashboardApp  # noqa: E402
from edgeagent.tui.view import ViewApp  # noqa: E402


async def dashboard(config, out_dir: Path, step: int, min_chars: int) -> Path:
    app = DashboardApp(lambda sink, control: execute_run(
        config, sinks=[sink], stop_requested=control, progress=False), exit_when_done=True)
    saved = False
    async with app.run_test(size=(80, 24)) as pilot:
        st = app.state
        while app.is_running:
            last = next(reversed(st.tasks), None) if st.tasks else None
            if (not saved and last is not None and st.current_task == last
                    and st.live_step == step and st.phase == "decode"
                    and len(st.live_text) >= min_chars):
                await pilot.pause(0.15)
                app.save_screenshot("tui-dashboard.svg", str(out_dir))
                saved = True
            await pilot.pause(0.02)
    if not saved:
        raise SystemExit("the last task never reached that step: try --step 0")
    assert app.outcome.error is None, app.outcome.error
    return app.outcome.result.run_dir


async def view(run_dir: Path, out_dir: Path, step: int, n_tasks: int) -> None:
    app = ViewApp(run_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.3)
        for _ in range(n_tasks - 1):
            await pilot.press("down")
        await pilot.press("enter")
        for _ in range(step):
            await pilot.press("down")
        await pilot.pause(0.3)
        app.save_screenshot("tui-view.svg", str(out_dir))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--suite", default="smoke")
    p.add_argument("--runs", default="/tmp/edgeagent-snapshots")
    p.add_argument("--out-dir", type=Path, default=Path("docs"))
    p.add_argument("--max-steps", type=int, default=6)
    p.add_argument("--threads", type=int)
    p.add_argument("--power-estimate-tdp", type=float)
    p.add_argument("--step", type=int, default=1, help="0-based step of the last task")
    p.add_argument("--min-chars", type=int, default=30)
    args = p.parse_args()
    config = load_config(None, {
        "model": args.model, "suite": args.suite, "out": args.runs,
        "max_steps": args.max_steps, "threads": args.threads,
        "power_estimate_tdp": args.power_estimate_tdp,
    })
    args.out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    run_dir = asyncio.run(dashboard(config, args.out_dir, args.step, args.min_chars))
    n_tasks = len(list((run_dir / "trajectories").glob("*.jsonl")))
    asyncio.run(view(run_dir, args.out_dir, args.step, n_tasks))
    print(f"{run_dir}: snapshots in {args.out_dir} ({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
