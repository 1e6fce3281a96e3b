"""Plain-text summary of one run directory, read from its run.db."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from .store import kept_attempts, open_run_db


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:4.1f}%" if whole > 0 else "   -"


def _ms_s(ms: float | None) -> str:
    return f"{ms / 1000:.1f}" if ms is not None else "-"


def render_report(run_dir: Path) -> str:
    db = open_run_db(run_dir)
    try:
        run = db.execute("SELECT * FROM runs").fetchone()
        kept = f"WHERE {kept_attempts(db)}"
        tasks = db.execute(f"SELECT * FROM tasks {kept} ORDER BY rowid").fetchall()
        phase_rows = db.execute(
            "SELECT sum(energy_prefill_j) AS prefill_j, sum(energy_decode_j) AS decode_j,"
            " sum(energy_tool_j) AS tool_j, sum(energy_other_j) AS other_j,"
            # the prefill phase's energy covers render + tokenise too, as TTFT does
            " sum(ttft_ms) AS prefill_ms, sum(t_decode_end_ns - t_first_token_ns) / 1e6"
            " AS decode_ms, sum(tool_ms) AS tool_ms,"
            " sum(t_start_ns - coalesce(t_other_start_ns, t_start_ns)) / 1e6 AS other_ms,"
            " count(*) AS steps, sum(decoded_tokens) AS tokens,"
            " sum(CASE WHEN energy_prefill_j IS NULL OR energy_decode_j IS NULL"
            " OR energy_tool_j IS NULL OR energy_other_j IS NULL THEN 1 ELSE 0 END) AS nulls"
            f" FROM steps {kept}"
        ).fetchone()
        step_rows = db.execute(
            "SELECT task_id, count(*) AS n, sum(prefill_tokens) AS prefilled,"
            " max(context_tokens) AS ctx, sum(sample_ms) AS sample_ms,"
            " sum(CASE WHEN format_error IS NOT NULL THEN 1 ELSE 0 END) AS fmt"
            f" FROM steps {kept} GROUP BY task_id"
        ).fetchall()
        spec_row = db.execute(
            "SELECT count(*) AS n, sum(spec_drafted) AS drafted, sum(spec_accepted) AS accepted,"
            " sum(spec_target_passes) AS passes, sum(decoded_tokens) AS tokens"
            f" FROM steps {kept} AND spec_drafted IS NOT NULL"
        ).fetchone()
    finally:
        db.close()
    lines: list[str] = []
    if run is None:
        return f"{run_dir}: the run never started (no run record)"
    prov = json.loads(run["provenance_json"] or "{}")
    model = prov.get("model", {})
    status = run["status"]
    if status == "running":
        status = "incomplete (the process ended before the run finished; steps below were kept)"
    if run["status"] == "failed":
        why = run["failure_reason"] if "failure_reason" in run.keys() else None
        status = f"failed: {why or 'no reason recorded'}"
    lines.append(f"run {run['run_id']}  [{status}]")
    lines.append(
        f"model  {model.get('name') or model.get('path')}  {model.get('quantization') or ''}  "
        f"sha256 {str(model.get('sha256', ''))[:12]}  n_ctx {model.get('n_ctx')}  "
        f"threads {model.get('n_threads')}{' (auto)' if model.get('n_threads_auto') else ''}"
    )
    lines += settings_lines(model)
    if model.get("sampling"):
        lines.append(f"sampling {model['sampling']}")
    if model.get("endpoint"):
        lines.append(
            f"endpoint {model['endpoint']}  ({model.get('server_kind')}, "
            f"{model.get('server_locality')} server; {model.get('energy_scope')})"
        )
    fmt = prov.get("tool_format")
    if fmt:
        family = f" ({fmt['family']})" if fmt.get("family") else ""
        lines.append(f"tool format  {fmt['resolved']}{family}: {fmt['reason']}")
    lines += device_lines(prov)
    lines.append(f"suite  {run['suite']}")
    lines.append("")
    header = (
        f"{'task':<14} {'outcome':<10} {'termination':<16} {'steps':>5} {'wall s':>7} "
        f"{'ctx':>6} {'prefill tok':>11} {'decode tok':>10} {'reused tok':>10} "
        f"{'prefill':>13} {'decode':>13} {'tool':>13} {'energy':>8}"
    )
    lines.append(header)
    lines.append("-" * len(header))
    by_task = {r["task_id"]: r for r in step_rows}
    total = {"wall": 0.0, "prefill": 0.0, "decode": 0.0, "tool": 0.0, "pt": 0, "dt": 0, "rt": 0}
    seen = set()
    for t in tasks:
        seen.add(t["task_id"])
        wall = t["wall_ms"]
        energy = f"{t['energy_j']:.1f} J" if t["energy_j"] is not None else "n/a"
        lines.append(
            f"{t['task_id']:<14} {t['outcome']:<10} {t['termination']:<16} {t['steps']:>5} "
            f"{wall / 1000:>7.1f} {t['context_tokens_final']:>6} {t['prefill_tokens']:>11} "
            f"{t['decoded_tokens']:>10} {t['reused_tokens']:>10} "
            f"{_ms_s(t['prefill_ms']):>6}s {_pct(t['prefill_ms'], wall)} "
            f"{_ms_s(t['decode_ms']):>6}s {_pct(t['decode_ms'], wall)} "
            f"{_ms_s(t['tool_ms']):>6}s {_pct(t['tool_ms'], wall)} {energy:>8}"
        )
        total["wall"] += wall
        total["prefill"] += t["prefill_ms"]
        total["decode"] += t["decode_ms"]
        total["tool"] += t["tool_ms"]
        total["pt"] += t["prefill_tokens"]
        total["dt"] += t["decoded_tokens"]
        total["rt"] += t["reused_tokens"]
    for task_id, r in by_task.items():
        if task_id not in seen:
            lines.append(f"{task_id:<14} {'(unfinished)':<10} {'':<16} {r['n']:>5}  steps kept")
    lines.append("-" * len(header))
    resolved = sum(1 for t in tasks if t["outcome"] == "resolved")
    lines.append(
        f"{'total':<14} {f'{resolved}/{len(tasks)} res.':<10} {'':<16} "
        f"{sum(t['steps'] for t in tasks):>5} {total['wall'] / 1000:>7.1f} {'':>6} "
        f"{total['pt']:>11} {total['dt']:>10} {total['rt']:>10} "
        f"{_ms_s(total['prefill']):>6}s {_pct(total['prefill'], total['wall'])} "
        f"{_ms_s(total['decode']):>6}s {_pct(total['decode'], total['wall'])} "
        f"{_ms_s(total['tool']):>6}s {_pct(total['tool'], total['wall'])}"
    )
    lines += _termination_lines(tasks)
    lines.append("")
    rate = lambda tok, ms: f"{tok / (ms / 1000):.1f} tok/s" if ms else "-"  # noqa: E731
    lines.append(
        f"throughput: prefill {rate(total['pt'], total['prefill'])}, "
        f"decode {rate(total['dt'], total['decode'])} (wall time of whole phases)"
    )
    if spec_row is not None and spec_row["n"]:
        drafted, accepted = spec_row["drafted"] or 0, spec_row["accepted"] or 0
        acceptance = f"{accepted / drafted:.0%}" if drafted else "-"
        proposer = (model.get("speculative") or {}).get("proposer", "?")
        lines.append(
            f"speculative decoding ({proposer}): "
            f"{drafted} drafted, {accepted} accepted ({acceptance}), "
            f"{spec_row['passes']} target passes for {spec_row['tokens']} decoded tokens"
        )
    fmt = sum(r["fmt"] for r in step_rows)
    lines.append(f"format errors: {fmt}")
    lines += _energy_lines(run, prov, tasks, phase_rows)
    return "\n".join(lines)


def _termination_lines(tasks: list) -> list[str]:
    """Why each task that says so ended as it did (the stuck rule's repeats, the limit hit);
    a run from before the column has none."""
    details = [(t["task_id"], t["termination"], t["termination_detail"]) for t in tasks
               if "termination_detail" in t.keys() and t["termination_detail"]]
    if not details:
        return []
    return ["why tasks ended:"] + [f"  {task_id:<14} {termination}: {detail[:160]}"
                                   for task_id, termination, detail in details]


def _energy_lines(run, prov: dict, tasks: list, phases) -> list[str]:
    """Energy metrics, or why there are none: never a 0 J that was not measured."""
    power = prov.get("power") or {}
    total = power.get("total")
    sample_hz = run["sample_hz"] if "sample_hz" in run.keys() else None
    rate = f", sampled at {sample_hz:.1f} Hz" if sample_hz else ""
    known = [t["energy_j"] for t in tasks]
    if not tasks or any(j is None for j in known):
        reasons = {t["energy_null_reason"] for t in tasks if t["energy_j"] is None}
        if not reasons:
            reasons = {run["energy_null_reason"] or "no power source found"}
        return [f"energy: not measured ({'; '.join(sorted(r for r in reasons if r))})"]
    energy = sum(known)
    # the metered interval of each task (its energy over its average power)
    wall_s = sum(t["energy_j"] / t["average_w"] for t in tasks if t["average_w"])
    resolved = sum(1 for t in tasks if t["outcome"] == "resolved")
    tokens = phases["tokens"] or 0
    label = "ESTIMATED " if total and total.get("estimated") else ""
    head = "energy:"
    if total:
        head = f"energy ({label}{total['label']}, scope {total['scope']}{rate}):"
    per_resolved = f"{energy / resolved:.1f}" if resolved else "n/a (none resolved)"
    lines = [
        head,
        f"  {energy:.1f} J over {wall_s:.1f} s, average {energy / wall_s:.2f} W"
        if wall_s > 0 else f"  {energy:.1f} J",
        f"  J per task {energy / len(tasks):.2f}, J per resolved task {per_resolved}, "
        f"J per step {energy / max(1, phases['steps']):.2f}",
    ]
    if tokens and energy > 0:
        lines.append(
            f"  mJ per generated token {1000 * energy / tokens:.1f}, "
            f"tokens per J {tokens / energy:.3f}"
        )
    by_phase = []
    for phase in ("prefill", "decode", "tool", "other"):
        joules, ms = phases[f"{phase}_j"], phases[f"{phase}_ms"]
        if joules is not None and ms:
            by_phase.append(f"{phase} {joules:.1f} J ({joules / (ms / 1000):.2f} W)")
    if by_phase:
        lines.append("  by phase: " + ", ".join(by_phase))
    baseline = power.get("baseline") or {}
    if baseline.get("watts") is not None and wall_s > 0:
        net = energy - baseline["watts"] * wall_s
        flag = " (below idle: the baseline was noisy or the power state changed)" if net < 0 else ""
        lines.append(
            f"  net of the idle baseline ({baseline['watts']:.2f} W over "
            f"{baseline['duration_s']:.0f} s): {net:.1f} J{flag}"
        )
    elif baseline:
        lines.append(f"  idle baseline not measured ({baseline.get('null_reason')})")
    return lines


def _gib(n: Any) -> str:
    return f"{n / 2**30:.1f} GiB" if isinstance(n, (int, float)) else "? GiB"


def settings_lines(model: dict[str, Any]) -> list[str]:
    """The llama.cpp settings as llama.cpp reported them (read back), and where one differs
    from what was asked, both; nothing for an endpoint or a run from before they were kept."""
    asked = model.get("settings") or {}
    got = model.get("settings_read_back") or {}
    if not asked:
        return []

    def show(key: str) -> str:
        value = got.get(key, asked.get(key))
        text = {True: "on", False: "off", None: "?"}.get(value, str(value)) if isinstance(
            value, (bool, type(None))) else str(value)
        if key in got and asked.get(key) is not None and got[key] != asked[key]:
            text += f" (asked {asked[key]})"
        return text

    parts = [f"{label} {show(key)}" for key, label in (
        ("threads", "threads"), ("threads_batch", "batch threads"), ("n_batch", "n_batch"),
        ("n_ubatch", "n_ubatch"), ("flash_attn", "flash_attn"), ("type_k", "K"),
        ("type_v", "V"), ("gpu_layers", "gpu layers"), ("mmap", "mmap"), ("mlock", "mlock"))]
    return ["llama.cpp " + ", ".join(parts) + " (read back from llama.cpp)"]


def device_lines(prov: dict[str, Any]) -> list[str]:
    """The device a run was measured on, from its provenance: board, CPU, cores, memory, OS,
    the llama.cpp build's compiled-in features, the Jetson power mode and the memory
    bandwidth; a part the run did not record is left out."""
    from ..doctor import build_features

    device = prov.get("device") or {}
    board = (prov.get("power") or {}).get("jetson_board") or {}
    name = board.get("model") or device.get("device_model")
    cores = device.get("cpu_physical_cores")
    lines = [
        f"device {name + ': ' if name else ''}{device.get('cpu_model') or 'unknown CPU'}, "
        f"{cores if cores is not None else '?'} cores / {device.get('cpu_logical_cores')} "
        f"threads, {_gib(device.get('memory_total_bytes'))} memory, "
        f"{device.get('os_release') or device.get('os')} (kernel {device.get('kernel')}, "
        f"{device.get('machine')})"
    ]
    info = device.get("llama_system_info")
    if info or device.get("llama_cpp_python_version"):
        on = [k for k, v in build_features(info or "").items() if v]
        lines.append(f"build  llama-cpp-python {device.get('llama_cpp_python_version')}; "
                     f"compiled in: {' '.join(on) or 'no CPU features reported'}")
    if board.get("nvpmodel_name") or board.get("nvpmodel_id") is not None:
        lines.append(f"power mode  nvpmodel {board.get('nvpmodel_name')} (id "
                     f"{board.get('nvpmodel_id')}, {board.get('nvpmodel_source')}); L4T "
                     f"{board.get('l4t_release') or '?'}")
    bw = device.get("memory_bandwidth") or {}
    if bw.get("gbs"):
        when = time.strftime("%Y-%m-%d", time.localtime(bw["measured_unix"])) if isinstance(
            bw.get("measured_unix"), (int, float)) else "?"
        lines.append(f"memory bandwidth {bw['gbs']:.1f} GB/s (streaming copy, measured {when}"
                     f"{', cached' if bw.get('cached') else ''})")
    elif bw:
        lines.append(f"memory bandwidth n/a ({bw.get('null_reason')})")
    return lines
