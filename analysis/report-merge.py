#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Bring the two analyzers together: write the drgn sections of report.txt
and the whole of report.json (schema: analysis/report.schema.json).

    report-merge.py --run DIR [--drgn FACTS.json] [--crash-out FILE]
                    [--crash-error MSG] [--drgn-error MSG]
                    [--crash-fire MAPID=FILE ...]
                    [--crash-s S] [--drgn-s S] [--first-look-s S] [--started-ms MS]
                    [--text OUT.txt] [--json OUT.json]
    report-merge.py --run DIR --refresh

--refresh puts run.meta's current status, reason, dump state, timings and
keys into the run's existing report.json, nothing else: run.sh uses it
when a step after the report changed run.meta (a report that failed makes
the run failed).

--crash-out is crash's batch output, one section per command after a line
"@@@ NAME" (report.sh's sys, bt, log, bpf); --crash-fire the fire-decode
output for each .data.fire map. Without --drgn and --crash-out (a run with
no vmcore: run.sh calls it so for a failed run) only the run's own facts
go into report.json.

Where crash and drgn disagree (kernel release, panic message, panicking task, fire record
field by field, BPF programs, task count), both values are kept, the text
says so, and report.json lists it under "disagreements": nothing is
picked silently. Exit 0, 1 when an output cannot be written, 2 on bad
arguments or a run directory without run.meta.
"""

import argparse
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bpk_text  # noqa: E402 - after the path is set
from bpk_text import format_frame  # noqa: E402
SCHEMA_VERSION = 1
CAUSES = ("trigger", "warning", "oops", "sysrq", "unknown")
# The same patterns the drgn side uses on the log (bpk_drgn.py), applied to
# crash's "log" when drgn has nothing; kept here too so that this script
# does not need drgn to run.
PANIC_RE = re.compile(r"Kernel panic - not syncing: (.*)")
OOPS_RE = re.compile(r"(^|\] )(Oops: |BUG: |general protection fault|kernel BUG at |Unable to handle)")
SYSRQ_RE = re.compile(r"sysrq: (Trigger a crash|Crash)|sysrq triggered crash")
WARN_RE = re.compile(r"(^|\] )WARNING: CPU: \d+ PID: \d+ at ")
# our bpf_panic() message (triggerctl builds it): evidence of a trigger even
# when no fire record can be read
TRIGGER_MSG_RE = re.compile(r"bpf_panic trigger (\S+) fired")


def die(msg, code=1):
    print(f"report-merge.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def read_meta(run):
    try:
        return bpk_text.read_meta(run)
    except OSError as e:
        die(f"{os.path.join(run, 'run.meta')}: {e.strerror} (not a run directory?)", 2)


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def trigger_arguments(args):
    """'syscall=openat errno=ENOENT dry_run' -> {"syscall": "openat",
    "errno": "ENOENT", "dry_run": True}"""
    out = {}
    for word in (args or "").split():
        k, sep, v = word.partition("=")
        out[k] = v if sep else True
    return out


# --- crash's side


def crash_sections(path):
    sections, name = {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f.read().splitlines():
            if line.startswith("@@@ "):
                name = line[4:]
                sections[name] = []
            elif name is not None:
                sections[name].append(line)
    return sections


def crash_facts(sections):
    sys_ = "\n".join(sections.get("sys", []))

    def field(name):
        m = re.search(rf"^\s*{name}: (.*)$", sys_, re.M)
        return m.group(1).strip() if m else None
    facts = {"release": field("RELEASE"), "version": field("VERSION"),
             "tasks": None, "panic": None, "task": None, "programs": None,
             "log": sections.get("log", [])}
    if field("TASKS"):
        facts["tasks"] = int(field("TASKS"))
    panic = field("PANIC")
    if panic is not None:
        m = re.match(r'^"(.*)"', panic)
        facts["panic"] = m.group(1) if m else panic
    for line in sections.get("bt", []):
        m = re.match(r'^PID: (\d+)\s+TASK: \S+\s+CPU: (\d+)\s+COMMAND: "(.*)"', line)
        if m:
            facts["task"] = {"pid": int(m.group(1)), "cpu": int(m.group(2)), "comm": m.group(3)}
            break
    progs = []
    for line in sections.get("bpf", []):
        # " ID      BPF_PROG       BPF_PROG_AUX   BPF_PROG_TYPE  TAG  USED_MAPS"
        m = re.match(r"^\s*(\d+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([A-Z_]+)\s+([0-9a-f]{16})\b", line)
        if m:
            progs.append({"id": int(m.group(1)), "type": m.group(2).lower(), "tag": m.group(3)})
    if any(line.strip().startswith("ID") for line in sections.get("bpf", [])):
        facts["programs"] = progs
    return facts


def crash_fire(path):
    """fire-decode's key=value lines, in the names and forms drgn's decode
    is compared in."""
    rec = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f.read().splitlines():
            k, sep, v = line.partition("=")
            if sep:
                rec[k.strip()] = v
    out = {}
    for k, v in rec.items():
        if k == "record":
            continue
        if k == "time":  # "12.345678901 s after boot"
            m = re.match(r"^(\d+)\.(\d{9}) s after boot$", v)
            out["time_ns"] = int(m.group(1)) * 10**9 + int(m.group(2)) if m else v
        elif k == "action":  # "none (dry run)" is FIRE_NONE
            out[k] = v.split(" ")[0]
        elif re.fullmatch(r"-?\d+", v):  # refused_ret is signed
            out[k] = int(v)
        else:
            out[k] = v
    return rec.get("record") == "yes", out


# --- putting the two together


class Report:
    def __init__(self, args):
        self.args = args
        self.meta = read_meta(args.run)
        self.drgn = None
        self.crash = None
        self.crash_fire = {}
        self.disagree = []
        self.lines = []

    def load(self):
        a = self.args
        if a.drgn_error:
            self.drgn = {"ok": False, "error": a.drgn_error}
        elif a.drgn:
            try:
                with open(a.drgn, encoding="utf-8") as f:
                    self.drgn = json.load(f)
            except (OSError, ValueError) as e:
                self.drgn = {"ok": False, "error": f"{a.drgn}: no drgn facts ({e})"}
        if a.crash_out and not a.crash_error:
            try:
                self.crash = crash_facts(crash_sections(a.crash_out))
            except OSError as e:
                a.crash_error = f"{a.crash_out}: {e.strerror}"
        for spec in a.crash_fire:
            mid, sep, path = spec.partition("=")
            if not sep or not mid.isdigit():
                die(f"--crash-fire '{spec}': not MAPID=FILE", 2)
            try:
                self.crash_fire[int(mid)] = crash_fire(path)
            except OSError as e:
                self.crash_fire[int(mid)] = (False, {"error": f"{path}: {e.strerror}"})

    @property
    def drgn_ok(self):
        return bool(self.drgn and self.drgn.get("ok"))

    def d(self, key):
        """A drgn fact, None when drgn or that section failed."""
        return self.drgn.get(key) if self.drgn_ok else None

    def note_differ(self, what, crash, drgn, note=None):
        """Record a disagreement; returns its text line."""
        d = {"what": what, "crash": crash, "drgn": drgn, "note": note}
        self.disagree.append(d)
        return self.line_of(d)

    def differ(self, what, crash, drgn, note=None):
        self.out(self.note_differ(what, crash, drgn, note))

    def failed(self, section):
        """drgn's error for one of its sections, or None."""
        for e in (self.drgn or {}).get("errors") or []:
            if e.startswith(section + ": "):
                return e[len(section) + 2:]
        return None

    def out(self, line=""):
        self.lines.append(line)

    # -- the panic and its cause

    def panic(self):
        """The panic: message, cause, task, from both analyzers. Their
        differences go to self.disagree (printed by render)."""
        dp = self.d("panic") or {}
        cp = self.crash["panic"] if self.crash else None
        message = dp.get("message") if self.d("panic") is not None else (cp or None)
        if self.d("panic") is not None and self.crash:
            # crash's PANIC is "" when nothing called panic() (crash_kexec)
            # and the oops line itself when an oops led to the panic
            c = cp or None
            if c != message and not (c and message is None and any(c in ln for ln in dp.get("oops_lines", []))):
                self.note_differ("panic message", cp, message)
        log = self.crash["log"] if self.crash else []
        oops = dp.get("oops") if self.d("panic") is not None else next((ln for ln in log if OOPS_RE.search(ln)), None)
        sysrq = dp.get("sysrq") if self.d("panic") is not None else next((ln for ln in log if SYSRQ_RE.search(ln)), None)
        warning = dp.get("warning") if self.d("panic") is not None else next((ln for ln in log if WARN_RE.search(ln)), None)
        fire = self.fire_record
        fired_by_msg = TRIGGER_MSG_RE.search(message or "")
        if fire and fire.get("action") in ("bpf_panic", "crash_kexec"):
            cause, why = "trigger", f"fire record: {fire.get('trigger')} fired through {fire.get('action')}"
        elif fired_by_msg:
            cause, why = "trigger", f"panic message (no fire record could be read): {fired_by_msg.group(0)}"
        elif warning and "panic_on_warn" in (message or ""):
            # a WARN() that panic_on_warn turned into the panic
            cause, why = "warning", re.sub(r"^\[[ 0-9.]*\] ", "", warning.strip())
        elif oops:
            cause, why = "oops", oops.strip()
        elif sysrq or (message and "sysrq triggered crash" in message):
            cause, why = "sysrq", (sysrq or message).strip()
        else:
            cause, why = "unknown", "no fire record, no WARNING with panic_on_warn, no oops or sysrq line in the log"
        # A cause the run itself recorded (run.meta, any key naming a cause)
        # is compared, not trusted over the dump.
        for k, v in self.meta.items():
            if "cause" in k and v in CAUSES and v != cause:
                self.note_differ(f"cause (run.meta {k})", None, cause, f"run.meta says {v}")
        # the kernel each analyzer read the dump as (drgn: UTS_RELEASE from
        # the dump's memory; crash: sys RELEASE)
        dr, cr = self.d("release"), (self.crash or {}).get("release")
        if dr and cr and dr != cr:
            self.note_differ("kernel release", cr, dr)
        dc, cc = self.d("crashed"), self.crash["task"] if self.crash else None
        if dc and cc and (dc["pid"], dc["comm"]) != (cc["pid"], cc["comm"]):
            self.note_differ("panicking task", cc, dc)
        oops_lines = dp.get("oops_lines") if self.d("panic") is not None else [
            re.sub(r"^\[[ 0-9.]*\] ", "", ln) for ln in log if OOPS_RE.search(ln)][:8]
        return {"message": message, "oops": oops_lines or None, "cause": cause, "cause_from": why,
                "task": dc or cc}

    # -- the fire record

    def fires(self):
        """Per .data.fire map: drgn's decode, crash's, compared field by
        field."""
        out = []
        drgn_maps = {e["map_id"]: e for e in (self.d("fire") or [])}
        for mid in sorted(set(drgn_maps) | set(self.crash_fire)):
            d = drgn_maps.get(mid)
            c = self.crash_fire.get(mid)
            entry = {"map_id": mid, "program": d["program"] if d else None,
                     "record": (d["record"] if d else c[0] if c else False),
                     "drgn": d["fields"] if d else None,
                     "crash": c[1] if c else None, "agree": None, "differences": []}
            if d and c:
                if d["record"] != c[0]:
                    entry["differences"].append({"field": "record", "crash": c[0], "drgn": d["record"]})
                for k in sorted(set(d["fields"]) | set(c[1])):
                    if k == "action_code":
                        continue
                    cv, dv = c[1].get(k), d["fields"].get(k)
                    if k not in c[1] or k not in d["fields"]:
                        # a field only one decoder knows (appended to
                        # trigger_state, not yet printed by fire-decode)
                        entry.setdefault("only_one_side", []).append(k)
                        continue
                    if cv != dv:
                        entry["differences"].append({"field": k, "crash": cv, "drgn": dv})
                entry["agree"] = not entry["differences"]
            out.append(entry)
        return out

    @property
    def fire_record(self):
        """The fired record's fields: drgn's when it has one, else crash's."""
        for e in self.fire_entries:
            if e["record"]:
                return e["drgn"] or e["crash"]
        return None

    # -- sections of report.txt

    def text_tasks(self, tasks, named, crashed):
        counts = {}
        for t in tasks:
            counts[t["state"]] = counts.get(t["state"], 0) + 1
        order = "RDSTtZXIP"
        states = sorted(counts, key=lambda s: order.index(s) if s in order else 99)
        self.out(f"== Tasks (drgn): {len(tasks)} tasks: "
                 + ", ".join(f"{s} {counts[s]}" for s in states))
        ct = self.crash["tasks"] if self.crash else None
        if ct is not None and ct != len(tasks):
            self.differ("task count", ct, len(tasks),
                        "crash 8.0.2 cannot walk 6.1's pid hash; the list below is drgn's")
        by_pid = {}
        for t in tasks:
            by_pid.setdefault(t["pid"], t)
        shown = set()

        def show(title, t):
            key = (t["pid"], t["comm"], t["cpu"])
            if key in shown:
                self.out(f"-- {title}: pid {t['pid']} {t['comm']} (stack above)")
                return
            shown.add(key)
            self.out(f"-- {title}: pid {t['pid']} ppid {t['ppid']} {t['comm']}, state {t['state']}, cpu {t['cpu']}")
            if "stack" in t:
                for i, fr in enumerate(t["stack"]):
                    self.out("   " + format_frame(i, fr))
            else:
                self.out(f"   no stack: {t.get('stack_error', 'not unwound')}")
        # the task a fire record names (the hung task of hung_task) first
        for n in sorted(named, key=lambda n: n["role"] != "hung"):
            t = by_pid.get(n["pid"])
            if t:
                show(f"{n['role']} task (fire record {n['role']}_pid={n['pid']})", t)
            else:
                self.out(f"-- {n['role']} task: pid {n['pid']} (fire record) is not in the dump's task list")
        if crashed:
            t = next((t for t in tasks if t["pid"] == crashed["pid"] and t["comm"] == crashed["comm"]), None)
            if t:
                show("the panicking task", t)
        for t in tasks:
            if t["on_cpu"]:
                show(f"running on cpu {t['cpu']}", t)
        for t in tasks:
            if t["state"] == "D":
                show("D state (uninterruptible)", t)
        self.out("-- every task")
        self.out(f"   {'PID':>6} {'PPID':>6} ST CPU  COMM")
        for t in tasks:
            mark = " *" if t["on_cpu"] else ""
            kt = "[" + t["comm"] + "]" if t["kthread"] else t["comm"]
            self.out(f"   {t['pid']:>6} {t['ppid']:>6} {t['state']:<2} {t['cpu']:>3}  {kt}{mark}")
        self.out("   (* running on that CPU; [name]: kernel thread)")
        self.out()

    def text_bpf(self, bpf):
        self.out(f"== BPF programs and maps (drgn): {len(bpf['programs'])} programs, {len(bpf['maps'])} maps")
        self.out(f"   {'ID':>4} {'TYPE':<14} {'NAME':<16} {'TAG':<16}  ATTACH (MAPS)")
        for p in bpf["programs"]:
            maps = ",".join(str(m) for m in p["maps"])
            self.out(f"   {p['id']:>4} {p['type']:<14} {p['name']:<16} {p['tag']:<16}  "
                     f"{p['attach'] or 'not visible to drgn'} (maps {maps or '-'})")
        self.out(f"   {'ID':>4} {'TYPE':<14} NAME")
        for m in bpf["maps"]:
            self.out(f"   {m['id']:>4} {m['type']:<14} {m['name']}")
        cp = self.crash["programs"] if self.crash else None
        if cp is not None:
            c = sorted((p["id"], p["type"], p["tag"]) for p in cp)
            d = sorted((p["id"], p["type"], p["tag"]) for p in bpf["programs"])
            if c == d:
                self.out(f"   crash's bpf lists the same {len(c)} programs (id, type, tag)")
            else:
                self.differ("BPF programs (id, type, tag)", c, d)
        self.out()

    def text_fire(self):
        self.out("== Fire record (drgn: the .data.fire map's value, decoded with the map's BTF), against crash's")
        if self.drgn_ok and self.d("fire") is None:
            self.out(f"   drgn's decode FAILED: {self.failed('fire')}")
        if not self.fire_entries:
            self.out("   no .data.fire map in the dump (no trigger armed)" if self.drgn_ok and self.d("fire") is not None
                     else "   no record from either decoder")
        for e in self.fire_entries:
            d = next((x for x in (self.d("fire") or []) if x["map_id"] == e["map_id"]), None)
            self.out(f"-- map {e['map_id']}, program {e['program'] or '?'}"
                     + (f"; {d['layout']}" if d else ""))
            if e["drgn"] is not None:
                if not e["record"]:
                    self.out(f"   matches={e['drgn'].get('matches')}, no fire record")
                for k, v in e["drgn"].items():
                    if k != "action_code" and e["record"]:
                        self.out(f"   {k}={v}")
            if e["agree"] is True:
                extra = e.get("only_one_side")
                self.out("   crash's fire-decode agrees, field by field"
                         + (f" (decoded by one side only: {', '.join(extra)})" if extra else ""))
            elif e["agree"] is False:
                for diff in e["differences"]:
                    self.differ(f"fire record map {e['map_id']} field {diff['field']}",
                                diff["crash"], diff["drgn"])
            elif e["crash"] is None:
                self.out("   crash's decode: not available")
            elif e["drgn"] is None:
                self.out("   drgn's decode: not available")
        self.out()

    def text_processes(self, procs):
        self.out("== Open files and memory of user processes (drgn: fd tables, mm counters)")
        self.out(f"   {'PID':>6} {'COMM':<16} {'FDS':>4} {'VM KiB':>8} {'VMAS':>5} {'RSS KiB anon/file/shm':>22}  EXE")
        for p in procs:
            mm = p["mm"]
            r = mm["rss_kib"]
            rss = f"{r['anonpages']}/{r['filepages']}/{r['shmempages']}"
            self.out(f"   {p['pid']:>6} {p['comm']:<16} {p['fds']:>4} {mm['total_vm_kib']:>8} "
                     f"{mm['map_count']:>5} {rss:>22}  {p['exe'] or '-'}")
            files = ", ".join(f"{f['fd']}:{f['path']}" for f in p["files"])
            more = f" (+{p['fds'] - len(p['files'])} more)" if p["fds"] > len(p["files"]) else ""
            if files:
                self.out(f"          files {files}{more}")
        self.out()

    def render(self):
        """The drgn part of report.txt (after crash's fire record and panic),
        and the panic for report.json."""
        self.fire_entries = self.fires()
        panic = self.panic() if (self.drgn_ok or self.crash) else None
        if self.crash is None and self.args.crash_error:
            self.out(f"== crash part: FAILED: {self.args.crash_error.strip()}")
            self.out("   The crash sections of this report are empty for that reason"
                     + ("; drgn's follow." if self.drgn_ok else "."))
            self.out()
        if self.drgn is not None and not self.drgn_ok:
            self.out(f"== drgn part: FAILED: {self.drgn.get('error')}")
            self.out("   Not in this report for that reason: every task and its state, the stacks of")
            self.out("   D-state and running tasks, BPF objects by drgn, the fire record cross-check,")
            self.out("   open files and memory." + (" The crash part follows." if self.crash else ""))
            self.out()
        if panic is not None:
            self.out(f"== Cause: {panic['cause']} ({panic['cause_from']})")
            if self.crash is None:
                self.out(f"   panic message (drgn, the dump's log): {panic['message'] or 'none (nothing called panic())'}")
                t = panic["task"]
                self.out("   panicking task (drgn): " + (f"pid {t['pid']} comm {t['comm']} cpu {t['cpu']}" if t else
                                                          f"not read: {self.failed('crashed')}"))
            for d in self.disagree:
                if d["what"] in ("panic message", "panicking task", "kernel release") or d["what"].startswith("cause"):
                    self.out(self.line_of(d))
            self.out()
        if not self.drgn_ok:
            if self.fire_entries:
                self.text_fire()
            return panic
        named = self.d("named_tasks") or []
        for name, title in (("tasks", "Tasks"), ("bpf", "BPF programs and maps")):
            if self.d(name) is None:
                self.out(f"== {title} (drgn): FAILED: {self.failed(name)}")
                self.out()
            elif name == "tasks":
                self.text_tasks(self.d("tasks"), named, self.d("crashed"))
            else:
                self.text_bpf(self.d("bpf"))
        self.text_fire()
        if self.d("processes") is None:
            self.out(f"== Open files and memory (drgn): FAILED: {self.failed('processes')}")
            self.out()
        else:
            self.text_processes(self.d("processes"))
        self.out("== Not shown by drgn, and why")
        for n in self.d("not_shown") or []:
            self.out(f"   - {n}")
        for e in self.d("errors") or []:
            self.out(f"   - section failed in drgn: {e}")
        self.out()
        return panic

    @staticmethod
    def line_of(d):
        if d["crash"] is None and (d["note"] or "").startswith("run.meta"):
            return f"   DISAGREE {d['what']}: {d['note']}, the dump says {d['drgn']!r}"
        return (f"   DISAGREE {d['what']}: crash says {d['crash']!r}, drgn says {d['drgn']!r}"
                + (f" ({d['note']})" if d["note"] else ""))

    def json(self, panic, started_ms):
        m = self.meta
        tasks = self.d("tasks")
        timings = {k: number(v) for k, v in m.items() if re.fullmatch(r"[a-z_]+_s", k) and number(v) is not None}
        a = self.args
        if a.crash_s is not None:
            timings["crash_s"] = a.crash_s
        if a.drgn_s is not None:
            timings["drgn_s"] = a.drgn_s
        if a.first_look_s is not None:
            timings["first_look_s"] = a.first_look_s
        if started_ms is not None:
            timings["report_s"] = round(time.time() - started_ms / 1000, 3)
        fire = self.fire_record
        fire_agree = [e["agree"] for e in self.fire_entries if e["agree"] is not None]
        vmcore = os.path.join(a.run, "vmcore")
        by_state = None
        if tasks is not None:
            by_state = {}
            for t in tasks:
                by_state[t["state"]] = by_state.get(t["state"], 0) + 1
        return {
            "schema_version": SCHEMA_VERSION,
            "run": {"id": m.get("run") or os.path.basename(os.path.normpath(a.run)),
                    "dir": os.path.abspath(a.run),
                    "status": m.get("status", "unknown"),
                    "reason": m.get("reason", ""),
                    "dump": m.get("dump")},
            "trigger": {"name": m.get("trigger"), "args": m.get("trigger_args", ""),
                        "arguments": trigger_arguments(m.get("trigger_args"))},
            "kernel": {"release": self.d("release") or (self.crash or {}).get("release"),
                       "version": (self.crash or {}).get("version")},
            "vmcore": ({"path": vmcore, "bytes": os.path.getsize(vmcore)}
                       if os.path.exists(vmcore) else None),
            "panic": panic,
            "fire": {"record": fire is not None, "fields": fire,
                     "source": (None if fire is None else
                                "drgn" if any(e["drgn"] is fire for e in self.fire_entries) else "crash"),
                     "crash_drgn_agree": (all(fire_agree) if fire_agree else None),
                     "maps": self.fire_entries},
            "tasks": (None if tasks is None else
                      {"total": len(tasks), "by_state": by_state,
                       "crash_count": (self.crash or {}).get("tasks"),
                       "named": self.d("named_tasks") or [], "list": tasks}),
            "bpf": self.d("bpf"),
            "processes": self.d("processes"),
            "analyzers": {
                "crash": {"ran": bool(a.crash_out or a.crash_error),
                          "ok": self.crash is not None,
                          "error": a.crash_error, "seconds": a.crash_s},
                "drgn": {"ran": self.drgn is not None, "ok": self.drgn_ok,
                         "error": (self.drgn or {}).get("error"),
                         "version": (self.drgn or {}).get("drgn_version"),
                         "section_errors": (self.drgn or {}).get("errors", []),
                         "seconds": a.drgn_s},
            },
            "disagreements": self.disagree,
            "not_shown": self.d("not_shown") or [],
            "timings": timings,
            "meta": m,
        }


def write(path, content):
    """Write a file whole: to PATH.tmp, then renamed, so that a reader never
    sees half of it. A path that is not a regular file (/dev/stdout, a
    FIFO) is written to directly: renaming over it would replace it."""
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)
            return
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(content)
        os.replace(tmp, path)
    except OSError as e:
        die(f"{path}: {e.strerror}")


