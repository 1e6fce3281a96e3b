"""tasklog command line."""

import argparse
from pathlib import Path

from . import store
from .filters import select
from .render import render_table


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tasklog")
    p.add_argument("--file", type=Path, default=Path("tasks.txt"))
    sub = p.add_subparsers(dest="cmd", required=True)
    ap = sub.add_parser("add", help="add a task")
    ap.add_argument("title")
    ap.add_argument("--tag", action="append", default=[])
    dp = sub.add_parser("done", help="mark a task done")
    dp.add_argument("id", type=int)
    lp = sub.add_parser("list", help="show tasks")
    state = lp.add_mutually_exclusive_group()
    state.add_argument("--done", dest="state", action="store_const", const=True)
    state.add_argument("--pending", dest="state", action="store_const", const=False)
    lp.add_argument("--tag", help="only tasks with this tag")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    tasks = store.load(args.file)
    if args.cmd == "add":
        tasks.append(store.Task(store.next_id(tasks), args.title, False, args.tag))
        store.save(args.file, tasks)
    elif args.cmd == "done":
        for t in tasks:
            if t.id == args.id:
                t.done = True
                break
        else:
            print(f"no task {args.id}")
            return 1
        store.save(args.file, tasks)
    else:
        tasks = select(tasks, args.state, args.tag)
        print(render_table(tasks))
    return 0
