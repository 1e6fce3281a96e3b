"""A deploy plan: the steps that would run for a target with given settings."""


def build_plan(target, settings):
    remote = f"{settings['user']}@{settings['host']}:{settings['port']}"
    steps = [
        f"connect {remote} (timeout {settings['timeout']} s)",
        f"upload build/{target}.tar.gz",
        f"unpack into /srv/{target}",
        f"restart {target}",
    ]
    if settings["dry_run"]:
        steps = [f"[dry run] {s}" for s in steps]
    return steps
