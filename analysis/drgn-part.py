#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The report's drgn part: open a vmcore with drgn and write what it finds
(tasks and their stacks, BPF programs and maps, the fire record decoded
with the map's BTF, files and memory, the panic) as JSON facts for
the report (bpk_report.py).

    drgn-part.py --vmcore FILE --vmlinux FILE --out FACTS.json|-

("-": on stdout, which is how the report hands it back out of the
sandbox: the analyzer gets no writable path of the host's.)

Debian's python3-drgn lives in /usr/bin/python3's path, hence the
interpreter above (a python3 earlier in PATH may not have it).

The facts file is written in every case: when drgn cannot open the vmcore,
it says so ({"ok": false, "error": ...}) and the exit status is 1; a
section that fails is named in "errors" and the others are kept. Exit 2 on
bad arguments.
"""

import argparse
import json
import os
import sys
import time

T0 = time.monotonic()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vmcore", required=True)
    ap.add_argument("--vmlinux", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fire-h", default=os.path.join(HERE, "..", "triggers", "fire.h"))
    args = ap.parse_args()
    facts = {"ok": False, "error": None, "drgn_version": None}
    rc = 0
    try:
        import drgn
        import bpk_drgn

        facts["drgn_version"] = drgn.__version__
        consts = bpk_drgn.fire_constants(args.fire_h)
        t_open = time.monotonic()
        try:
            prog = bpk_drgn.open_dump(args.vmcore, args.vmlinux)
        except Exception as e:  # noqa: BLE001 - whatever stops drgn is the report's news
            raise RuntimeError(f"drgn cannot open {args.vmcore}: {type(e).__name__}: {e}") from e
        facts["open_s"] = round(time.monotonic() - t_open, 3)
        facts.update(bpk_drgn.collect(prog, consts))
        facts["ok"] = True
    except Exception as e:  # noqa: BLE001
        facts["error"] = str(e) if isinstance(e, RuntimeError) else f"{type(e).__name__}: {e}"
        rc = 1
    facts["seconds"] = round(time.monotonic() - T0, 3)
    text = json.dumps(facts, indent=1) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    elif os.path.exists(args.out) and not os.path.isfile(args.out):
        # /dev/stdout or a FIFO: renaming over it would replace it
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        tmp = args.out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.out)
    if rc:
        import bpk_protocol  # noqa: E402 - after the path is set
        bpk_protocol.say(f"drgn-part.py: error: {facts['error']}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
