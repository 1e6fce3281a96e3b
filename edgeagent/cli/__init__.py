"""Every `edgeagent` command: main.py is the argparse root, each other module one command
group (run, replay + export, report + compare + check, models, tasks, sensors, doctor, index,
view), common.py the flag groups and the stop flag they share. Nothing outside this package
parses argv."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
