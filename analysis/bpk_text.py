# SPDX-License-Identifier: GPL-2.0
"""Text forms shared by the report (report-merge.py, first-look.py) and the
interactive helpers (drgn-shell.py); no drgn import, so the report's merge
step stays quick to start."""

import os

USER_TOP = 1 << 63  # x86_64: kernel addresses have the top bit set


def format_frame(i, fr):
    """One stack frame (bpk_drgn.stack's dict) as a line:
    '#3  panic+0x126/0x2b7  kernel/panic.c:358'."""
    if fr["inline"]:
        where = f"[inlined] {fr['function'] or '?'}"
    elif fr["symbol"]:
        where = fr["symbol"]
    elif fr["pc"] < USER_TOP:
        where = f"0x{fr['pc']:x} (user space)"
    else:
        where = f"0x{fr['pc']:x} (no symbol)"
    return f"#{i:<2} {where}" + (f"  {fr['source']}" if fr["source"] else "")


def read_meta(run):
    """A run's run.meta as a dict (key=value lines; the first of a repeated
    key wins). Raises OSError when it cannot be read."""
    with open(os.path.join(run, "run.meta"), encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    meta = {}
    for line in lines:
        k, sep, v = line.partition("=")
        if sep and k and k not in meta:
            meta[k] = v
    return meta
