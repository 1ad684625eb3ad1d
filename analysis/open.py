#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A run's vmcore opened in an interactive analyzer: bpk crash and bpk drgn
end here, so that they start the same crash and drgn the report read
(bpk_analyzers.py: the toolbox's, or Debian 12's own).

    open.py crash RUN VMLINUX [--analyzers toolbox|system] [--tty]
    open.py drgn RUN VMLINUX [--analyzers toolbox|system] [--tty]

crash reads its commands from stdin (at a terminal: the user; otherwise the
lines given, then it quits at their end); drgn is drgn-shell.py under
python3 -i. --tty keeps the terminal's session (the caller's stdin is one).
Which analyzers open the dump, and why not the toolbox when it is not used,
is printed first. Exit 1 with one line when neither can start; 2 on bad
arguments.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bpk_analyzers  # noqa: E402 - after the path is set

PROG = "open.py"


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"{PROG}: error: {message} (usage: open.py crash|drgn RUN VMLINUX "
              "[--analyzers toolbox|system] [--tty])", file=sys.stderr)
        sys.exit(2)


def main():
    ap = Parser(description=__doc__.split("\n\n")[0])
    ap.add_argument("analyzer", choices=("crash", "drgn"))
    ap.add_argument("run")
    ap.add_argument("vmlinux")
    ap.add_argument("--analyzers", choices=bpk_analyzers.CHOICES)
    ap.add_argument("--tty", action="store_true")
    a = ap.parse_args()
    run = os.path.realpath(a.run)
    vmcore = os.path.join(run, "vmcore")
    for f in (vmcore, a.vmlinux):
        if not os.access(f, os.R_OK):
            print(f"{PROG}: error: {f}: not readable", file=sys.stderr)
            return 1
    chosen = bpk_analyzers.Analyzers(a.analyzers, progress=sys.stderr)
    print(f"{PROG}: analyzers: {chosen.describe()}", file=sys.stderr, flush=True)
    kernel = bpk_analyzers.kernel_paths(a.vmlinux)
    if a.analyzer == "crash":
        quick = bpk_analyzers.crash_vmlinux(kernel[0])
        cmd = ["crash", "--kaslr=auto", quick, vmcore]
        ro = [run, quick]
    else:
        cmd = [chosen.python(), "-i", os.path.join(HERE, "drgn-shell.py"),
               "--vmcore", vmcore, "--vmlinux", kernel[0]]
        ro = [run] + kernel + bpk_analyzers.OWN_PATHS
    argv = chosen.argv(cmd, ro=ro, tty=a.tty)
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        what = "Debian package crash" if a.analyzer == "crash" else "Debian package python3-drgn"
        print(f"{PROG}: error: {argv[0]}: {e.strerror} (install {what}: make deps)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