def refresh(run):
    """The run facts of report.json again from run.meta (see --refresh)."""
    path = os.path.join(run, "report.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: {getattr(e, 'strerror', None) or e}")
    m = read_meta(run)
    doc["run"].update(status=m.get("status", "unknown"), reason=m.get("reason", ""),
                      dump=m.get("dump"))
    timings = doc.get("timings") or {}
    timings.update({k: number(v) for k, v in m.items()
                    if re.fullmatch(r"[a-z_]+_s", k) and number(v) is not None})
    doc["timings"] = timings
    doc["meta"] = m
    write(path, json.dumps(doc, indent=1) + "\n")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True)
    ap.add_argument("--drgn")
    ap.add_argument("--crash-out")
    ap.add_argument("--crash-error")
    ap.add_argument("--drgn-error")
    ap.add_argument("--crash-fire", action="append", default=[])
    ap.add_argument("--crash-s", type=float)
    ap.add_argument("--drgn-s", type=float)
    ap.add_argument("--first-look-s", type=float)
    ap.add_argument("--started-ms", type=int)
    ap.add_argument("--text")
    ap.add_argument("--json")
    ap.add_argument("--refresh", action="store_true")
    a = ap.parse_args()
    if a.refresh:
        return refresh(a.run)
    r = Report(a)
    r.load()
    panic = r.render()
    if a.text:
        write(a.text, "\n".join(r.lines) + ("\n" if r.lines else ""))
    if a.json:
        write(a.json, json.dumps(r.json(panic, a.started_ms), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
