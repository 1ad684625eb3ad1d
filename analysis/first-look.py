#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The report's first look: what brought the kernel down, from run.meta and
the drgn part alone, printed while crash is still reading the vmlinux's
debug info (its start is most of the report's time under TCG).

    first-look.py --run DIR --drgn FACTS.json --drgn-s S

Prints a few lines: the cause, the fire record (drgn's decode), the panic,
the panicking task and the top of its stack, the task counts per state.
Everything here is in the full report too, checked against crash there;
this is only earlier. Exit 0; 1 when FACTS.json or run.meta is missing or
drgn failed (report.sh then prints nothing early and the full report says
why).
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bpk_text import format_frame, read_meta  # noqa: E402 - after the path is set

FRAMES = 8  # of the panicking task's stack: enough to see the trigger's hook


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True)
    ap.add_argument("--drgn", required=True)
    ap.add_argument("--drgn-s", type=float, required=True)
    a = ap.parse_args()
    try:
        with open(a.drgn, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        print(f"first-look.py: {a.drgn}: {e}", file=sys.stderr)
        return 1
    if not d.get("ok"):
        print(f"first-look.py: the drgn part failed: {d.get('error')}", file=sys.stderr)
        return 1
    try:
        m = read_meta(a.run)
    except OSError as e:
        print(f"first-look.py: {a.run}/run.meta: {e.strerror}", file=sys.stderr)
        return 1
    out = [f"== First look (drgn, {a.drgn_s:.2f} s; the full report, checked against crash, follows)"]
    out.append(f"   cause:  {m.get('cause', '?')}: {m.get('cause_detail', '')}")
    fired = [e for e in (d.get("fire") or []) if (e.get("state") or {}).get("fire")]
    for e in fired:
        r = e["state"]["fire"]
        fields = " ".join(f"{k}={r[k]}" for k in ("trigger", "pid", "comm", "cpu", "hits", "detail")
                          if r.get(k) not in (None, ""))
        out.append(f"   fire:   {fields}")
    if not fired:
        out.append("   fire:   no fire record in the dump" if d.get("fire") is not None
                   else "   fire:   drgn could not decode it (see the full report)")
    panic = (d.get("panic") or {}).get("message") or m.get("panic_message") or "none printed"
    out.append(f"   panic:  {panic}")
    crashed = d.get("crashed")
    tasks = d.get("tasks") or []
    if crashed:
        out.append(f"   task:   pid {crashed['pid']} {crashed['comm']} on cpu {crashed['cpu']}")
        t = next((t for t in tasks if t["pid"] == crashed["pid"] and t["comm"] == crashed["comm"]), None)
        for i, fr in enumerate((t or {}).get("stack", [])[:FRAMES]):
            out.append("           " + format_frame(i, fr))
    counts = {}
    for t in tasks:
        counts[t["state"]] = counts.get(t["state"], 0) + 1
    out.append(f"   tasks:  {len(tasks)}: " + ", ".join(f"{s} {n}" for s, n in sorted(counts.items())))
    print("\n".join(out) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
