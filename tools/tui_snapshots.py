"""Write the SVG screenshots of the TUI in docs/ from two real runs, at 80x24 and 120x36.

    python tools/tui_snapshots.py --model qwen2.5-coder-0.5b-instruct-q4_k_m \
        --power-estimate-tdp 15 --out-dir docs

1. Runs the suite behind the live dashboard twice, one run after the other (never two model
   processes at once): run A with --threads-a (default 1) at 80x24, run B with --threads-b
   (default 2) at 120x36; each saves docs/tui-dashboard-WxH.svg while its last task's
   second step is decoding.
2. Opens the finished runs in `edgeagent view` at both sizes and saves the run browser
   (tui-runs-WxH.svg), run A's last task at that step (tui-step-WxH.svg) and A compared
   with B (tui-compare-WxH.svg).
Nothing is staged: the screens are those of the runs this script makes.
tests/tui/test_tui_layout.py checks the committed files: no chart title or legend cut.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgeagent.config import load_config  # noqa: E402
from edgeagent.run import execute_run  # noqa: E402
from edgeagent.tui.app import DashboardApp  # noqa: E402
from edgeagent.tui.view import ViewApp  # noqa: E402

SIZES = ((80, 24), (120, 36))


def tag(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


async def dashboard(config, out_dir: Path, size: tuple[int, int], step: int,
                    min_chars: int) -> Path:
    app = DashboardApp(lambda sink, control: execute_run(
        config, sinks=[sink], stop_requested=control, progress=False), exit_when_done=True)
    saved = False
    async with app.run_test(size=size) as pilot:
        st = app.state
        while app.is_running:
            last = next(reversed(st.tasks), None) if st.tasks else None
            if (not saved and last is not None and st.current_task == last
                    and st.live_step == step and st.phase == "decode"
                    and len(st.live_text) >= min_chars):
                await pilot.pause(0.15)
                app.save_screenshot(f"tui-dashboard-{tag(size)}.svg", str(out_dir))
                saved = True
            await pilot.pause(0.02)
    if not saved:
        raise SystemExit("the last task never reached that step: try --step 0")
    assert app.outcome.error is None, app.outcome.error
    return app.outcome.result.run_dir


async def shot(app: ViewApp, size: tuple[int, int], name: str, out_dir: Path,
               keys: tuple[str, ...] = ()) -> None:
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.5)
        for key in keys:
            await pilot.press(key)
        await pilot.pause(0.5)
        app.save_screenshot(f"{name}-{tag(size)}.svg", str(out_dir))


async def views(a: Path, b: Path, out_dir: Path, step: int, n_tasks: int) -> None:
    to_step = ("down",) * (n_tasks - 1) + ("enter",) + ("down",) * step
    for size in SIZES:
        await shot(ViewApp(a.parent), size, "tui-runs", out_dir)
        await shot(ViewApp(a), size, "tui-step", out_dir, to_step)
        await shot(ViewApp(a, compare=b), size, "tui-compare", out_dir)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--suite", default="smoke")
    p.add_argument("--runs", type=Path, help="where the two runs go (default: a new temporary "
                   "folder, so that the run browser shows only them)")
    p.add_argument("--out-dir", type=Path, default=Path("docs"))
    p.add_argument("--max-steps", type=int, default=6)
    p.add_argument("--threads-a", type=int, default=1)
    p.add_argument("--threads-b", type=int, default=2)
    p.add_argument("--power-estimate-tdp", type=float)
    p.add_argument("--step", type=int, default=1, help="0-based step of the last task")
    p.add_argument("--min-chars", type=int, default=30)
    args = p.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    runs = args.runs or Path(tempfile.mkdtemp(prefix="edgeagent-snapshots-"))
    t0 = time.monotonic()
    run_dirs = []
    for threads, size in zip((args.threads_a, args.threads_b), SIZES, strict=True):
        config = load_config(None, {
            "model": args.model, "suite": args.suite, "out": str(runs),
            "max_steps": args.max_steps, "threads": threads,
            "power_estimate_tdp": args.power_estimate_tdp,
        })
        run_dirs.append(asyncio.run(dashboard(config, args.out_dir, size, args.step,
                                              args.min_chars)))
    a, b = run_dirs
    n_tasks = len(list((a / "trajectories").glob("*.jsonl")))
    asyncio.run(views(a, b, args.out_dir, args.step, n_tasks))
    print(f"A {a}\nB {b}\nsnapshots in {args.out_dir} ({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
