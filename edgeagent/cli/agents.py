"""`edgeagent agents list | install NAME`: the agents `edgeagent run --agent` knows, whether
each can run here, and installing the one that lives in an environment of its own (aider)."""

from __future__ import annotations

import argparse

# the agents `install` can set up (the others come with edgeagent or an extra)
INSTALLABLE = ("aider",)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agents", help="list the agents --agent runs, or install aider",
                       description="The agents `edgeagent run --agent NAME` runs, whether each "
                       "can run here, and installing aider into an environment of its own.")
    asub = p.add_subparsers(dest="agents_cmd", metavar="{list,install}")
    asub.required = True
    lp = asub.add_parser("list", help="the agents and whether each can run here",
                         description="The agents and whether each can run here.")
    lp.set_defaults(func=_cmd_list)
    ip = asub.add_parser("install", help="install an agent that needs an environment of its "
                         "own (aider)",
                         description="Install aider-chat (pinned) into a virtual environment "
                         "of its own under $EDGEAGENT_AGENTS_DIR (~/.cache/edgeagent/agents); "
                         "needs the package index.")
    ip.add_argument("name", choices=INSTALLABLE, help="the agent to install")
    ip.add_argument("--force", action="store_true", help="remove and install again")
    ip.set_defaults(func=_cmd_install)


def _cmd_list(args: argparse.Namespace) -> int:
    from ..harness import agent_status

    for name, status in agent_status():
        print(f"{name:<16} {status}")
    return 0


def _cmd_install(args: argparse.Namespace) -> int:
    from ..harness import install_aider

    install_aider(force=args.force)
    return 0
