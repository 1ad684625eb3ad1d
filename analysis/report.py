#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The report of a run: crash and drgn read its vmcore in parallel; their
facts, compared, become RUN/report.txt and RUN/report.json (schema:
analysis/report.schema.json). The work is bpk_report.py's.

    report.py RUN-DIR [--vmlinux FILE] [--analyzers toolbox|system]
              [--as-filed]               the full report (needs RUN/vmcore):
                                         a first look from drgn while crash
                                         loads, then report.txt, printed;
                                         --as-filed: report.json holds the
                                         record as bpk files it after a
                                         report that worked (bpk run)
    report.py --run-only RUN-DIR         report.json of a run the report did
                                         not cover (no vmcore, interrupted):
                                         its own facts, analysis parts null
    report.py --refresh RUN-DIR          the current RUN/run.json into the
                                         existing report.json (after bpk
                                         changed the record)
    report.py --crash-commands           crash's batch commands, one a line

The run is read from RUN/run.json only (bpk_record.py). The vmlinux is
--vmlinux, else the record's guest.vmlinux. A section whose analyzer output
lacks what it reads says "FAILED: why" in report.txt, the rest is still
written, and the exit status is 1 with one line naming every failed
section; so does a crash that cannot open the vmcore at all (the report
then keeps what drgn found). Exit 0; 1 when the report failed or is
incomplete, or (full report) the run cannot be read; 2 on bad arguments,
and for --run-only and --refresh a run without a readable record.

crash and drgn are the analysis toolbox's (bpk_analyzers.py), or Debian
12's own with --analyzers system; the report says which and why. This
script itself needs only Python's standard library.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import bpk_report  # noqa: E402 - after the path is set
except Exception as e:  # noqa: BLE001 - a broken installation in one line
    print(f"report.py: error: {e}", file=sys.stderr)
    sys.exit(1)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"report.py: error: {message} (usage: report.py RUN-DIR [--vmlinux FILE] | "
              "--run-only RUN-DIR | --refresh RUN-DIR | --crash-commands; --analyzers toolbox|system)", file=sys.stderr)
        sys.exit(2)


def main():
    ap = Parser(description=__doc__.split("\n\n")[0], add_help=True)
    ap.add_argument("run", nargs="?")
    ap.add_argument("--vmlinux")
    ap.add_argument("--analyzers", choices=("toolbox", "system"),
                    help="the toolbox's current crash and drgn (default, $BPK_ANALYZERS) or Debian 12's own")
    form = ap.add_mutually_exclusive_group()
    form.add_argument("--run-only", action="store_true")
    form.add_argument("--refresh", action="store_true")
    form.add_argument("--crash-commands", action="store_true")
    ap.add_argument("--as-filed", action="store_true")
    a = ap.parse_args()
    if a.crash_commands:
        if a.run or a.vmlinux:
            ap.error("--crash-commands takes no run")
        print("\n".join(cmd for _, cmd in bpk_report.CRASH_COMMANDS))
        return 0
    if not a.run:
        ap.error("no RUN-DIR")
    if (a.run_only or a.refresh) and (a.vmlinux or a.analyzers or a.as_filed):
        ap.error("--vmlinux, --analyzers and --as-filed are for the full report only")
    if a.run_only:
        return bpk_report.run_only(a.run)
    if a.refresh:
        return bpk_report.refresh(a.run)
    return bpk_report.full_report(a.run, a.vmlinux, a.analyzers, a.as_filed)


if __name__ == "__main__":
    sys.exit(main())
