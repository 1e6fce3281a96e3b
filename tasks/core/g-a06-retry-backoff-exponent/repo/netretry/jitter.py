"""Jitter: spreading retries out so many clients do not retry in lockstep.

Every function takes the planned delay and a ``random.Random``; callers pass a seeded one in
tests so the results are reproducible.
"""

import random


def no_jitter(delay: float, rng: random.Random) -> float:
    return delay


def full_jitter(delay: float, rng: random.Random) -> float:
    """Anywhere between 0 and the planned delay."""
    return rng.uniform(0.0, delay)


def equal_jitter(delay: float, rng: random.Random) -> float:
    """At least half the planned delay, plus a random share of the other half."""
    half = delay / 2
    return half + rng.uniform(0.0, half)


STRATEGIES = {"none": no_jitter, "full": full_jitter, "equal": equal_jitter}


def apply_jitter(waits: list[float], strategy: str = "full", seed: int | None = None) -> list[float]:
    """The waits with jitter applied; an unknown strategy raises ValueError naming the choices."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown jitter {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    rng = random.Random(seed)
    fn = STRATEGIES[strategy]
    return [fn(wait, rng) for wait in waits]
