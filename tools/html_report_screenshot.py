"""Screenshot a run's HTML report in headless Chromium, as a reader's browser shows it.

    python tools/html_report_screenshot.py RUN_DIR [--out docs/html-report.png]
        [--html report.html] [--width 1200] [--bandwidth-gbs X]

Writes the report with `edgeagent report RUN_DIR --format html` (the command users run),
opens it in headless Chromium (Debian: `apt-get install chromium`) and saves a PNG of the
whole page: the window is made taller than any report and the blank space under the page
is cut off afterwards (Chromium's command line has no full-page screenshot).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("no Chromium found (tried " + ", ".join(BROWSERS) + "): install it, e.g. "
                     "`apt-get install chromium`")


def write_report(run_dir: Path, html: Path, bandwidth_gbs: float | None) -> None:
    cmd = [sys.executable, "-c", "import sys; from edgeagent.cli import main; "
           "sys.exit(main(sys.argv[1:]))", "report", str(run_dir), "--format", "html",
           "-o", str(html)]
    if bandwidth_gbs:
        cmd += ["--bandwidth-gbs", str(bandwidth_gbs)]
    subprocess.run(cmd, check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def screenshot(html: Path, png: Path, width: int, height: int) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={profile}", f"--window-size={width},{height}",
             f"--screenshot={png}", html.resolve().as_uri()],
            check=True, capture_output=True, timeout=120)


def crop_blank_bottom(png: Path, margin: int = 24) -> tuple[int, int]:
    """Cut the white rows under the page, keeping `margin` of them; returns the new size."""
    import matplotlib.image as mpimg
    import numpy as np

    img = mpimg.imread(png)
    rgb = img[..., :3]
    rows = np.where((rgb < 0.98).any(axis=(1, 2)))[0]
    bottom = min(img.shape[0], (int(rows[-1]) + 1 + margin) if rows.size else img.shape[0])
    mpimg.imsave(png, img[:bottom])
    return img.shape[1], bottom


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "html-report.png")
    p.add_argument("--html", type=Path, help="keep the report here (default: a temp file)")
    p.add_argument("--width", type=int, default=1200)
    p.add_argument("--max-height", type=int, default=6000)
    p.add_argument("--bandwidth-gbs", type=float)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        html = args.html or Path(tmp) / "report.html"
        write_report(args.run_dir, html, args.bandwidth_gbs)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        screenshot(html, args.out, args.width, args.max_height)
    w, h = crop_blank_bottom(args.out)
    print(f"{args.out}: {w}x{h} px, the report of {args.run_dir}")


if __name__ == "__main__":
    main()
