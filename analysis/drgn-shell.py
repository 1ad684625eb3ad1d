#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""drgn on a vmcore with the project's helpers loaded (bpk drgn RUN).
Run as `/usr/bin/python3 -i drgn-shell.py --vmcore FILE --vmlinux FILE`:
the interactive prompt follows (not at a terminal: the Python lines on
stdin are run), with these in scope:

  prog                  the drgn Program on the vmcore (drgn's own API)
  fire()                the fired record, decoded with the map's BTF (a dict),
                        or None; fire(all=True): every .data.fire map's state
  fire_maps()           the trigger program's own maps (a program of your
                        own's hash of state, say), entries decoded with
                        each map's BTF
  tasks(state=, comm=)  task_struct * objects, e.g. tasks(state="D")
  ps(state=, comm=)     the same as a table: pid ppid state cpu comm
  bt(task_or_pid)       a task's kernel stack, JITed BPF frames named
  bpf()                 BPF programs (id type name tag attach) and maps
  panic()               what the dump's log says about its end (panic
                        message, oops lines, ...), the panicking task, and
                        the dump-level cause (lib/console-patterns)
  files(pid)            a process's open files; mm(pid): its mm counters

and drgn's usual names (Object, cast, container_of, ...).

It reads the two files it is given and nothing of the run around them
(bpk takes the vmlinux from the run's record). Debian's python3-drgn is
installed for /usr/bin/python3, which need not be the first python3 in
PATH. Exit 1 with one line when drgn is missing or cannot open the vmcore.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _fail(msg):
    """Exit 1 with one line. Not sys.exit(): under python3 -i, SystemExit
    prints a traceback and leaves the user at the prompt with nothing
    loaded."""
    print(f"drgn-shell.py: error: {msg}", file=sys.stderr, flush=True)
    os._exit(1)


try:
    import drgn  # noqa: E402 - after the path is set
    from drgn import NULL, Object, cast, container_of, offsetof, reinterpret, sizeof  # noqa: E402,F401
except ImportError:
    _fail(f"drgn not found for {sys.executable}: install Debian package python3-drgn (make deps)")

try:
    import bpk_drgn  # noqa: E402
    import bpk_protocol  # noqa: E402
    from bpk_text import format_frame  # noqa: E402
except Exception as e:  # noqa: BLE001 - lib/console-patterns unreadable, say which line
    _fail(str(e))

# What the prompt offers (drgn's own names, like the drgn CLI, and ours).
__all__ = ["prog", "drgn", "NULL", "Object", "cast", "container_of", "offsetof",
           "reinterpret", "sizeof", "fire", "fire_maps", "tasks", "ps", "bt", "bpf",
           "panic", "files", "mm"]

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        _fail(f"{message} (usage: python3 -i drgn-shell.py --vmcore FILE --vmlinux FILE)")

    def exit(self, status=0, message=None):  # --help, under python3 -i too
        if message:
            print(message, file=sys.stderr, end="", flush=True)
        sys.stdout.flush()
        os._exit(status)


ap = _Parser(description="drgn on a vmcore with the project's helpers")
ap.add_argument("--vmcore", required=True)
ap.add_argument("--vmlinux", required=True)
ap.add_argument("--fire-h", default=os.path.join(HERE, "..", "triggers", "fire.h"))
_args = ap.parse_args()
for _f in (_args.vmcore, _args.vmlinux):
    if not os.access(_f, os.R_OK):
        _fail(f"{_f}: not readable")
try:
    prog = bpk_drgn.open_dump(_args.vmcore, _args.vmlinux)
except Exception as e:  # noqa: BLE001 - say why, do not show a traceback
    _fail(f"drgn cannot open {_args.vmcore}: {type(e).__name__}: {e}")
try:
    _consts = bpk_drgn.fire_constants(_args.fire_h)
except (OSError, ValueError) as e:
    _fail(f"{_args.fire_h}: {getattr(e, 'strerror', None) or e}")


def fire(all=False):  # noqa: A002 - the name reads well at the prompt
    """The fired record's fields (a dict), None if no trigger fired;
    all=True: every .data.fire map's decoded state."""
    entries = bpk_drgn.fire(prog, _consts)
    if all:
        return entries
    return next((e["fields"] for e in entries if e["record"]), None)


def fire_maps():
    """The trigger program's own maps, their entries decoded with each
    map's BTF (bpk_drgn.own_maps): a list of dicts."""
    return bpk_drgn.own_maps(prog)


def tasks(state=None, comm=None):
    """task_struct * of every task (idle tasks included), or those in
    STATE (R S D T t Z X I) and/or named COMM."""
    return [t for t, _ in bpk_drgn.tasks(prog, state=state, comm=comm)]


def ps(state=None, comm=None):
    print(f"{'PID':>6} {'PPID':>6} ST CPU  COMM")
    for _, i in bpk_drgn.tasks(prog, state=state, comm=comm):
        name = f"[{i['comm']}]" if i["kthread"] else i["comm"]
        print(f"{i['pid']:>6} {i['ppid']:>6} {i['state']:<2} {i['cpu']:>3}  {name}{' *' if i['on_cpu'] else ''}")


def bt(task):
    """Print the kernel stack of TASK (a task_struct * or a pid)."""
    if not isinstance(task, Object):
        task = bpk_drgn.find_task(prog, int(task))
    for i, fr in enumerate(bpk_drgn.stack(prog, task, bpk_drgn.JitSymbols(prog))):
        print(format_frame(i, fr))


def bpf():
    objs = bpk_drgn.bpf_objects(prog)
    for p in objs["programs"]:
        print(f"prog {p['id']:>4} {p['type']:<14} {p['name']:<16} {p['tag']}  {p['attach'] or '-'}  maps {p['maps']}")
    for m in objs["maps"]:
        print(f"map  {m['id']:>4} {m['type']:<14} {m['name']}")


def panic():
    info = bpk_drgn.panic_info(prog)
    t = bpk_drgn.crashed_task(prog)
    info["task"] = {"pid": t.pid.value_(), "comm": bpk_drgn.text(t.comm)}
    info["cause"], info["cause_from"] = bpk_protocol.dump_cause(fire(), info)
    return info


def _process(pid):
    for p in bpk_drgn.processes(prog, max_files=1 << 20):
        if p["pid"] == pid:
            return p
    raise LookupError(f"no user process with pid {pid}")


def files(pid):
    for f in _process(pid)["files"]:
        print(f"{f['fd']:>4} {f['path']}")


def mm(pid):
    return _process(pid)["mm"]


def _display(value):
    if value is None:
        return
    text = str(value) if isinstance(value, (Object, drgn.StackTrace)) else repr(value)
    print(text)
    import builtins
    builtins._ = value


sys.displayhook = _display
print(f"drgn {drgn.__version__} on {_args.vmcore}; helpers: fire() fire_maps() tasks(state=) ps() bt(pid) "
      "bpf() panic() files(pid) mm(pid); help: help(bt)", file=sys.stderr)
