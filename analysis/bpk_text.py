# SPDX-License-Identifier: GPL-2.0
"""Text forms shared by the report (bpk_report.py: its first look and the
drgn sections) and the interactive helpers (drgn-shell.py); no drgn import,
so the report stays quick to start."""

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

