"""The engine's thread policy: how llama.cpp's CPU threads wait for each other, and how many.

llama-cpp-python built as the README builds it runs ggml's CPU backend on OpenMP (libgomp):
every graph node ends in an OpenMP barrier, and how a thread waits there is libgomp's
`OMP_WAIT_POLICY` / `GOMP_SPINCOUNT`, read once, when the library loads. A thread spinning at
a barrier holds a core that a busy neighbour wants, and a thread the neighbour preempted
keeps the others spinning: on a 2-core host one busy process cut decode from 22.5 to
6.5 tok/s with libgomp's defaults. The policy is therefore set in the environment before
llama_cpp is first imported, unless the user set those variables (theirs win), and is
recorded in provenance. `EDGEAGENT_THREAD_POLICY` names another policy; the default was
chosen by tools/bench_contention.py (docs/interference.md).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

POLICY_ENV = "EDGEAGENT_THREAD_POLICY"
OMP_KEYS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


@dataclass(frozen=True)
class ThreadPolicy:
    name: str
    env: tuple[tuple[str, str], ...]  # set before llama_cpp loads, where the user has not
    spare_cores: int  # default threads = CPUs - spare_cores (at least 1)
    about: str


POLICIES = {p.name: p for p in (
    ThreadPolicy("gomp-default", (), 0,
                 "libgomp's own: spin up to 300,000 rounds at a barrier, then sleep"),
    ThreadPolicy("active", (("OMP_WAIT_POLICY", "ACTIVE"),), 0, "spin at barriers, never sleep"),
    ThreadPolicy("passive", (("OMP_WAIT_POLICY", "PASSIVE"),), 0,
                 "sleep at barriers at once (futex), never spin"),
    ThreadPolicy("spin-10k", (("GOMP_SPINCOUNT", "10000"),), 0,
                 "spin up to 10,000 rounds at a barrier, then sleep"),
    ThreadPolicy("spin-1k", (("GOMP_SPINCOUNT", "1000"),), 0,
                 "spin up to 1,000 rounds at a barrier, then sleep"),
    ThreadPolicy("cores-1", (), 1, "libgomp's own waiting, one core left to other work"),
)}
# chosen by tools/bench_contention.py on the 2-core host (docs/results/contention.md): no loss
# alone (prefill 1.01x, decode 1.04x libgomp's defaults), 1.28-2.07x under one and two busy
# neighbours; passive and cores-1 gain more under load but lose 35-46% alone
DEFAULT_POLICY = "spin-1k"


def policy_named(name: str | None = None) -> ThreadPolicy:
    """The policy `name` (default: EDGEAGENT_THREAD_POLICY, else DEFAULT_POLICY); a name
    that is not one is a ValueError naming the choices."""
    chosen = name or os.environ.get(POLICY_ENV) or DEFAULT_POLICY
    if chosen not in POLICIES:
        raise ValueError(f"{POLICY_ENV}={chosen!r} is not a thread policy; choose one of "
                         f"{', '.join(POLICIES)}")
    return POLICIES[chosen]


def default_threads(policy: ThreadPolicy) -> int:
    """llama.cpp's threads when none are asked for: the CPUs this process may run on, less
    the policy's spare cores."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, cpus - policy.spare_cores)


_applied: dict[str, Any] | None = None  # the first application holds for the process


def apply_thread_policy(policy: ThreadPolicy | None = None) -> dict[str, Any]:
    """Set the policy's variables for libgomp, once, before llama_cpp loads (the CLI does it
    at start, the engine before its import); what holds, for provenance (`environment`: the
    OpenMP variables as the library read them). Later calls return the first record."""
    global _applied
    if _applied is not None:
        return _applied
    policy = policy or policy_named()
    loaded = "llama_cpp" in sys.modules
    user = {k: os.environ[k] for k in OMP_KEYS if k in os.environ}
    if not loaded:
        for key, value in policy.env:
            os.environ.setdefault(key, value)
    if user:
        source = "the user's environment"
    elif loaded:
        source = "none: llama_cpp was loaded before it (libgomp's defaults)"
    else:
        source = "edgeagent"
    _applied = {"policy": policy.name, "about": policy.about, "set_by": source,
                "environment": {k: os.environ.get(k) for k in OMP_KEYS},
                "spare_cores": policy.spare_cores, "default_threads": default_threads(policy)}
    return _applied
