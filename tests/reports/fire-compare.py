#!/usr/bin/env python3
"""fire-compare.py REPORT.json...: on every run whose trigger fired, the fire
record drgn decoded equals crash's, field by field.

A map holding a fired record must have both decodes when both analyzers
opened the dump: a missing side is a difference, not a skip. Runs where an
analyzer could not open the dump (test 60 makes two on purpose) are counted
apart. Prints a DIFF line per bad map and last "N fired records compared,
M differ (K runs with one analyzer down)"; exit 0 either way (the test reads
the last line).
"""
import json
import sys

FIELDS = {"trigger", "pid", "tgid", "cpu", "comm", "action", "time_ns", "hit", "detail", "matches"}

n = bad = down = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    maps = [m for m in d["fire"]["maps"] if m["record"]]
    if not maps:
        continue
    if not (d["analyzers"]["crash"]["ok"] and d["analyzers"]["drgn"]["ok"]):
        down += 1
        continue
    for m in maps:
        n += 1
        mid = m["map_id"]
        sides = [s for s in ("crash", "drgn") if m[s] is None]
        if sides:
            bad += 1
            print(f"DIFF {path} map {mid}: no {' or '.join(sides)} decode of a fired record")
            continue
        both = set(m["crash"]) & set(m["drgn"])
        diff = [k for k in sorted(both) if m["crash"][k] != m["drgn"][k]]
        if diff or not FIELDS <= both:
            bad += 1
            print(f"DIFF {path} map {mid}: differ {diff}, missing {sorted(FIELDS - both)}")
print(f"{n} fired records compared, {bad} differ ({down} runs with one analyzer down)")
