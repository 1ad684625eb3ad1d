# SPDX-License-Identifier: GPL-2.0
"""The report of a run (report.py is its command line): crash and drgn read
the run's vmcore in parallel, and their facts become RUN/report.txt and
RUN/report.json (schema: report.schema.json).

crash: one process answers every question (it takes seconds to read the
vmlinux's debug info), its commands written to its stdin in batches, each
ending with an "!echo" marker line its output must reach within
CRASH_TIMEOUT seconds. drgn: drgn-part.py as a subprocess, its facts as
JSON. drgn has its answer long before crash has loaded: the first look
(first_look) is printed then, the full report, checked against crash,
follows.

Where crash and drgn disagree (kernel release, panic message, panicking
task, fire record field by field, BPF programs, task count), and where the
run's record and the dump disagree on the cause, both values are kept, the
text says DISAGREE, and report.json lists it under "disagreements":
nothing is picked silently.

Stdlib only (drgn runs in its own process): the report starts quickly.
"""

import json
import os
import queue
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import bpk_analyzers
import bpk_protocol
import bpk_record
from bpk_text import format_frame

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
PROG = "report.py"
SCHEMA_VERSION = 2
CRASH_TIMEOUT = 120  # seconds per batch of crash commands
DRGN_TIMEOUT = 120  # seconds for the whole drgn part, like crash's batch
FIRST_LOOK_FRAMES = 8  # of the panicking task's stack: enough to see the trigger's hook

# crash's batch: (section name, command). The value offset inside struct
# bpf_array locates each .data.fire map's value (px): an offset that is not
# there is not taken as 0, nothing is read then.
CRASH_COMMANDS = [
    ("sys", "sys"), ("bt", "bt"), ("log", "log"), ("bpf", "bpf"),
    ("maps", "bpf -M"), ("progs", "bpf -P"), ("kmem", "kmem -i"),
    ("valoff", "px &((struct bpf_array *)0)->value"),
    ("vm", "vm"), ("ps", "ps"), ("cpus", "bt -a"),
]
# crash's bt -a: a block a CPU, each from its task's line
BT_TASK_RE = re.compile(r'^PID:\s*(\d+)\s+TASK:\s*([0-9a-f]+)\s+CPU:\s*(\d+)\s+COMMAND:\s*"(.*)"\s*$')
BT_FRAME_RE = re.compile(r"^\s*#(\d+)\s+\[[0-9a-f]+\]\s+(\S+)")
BT_XRIP_RE = re.compile(r"^\s*\[exception RIP: ([^\]]+)\]")
BT_RFLAGS_RE = re.compile(r"RFLAGS:\s*([0-9a-f]+)")
X86_EFLAGS_IF = 0x200
# the causes whose report shows every CPU's stack
CPU_CAUSES = ("nmi", "hard_lockup", "stall", "soft_lockup", "rcu_stall", "hung_task")
# crash's vm: "      VMA           START       END     FLAGS FILE" then one
# line a VMA (address, start, end, flags in hex, the file if any)
VM_LINE_RE = re.compile(r"^\s*([0-9a-f]{8,})\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s*(\S*)\s*$")
# crash's ps: one line a task, '>' marking the ones on a CPU
PS_LINE_RE = re.compile(r"^[> ]\s*\d+\s+\d+\s+\d+\s+[0-9a-f]{8,}\s+[A-Z]{2}\s")

# How report.txt words the run-level cause before its detail (a cause not
# here is shown with its meaning from run.schema.json).
RUN_CAUSE_TEXT = {
    "trigger": "the trigger fired",
    "oops": "an oops, not a trigger",
    "warning": "a WARNING (panic_on_warn), not a trigger",
    "sysrq": "a sysrq crash, not a trigger",
    "nmi": "an NMI panic, not a trigger",
    "soft_lockup": "the soft-lockup detector's panic (--panic-on softlockup), not a trigger",
    "hung_task": "the hung-task detector's panic (--panic-on hung), not a trigger",
    "rcu_stall": "an RCU stall's panic (--panic-on rcu), not a trigger",
    "stall": None,  # its detail says it: the host's NMI after no progress
    "hard_lockup": None,  # only the dump says it
    "panic": "a kernel panic, not a trigger",
    "kexec": None,  # its detail says it all: the capture kernel booted with no panic line
    "none": "nothing brought the kernel down",
    "unknown": "the console and the guest's states do not say why",
}
# the dying kernel's own report in crash's log starts at the first line
# of one of these kinds (lib/console-patterns)
TRACE_KINDS = ("panic", "oops", "warning", "sysrq", "nmi")
TRACE_LINES = 60


class ReportError(Exception):
    """A report that cannot be made at all; str() is the one-line reason."""


class Interrupted(Exception):
    """A signal stopped the report: crash and drgn are stopped with it."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _interrupted(signum, _frame):
    raise Interrupted(signum)


def die(msg, code=1):
    bpk_protocol.say(f"{PROG}: error: {msg}")
    sys.exit(code)


def seconds(ms):
    return f"{ms // 1000}.{ms % 1000:03d}"


def now_ms():
    return int(time.monotonic() * 1000)


def said(lines):
    """What a program printed, on one line: its first three non-blank
    lines, runs of spaces and line ends made one space."""
    text = "\n".join([ln for ln in lines if ln.strip()][:3])
    return re.sub(r"[ \n]+", " ", text).strip()


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
        raise ReportError(f"{path}: {e.strerror}") from None


def trigger_arguments(args):
    """'syscall=openat errno=ENOENT dry_run' -> {"syscall": "openat",
    "errno": "ENOENT", "dry_run": True}"""
    out = {}
    for word in (args or "").split():
        k, sep, v = word.partition("=")
        out[k] = v if sep else True
    return out


def record_timings(rec):
    """The run's own timings (run.json timings.*), the ones measured."""
    return {k: v for k, v in (rec.get("timings") or {}).items() if isinstance(v, (int, float))}


# --- crash


class Crash:
    """One crash process on a vmcore, asked in batches."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.lines = queue.Queue()
        self.batch = 0
        self.gone = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        # a thread reads crash's output as it comes: crash never waits on a
        # full pipe while this script waits for drgn
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", errors="surrogateescape").rstrip("\n"))
        self.lines.put(None)

    def send(self, commands):
        """Write a batch; returns its marker, or None when crash is gone."""
        self.batch += 1
        marker = f"{MARK} end of batch {self.batch}"
        text = "".join(c + "\n" for c in commands) + f'!echo "{marker}"\n'
        try:
            self.proc.stdin.write(text.encode())
            self.proc.stdin.flush()
        except OSError:  # BrokenPipeError: it exited (could not open the dump)
            self.gone = True
            return None
        return marker

    def answer(self, marker, timeout=CRASH_TIMEOUT):
        """(complete, lines): crash's output up to MARKER; complete is False
        when crash exited or TIMEOUT seconds passed first. After an exit,
        what it said before exiting is in the lines: it is the reason."""
        out = []
        deadline = time.monotonic() + (timeout if marker else 5)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False, out
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return False, out
            if line is None:
                self.gone = True
                self.lines.put(None)  # every later answer ends here too
                return False, out
            if marker and line == marker:
                return True, out
            out.append(line)

    def ask(self, commands, timeout=CRASH_TIMEOUT):
        return self.answer(self.send(commands), timeout)

    def quit(self):
        if not self.gone:
            try:
                self.proc.stdin.write(b"q\n")
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# What starts each section of crash's answer, and ends a batch: crash
# prints the dump's own text (task names, file names, log lines), which a
# guest chooses, and a name with a newline could forge a plain marker.
# This one is drawn anew by every report and never seen by the guest.
MARK = "@@@" + secrets.token_hex(12)


def crash_split(lines):
    """{section name: [lines]} of a batch whose commands each follow an
    '!echo "MARK NAME"' line."""
    sections, name = {}, None
    for line in lines:
        if line.startswith(MARK + " "):
            name = line[len(MARK) + 1:]
            sections[name] = []
        elif name is not None:
            sections[name].append(line)
    return sections


def crash_facts(sections):
    """The facts the report compares with drgn's, out of crash's sections."""
    sys_ = "\n".join(sections.get("sys", []))

    def sysfield(name):
        m = re.search(rf"^\s*{name}: (.*)$", sys_, re.M)
        return m.group(1).strip() if m else None
    facts = {"release": sysfield("RELEASE"), "version": sysfield("VERSION"),
             "tasks": None, "panic": None, "task": None, "programs": None,
             "log": sections.get("log", [])}
    if sysfield("TASKS") and sysfield("TASKS").isdigit():
        facts["tasks"] = int(sysfield("TASKS"))
    panic = sysfield("PANIC")
    if panic is not None:
        m = re.match(r'^"(.*)"', panic)
        facts["panic"] = m.group(1) if m else panic
    for line in sections.get("bt", []):
        m = re.match(r'^PID: (\d+)\s+TASK: (\S+)\s+CPU: (\d+)\s+COMMAND: "(.*)"', line)
        if m:
            facts["task"] = {"pid": int(m.group(1)), "cpu": int(m.group(3)), "comm": m.group(4)}
            facts["task_addr"] = m.group(2)
            break
    progs = []
    for line in sections.get("bpf", []):
        # " ID      BPF_PROG       BPF_PROG_AUX   BPF_PROG_TYPE  TAG  USED_MAPS"
        m = re.match(r"^\s*(\d+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([A-Z_]+)\s+([0-9a-f]{16})\b", line)
        if m:
            progs.append({"id": int(m.group(1)), "type": m.group(2).lower(), "tag": m.group(3)})
    if any(line.strip().startswith("ID") for line in sections.get("bpf", [])):
        facts["programs"] = progs
    ps = [ln for ln in sections.get("ps", []) if PS_LINE_RE.match(ln)]
    facts["ps_tasks"] = len(ps) if ps else None
    facts["vmas"] = crash_vmas(sections.get("vm", []))
    return facts


def crash_vmas(lines):
    """crash vm's VMAs as [{"start", "end", "flags", "file"}]; [] when the
    task has no mm (a kernel thread), None when vm listed nothing it could
    read (an older crash on a maple tree)."""
    if not any(ln.split()[:2] == ["VMA", "START"] for ln in lines):
        if any(ln.startswith("PID:") for ln in lines) and not any("vm:" in ln or "invalid" in ln for ln in lines):
            return []
        return None
    out = []
    for ln in lines:
        m = VM_LINE_RE.match(ln)
        if m:
            out.append({"start": int(m.group(2), 16), "end": int(m.group(3), 16),
                        "flags": int(m.group(4), 16), "file": m.group(5) or None})
    return out


MAP_LINE_RE = re.compile(r"^ *([0-9]+) +([0-9a-f]+) +[A-Z_]+")
PROG_LINE_RE = re.compile(r"^ *[0-9]+ +[0-9a-f]+ +[0-9a-f]+ +[A-Z_]+")


def fire_maps(maps_lines):
    """[(map id, map address)] of the .data.fire maps crash's bpf -M lists,
    and the number of maps it lists."""
    out, n, cur = [], 0, None
    for line in maps_lines:
        m = MAP_LINE_RE.match(line)
        if m:
            n += 1
            cur = (int(m.group(1)), int(m.group(2), 16))
        elif 'NAME: ".data.fire"' in line and cur:
            out.append(cur)
    return out, n


def prog_of_map(progs_lines, map_id):
    """The name of the first program whose USED_MAPS (crash bpf -P) lists
    MAP_ID, or None."""
    hit = False
    for line in progs_lines:
        if PROG_LINE_RE.match(line):
            hit = str(map_id) in line.split()[-1].split(",")
        elif hit:
            m = re.search(r'NAME: "([^"]*)"', line)
            if m:
                return m.group(1)
    return None


def crash_fire(text):
    """fire-decode's key=value lines, in the names and forms drgn's decode
    is compared in: (holds a record, fields)."""
    rec = {}
    for line in text.splitlines():
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


class CrashPart:
    """crash's side of the report: the batch, the fire records read with
    rd and decoded by fire-decode."""

    def __init__(self, run, vmcore, vmlinux, fire_decode, analyzers):
        self.run, self.vmcore, self.vmlinux = run, vmcore, vmlinux
        self.analyzers = analyzers
        self.fire_decode = fire_decode
        self.retried_from = None  # the toolbox crash's error when this one replaced it
        self.error = None  # crash could not open the dump
        self.said = ""
        self.lines = []  # the first batch's output
        self.sections = {}
        self.maps = []  # [(id, address)] of the .data.fire maps
        self.nmaps = 0
        self.fire_problem = None
        self.fires = {}  # map id -> {"text", "rc", "program"}
        self.ms = 0
        self.crash = None
        self.t0 = None

    def start(self):
        self.t0 = now_ms()
        quick = bpk_analyzers.crash_vmlinux(self.vmlinux)
        self.crash = Crash(self.analyzers.argv(["crash", "-s", "--kaslr=auto", quick, self.vmcore],
                                               ro=[self.run, quick]))
        # the batch goes in now: crash reads it once loaded
        self.marker = self.crash.send([c for name, cmd in CRASH_COMMANDS
                                       for c in (f'!echo "{MARK} {name}"', cmd)])

    def finish(self):
        """Read the batch, then the fire records; quit crash."""
        ok, self.lines = self.crash.answer(self.marker)
        if not ok:
            timed_out = not self.crash.gone
            self.said = said(self.lines) or (f"no answer within {CRASH_TIMEOUT} s" if timed_out
                                             else "it exited without a word")
            self.error = f"crash could not open {self.vmcore} with {self.vmlinux}: {self.said}"
        self.sections = crash_split(self.lines)
        self.maps, self.nmaps = fire_maps(self.sections.get("maps", []))
        valoff = re.findall(r"0x[0-9a-f]+", "\n".join(self.sections.get("valoff", [])))
        pass2 = []
        if self.error:
            self.fire_problem = self.error
        elif self.maps and not valoff:
            self.fire_problem = (f"px printed no offset of struct bpf_array.value "
                                 f"({said(self.sections.get('valoff', []))}): nothing read")
        elif self.maps:
            size = self._fire_size()
            if size is not None:
                off = int(valoff[-1], 16)
                for mid, addr in self.maps:
                    pass2 += [f'!echo "{MARK} fire {mid}"', f"rd -8 0x{addr + off:x} {size}"]
        if pass2:
            ok, out = self.crash.ask(pass2)
            if not ok:
                self.fire_problem = f"crash stopped answering while reading the record: {said(out)}"
            else:
                hexes = crash_split(out)
                for mid, _ in self.maps:
                    text = "\n".join(ln for ln in hexes.get(f"fire {mid}", [])
                                     if re.match(r"^[0-9a-f]+:  ", ln)) + "\n"
                    self.fires[mid] = self._decode(text)
                    self.fires[mid]["program"] = prog_of_map(self.sections.get("progs", []), mid)
        self.crash.quit()
        self.ms = now_ms() - self.t0

    def _fire_size(self):
        r = subprocess.run([self.fire_decode, "--size"], capture_output=True, text=True, check=False)
        if r.returncode != 0 or not r.stdout.strip().isdigit():
            self.fire_problem = f"{self.fire_decode} --size: {said(r.stderr.splitlines()) or 'no size'}"
            return None
        return int(r.stdout)

    def _decode(self, hexdump):
        r = subprocess.run([self.fire_decode], input=hexdump, capture_output=True, text=True, check=False)
        return {"text": (r.stdout + r.stderr).rstrip("\n"), "rc": r.returncode}

    def kill(self):
        if self.crash:
            self.crash.kill()


# --- drgn


class DrgnPart:
    """drgn-part.py in its own process: its facts, or why there are none."""

    def __init__(self, run, vmcore, vmlinux, work, analyzers):
        self.out = os.path.join(work, "drgn.json")
        self.err = os.path.join(work, "drgn.err")
        self.t0 = now_ms()
        kernel = bpk_analyzers.kernel_paths(vmlinux)
        # the facts come back on its stdout, a file opened out here: the
        # analyzer, fed a hostile vmcore, gets no writable path of ours
        argv = analyzers.argv([analyzers.python(), os.path.join(HERE, "drgn-part.py"), "--vmcore", vmcore,
                               "--vmlinux", kernel[0], "--out", "-"],
                              ro=[run] + kernel + bpk_analyzers.OWN_PATHS)
        with open(self.err, "w") as err, open(self.out, "w") as out:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        self.facts = None
        self.error = None
        self.ms = 0

    def wait(self):
        try:
            rc = self.proc.wait(timeout=max(0, DRGN_TIMEOUT - (now_ms() - self.t0) / 1000))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = None
        self.ms = now_ms() - self.t0
        try:
            with open(self.err, encoding="utf-8", errors="replace") as f:
                errlines = f.read().splitlines()
        except OSError:
            errlines = []
        for line in errlines:
            bpk_protocol.say(f"drgn part: {line}")
        try:
            with open(self.out, encoding="utf-8") as f:
                self.facts = json.load(f)
        except (OSError, ValueError):
            self.facts = None
        if self.facts is None:  # killed, or died before writing its facts
            if rc is None:
                self.error = f"drgn-part.py did not finish within {DRGN_TIMEOUT} s"
            else:
                last = errlines[-1] if errlines else ""
                self.error = f"drgn-part.py wrote no facts (exit {rc}): {last}"
            self.facts = {"ok": False, "error": self.error}

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# --- the first look


def first_look(rec, d, drgn_s):
    """The first look's lines: what brought the kernel down, from the run's
    record and drgn's facts alone. Everything here is in the full report
    too, checked against crash there; this is only earlier."""
    out = [f"== First look (drgn, {drgn_s:.2f} s; the full report, checked against crash, follows)"]
    fired = [e for e in (d.get("fire") or []) if (e.get("state") or {}).get("fire") and e.get("record")]
    ev = d.get("panic")
    fire_fields = next((e["fields"] for e in fired), None)
    dump, why = bpk_protocol.dump_cause(fire_fields, ev)
    # what the console said is the guest's claim (root in the guest can
    # write a record of the kernel's facility straight to the console)
    # until the dump says the same
    run_cause = bpk_record.field(rec, "cause.run", "?")
    agree = causes_agree(run_cause, dump)
    said = ("the console's, confirmed by the dump" if agree
            else f"the console's claim; the dump says {dump}" if agree is False
            else "the console could not tell")
    out.append(f"   cause:  {run_cause}: {bpk_record.field(rec, 'cause.detail', '')} ({said})")
    out.append(f"   dump:   {dump}: {why}")
    for e in fired:
        r = e["state"]["fire"]
        fields = " ".join(f"{k}={r[k]}" for k in ("trigger", "pid", "comm", "cpu", "hits", "detail")
                          if r.get(k) not in (None, ""))
        out.append(f"   fire:   {fields}")
    if not fired:
        out.append("   fire:   no fire record in the dump" if d.get("fire") is not None
                   else "   fire:   drgn could not decode it (see the full report)")
    panic = (ev or {}).get("message") or bpk_record.field(rec, "console.panic_message") or "none printed"
    out.append(f"   panic:  {panic}")
    crashed = d.get("crashed")
    tasks = d.get("tasks") or []
    if crashed:
        out.append(f"   task:   pid {crashed['pid']} {crashed['comm']} on cpu {crashed['cpu']}")
        t = next((t for t in tasks if t["pid"] == crashed["pid"] and t["comm"] == crashed["comm"]), None)
        for i, fr in enumerate((t or {}).get("stack", [])[:FIRST_LOOK_FRAMES]):
            out.append("           " + format_frame(i, fr))
    counts = {}
    for t in tasks:
        counts[t["state"]] = counts.get(t["state"], 0) + 1
    out.append(f"   tasks:  {len(tasks)}: " + ", ".join(f"{s} {n}" for s, n in sorted(counts.items())))
    return out


# --- the two put together


class Report:
    """report.txt and report.json of one run, from the run's record and
    whatever crash and drgn found (either may be None: not run)."""

    def __init__(self, run, rec, crash=None, drgn=None, analyzers=None):
        self.run = run
        self.rec = rec
        self.analyzers = analyzers  # bpk_analyzers.Analyzers, None when none ran
        self.cp = crash  # CrashPart or None
        self.drgn = drgn.facts if drgn else None
        self.crash = (crash_facts(crash.sections) if crash and not crash.error else None)
        self.crash_fire = {}
        for mid, f in (crash.fires if crash else {}).items():
            if f["rc"] in (0, 3):
                self.crash_fire[mid] = crash_fire(f["text"])
        self.disagree = []
        self.graph = None  # RUN/waits.svg (or .dot) when written
        self.failed = []  # "section: why", in the order the text says them
        self.lines = []
        self.fire_entries = self.fires()
        self.panic = self.panic_facts() if (self.drgn_ok or self.crash) else None
        self.cause = self.cause_facts()

    # -- helpers

    @property
    def drgn_ok(self):
        return bool(self.drgn and self.drgn.get("ok"))

    def d(self, key):
        """A drgn fact, None when drgn or that section failed."""
        return self.drgn.get(key) if self.drgn_ok else None

    def drgn_failed(self, section):
        """drgn's error for one of its sections, or None."""
        for e in (self.drgn or {}).get("errors") or []:
            if e.startswith(section + ": "):
                return e[len(section) + 2:]
        return None

    def out(self, line=""):
        self.lines.append(line)

    def fail(self, section, why):
        """A section that could not be made: its FAILED line in the text,
        and in the error report.py exits with."""
        self.failed.append(f"{section}: {why}")
        self.out(f"   FAILED: {section}: {why}")

    def note_differ(self, what, crash, drgn, note=None):
        d = {"what": what, "crash": crash, "drgn": drgn, "note": note}
        self.disagree.append(d)
        return line_of(d)

    def field(self, path, default=None):
        return bpk_record.field(self.rec, path, default)

    # -- facts

    def fires(self):
        """Per .data.fire map: drgn's decode, crash's, compared field by
        field."""
        out = []
        drgn_maps = {e["map_id"]: e for e in (self.d("fire") or [])}
        for mid in sorted(set(drgn_maps) | set(self.crash_fire)):
            d = drgn_maps.get(mid)
            c = self.crash_fire.get(mid)
            entry = {"map_id": mid, "program": d["program"] if d else (self.cp.fires[mid].get("program")
                                                                      if self.cp and mid in self.cp.fires else None),
                     "record": (d["record"] if d else c[0] if c else False),
                     "drgn": d["fields"] if d else None,
                     "crash": c[1] if c else None, "agree": None, "differences": []}
            if d and c:
                if d["record"] != c[0]:
                    entry["differences"].append({"field": "record", "crash": c[0], "drgn": d["record"]})
                for k in sorted(set(d["fields"]) | set(c[1])):
                    if k == "action_code":
                        continue
                    if k not in c[1] or k not in d["fields"]:
                        # a field only one decoder knows (appended to
                        # trigger_state, not yet printed by fire-decode)
                        entry.setdefault("only_one_side", []).append(k)
                        continue
                    cv, dv = c[1][k], d["fields"][k]
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

    def evidence(self):
        """What the dump's log says (bpk_protocol.evidence): drgn's, else
        crash's log; None when neither could read it."""
        if self.d("panic") is not None:
            return self.d("panic")
        if self.crash and self.crash["log"]:
            return bpk_protocol.evidence(bpk_protocol.strip_stamp(ln) for ln in self.crash["log"])
        return None

    def panic_facts(self):
        """The panic: message, oops lines, task, from both analyzers; their
        differences go to self.disagree."""
        dp = self.d("panic")
        cp = self.crash["panic"] if self.crash else None
        message = dp.get("message") if dp is not None else (cp or None)
        if dp is not None and self.crash:
            # crash's PANIC is "" when nothing called panic() (crash_kexec)
            # and the oops line itself when an oops led to the panic
            c = cp or None
            if c != message and not (c and message is None and any(c in ln for ln in dp.get("oops_lines", []))):
                # crash's PANIC is a search of the whole log; drgn's is the
                # kernel's own record: a task's /dev/kmsg line can be crash's
                self.note_differ("panic message", cp, message,
                                 "crash's PANIC comes from a search of the whole log, a task's /dev/kmsg "
                                 "lines included; drgn's from the kernel's own records (LOG_KERN) alone")
        # the kernel each analyzer read the dump as (drgn: UTS_RELEASE from
        # the dump's memory; crash: sys RELEASE)
        dr, cr = self.d("release"), (self.crash or {}).get("release")
        if dr and cr and dr != cr:
            self.note_differ("kernel release", cr, dr)
        dc, cc = self.d("crashed"), self.crash["task"] if self.crash else None
        if dc and cc and (dc["pid"], dc["comm"]) != (cc["pid"], cc["comm"]):
            self.note_differ("panicking task", cc, dc)
        if dp is not None:
            oops_lines = dp.get("oops_lines")
        else:
            oops_lines = (self.evidence() or {}).get("oops_lines")
        return {"message": message, "oops": oops_lines or None, "task": dc or cc}

    def cpus(self):
        """Every CPU's stack from crash's bt -a, None without crash."""
        if not self.crash:
            return None
        return cpu_stacks(self.cp.sections.get("cpus", []))

    def cause_facts(self):
        """The run-level cause (run.json) and the dump-level one (the fire
        record, the dump's log, the panic message), compared: any
        difference is a disagreement."""
        run = self.field("cause.run")
        out = {"run": run, "run_detail": self.field("cause.detail", ""),
               "dump": None, "dump_from": None, "agree": None,
               "after": self.field("cause.after")}
        if self.drgn_ok or self.crash:
            out["dump"], out["dump_from"] = bpk_protocol.dump_cause(self.fire_record, self.evidence())
            if self.field("dump.path") == "live" and out["dump"] == "unknown":
                # a running guest: nothing brought it down, and the dump
                # says so by holding no panic, fire or fatal line
                out["dump"], out["dump_from"] = "none", "a dump of the live guest: " + out["dump_from"]
            if out["dump"] == "nmi" and self.field("qemu.nmi_injected_ms") is not None:
                out["dump"], out["dump_from"] = stall_cause(self.cpus(), out["dump_from"])
            out["agree"] = causes_agree(run, out["dump"])
            if out["agree"] is False:
                self.disagree.append(cause_disagreement(run, out["dump"], out["dump_from"]))
        return out

    # -- report.txt

    def crash_version(self):
        a = self.cp.analyzers if self.cp else self.analyzers
        return (a.versions["crash"] if a else None) or "?"

    def header(self):
        f = self.field
        self.out("bpf-panic kdump report")
        self.out(f"run:       {f('id', '')}  ({self.run})")
        self.out(f"trigger:   {f('trigger.name', '')} {f('trigger.args', '')}")
        if f("trigger.prog"):
            self.out(f"program:   your own, kept in the run: {f('trigger.prog')}")
        opts = f("dump.makedumpfile_opts")
        self.out(f"status:    {f('status', '')}, vmcore {f('dump.vmcore_bytes', 0)} bytes"
                 + (f" (makedumpfile {opts})" if opts else ""))
        if f("reason"):
            self.out(f"reason:    {f('reason')}")
        if f("dump.path") == "host":
            self.out(f"dump:      from the host (QEMU's dump-guest-memory, not kdump): {f('dump.path_why', '')}")
        elif f("dump.path") == "nmi+kdump":
            self.out(f"dump:      kdump, after the host's NMI: {f('dump.path_why', '')}")
        elif f("dump.path") == "live":
            self.out(f"dump:      of the live guest, its run going on: {f('dump.path_why', '')}")
        if self.crash:
            self.out(f"kernel:    {self.crash['release'] or ''} {self.crash['version'] or ''}")
        else:
            self.out(f"kernel:    {self.d('release') or 'not read'} (drgn; crash's sys not available)")
        if self.analyzers:
            self.out(f"analyzers: {self.analyzers.describe()}")
        if self.cp and self.cp.retried_from:
            self.out(f"           crash: {self.cp.analyzers.whose()} {self.crash_version()}, since {self.cp.retried_from}")
        self.out()

    def text_cause(self):
        c = self.cause
        self.out("== Cause (the run's: the console and the guest's states, from run.json;"
                 " the dump's: the vmcore)")
        words = (RUN_CAUSE_TEXT[c["run"]] if c["run"] in RUN_CAUSE_TEXT
                 else bpk_record.CAUSES.get(c["run"], "not a cause bpk knows"))
        self.out(f"   run:   {c['run']}")
        self.out("      " + ": ".join(w for w in (words, c["run_detail"]) if w))
        if c["dump"] is None:
            self.out("   dump:  not read: neither crash nor drgn could open the vmcore")
        else:
            self.out(f"   dump:  {c['dump']}")
            self.out(f"      {c['dump_from']}")
            if c["agree"] and c["run"] != c["dump"]:
                self.out(f"   the run and the dump agree: the run's {c['run']} is, in the dump, {c['dump']}")
            elif c["agree"]:
                self.out(f"   the run and the dump agree: {c['run']}")
            elif c["agree"] is None:
                self.out(f"   the console could not tell; the dump names the cause: {c['dump']}")
            else:
                self.out(line_of(self.disagree_of("cause")))
        if c["after"]:
            # the run's own account (dump.path_why) when the host's dump
            # worked; the vocabulary's when there is none
            self.out(f"   after: {c['after']}")
            self.out("      " + (self.field("dump.path_why") or bpk_record.CAUSES[c["after"]]))
        self.out()

    def disagree_of(self, what):
        return next(d for d in self.disagree if d["what"] == what)

    def text_fire(self):
        cp = self.cp
        trigger = self.field("trigger.name")
        self.out("== Fire record (read from the vmcore: BPF map .data.fire of the trigger program;"
                 " crash's fire-decode, checked field by field against drgn's decode by the map's BTF)")
        if cp is not None and cp.fire_problem:
            self.fail("fire record", cp.fire_problem)
        elif cp is not None and not cp.maps:
            if trigger == "none":
                self.out("   none: no trigger was armed (trigger none)")
            elif cp.nmaps == 0:
                self.fail("fire record", "bpf -M listed no maps")
            else:
                self.fail("fire record", f"no .data.fire map among the {cp.nmaps} maps bpf -M listed")
        if self.drgn_ok and self.d("fire") is None:
            self.out(f"   drgn's decode FAILED: {self.drgn_failed('fire')}")
        drgn_maps = {e["map_id"]: e for e in (self.d("fire") or [])}
        crash_maps = cp.fires if cp else {}
        found = 0
        for mid in sorted(set(drgn_maps) | set(crash_maps)):
            d, c = drgn_maps.get(mid), crash_maps.get(mid)
            entry = next((e for e in self.fire_entries if e["map_id"] == mid), None)
            # drgn names every program using the map, crash's bpf -P the first
            program = (d or {}).get("program") or (c or {}).get("program") or "?"
            self.out(f"-- map {mid}, program {program}" + (f"; drgn: {d['layout']}" if d else ""))
            if c is not None:
                for line in c["text"].splitlines():
                    self.out(f"   {line}")
                if c["rc"] == 0:
                    found += 1
                elif c["rc"] != 3:
                    first = c["text"].splitlines()[0] if c["text"] else f"exit {c['rc']}"
                    self.fail("fire record", f"map {mid}: fire-decode: {first}")
            elif d is not None:
                # crash could not read it: drgn's decode is the record here
                if d["record"]:
                    found += 1
                    for k, v in d["fields"].items():
                        if k != "action_code":
                            self.out(f"   {k}={v}")
                else:
                    self.out(f"   matches={d['fields'].get('matches')}, no fire record (drgn)")
            if entry is None:
                self.out("   drgn's decode: not available; crash's: fire-decode could not read it")
            elif entry["agree"] is True:
                extra = entry.get("only_one_side")
                self.out("   drgn's decode agrees, field by field"
                         + (f" (decoded by one side only: {', '.join(extra)})" if extra else ""))
            elif entry["agree"] is False:
                for diff in entry["differences"]:
                    self.out(self.note_differ(f"fire record map {mid} field {diff['field']}",
                                              diff["crash"], diff["drgn"]))
            elif entry["crash"] is None:
                self.out("   crash's decode: not available (drgn's above)")
            elif entry["drgn"] is None:
                why = "drgn failed" if not self.drgn_ok else "drgn found no such map"
                self.out(f"   drgn's decode: not available ({why})")
        if (drgn_maps or crash_maps) and found == 0 and not any(e["record"] for e in self.fire_entries):
            self.out("   no fire record in the dump: the trigger was armed but did not fire")
        for m in self.d("own_maps") or []:
            total = m["entries_total"]
            self.out(f"-- the program's own map {m['map_id']} {m['name']} ({m['type']}, key {m['key_size']} B, "
                     f"value {m['value_size']} B): "
                     + (f"{total} of at most {m['max_entries']} entries" if total is not None else m["note"]))
            for e in m["entries"]:
                self.out(f"   key={e['key']} value={e['value']}")
            if total is not None and total > len(m["entries"]):
                self.out(f"   ... {total - len(m['entries'])} more (bpk drgn: fire_maps())")
            if total is not None and m["note"]:
                self.out(f"   ({m['note']})")
        self.out()

    def text_panic(self):
        cp = self.cp
        self.out("== Panic")
        if cp and cp.error:
            self.fail(f"crash could not open {cp.vmcore} with {cp.vmlinux}", cp.said)
            p = self.panic
            if p is not None:
                self.out(f"   panic message (drgn, the dump's log): {p['message'] or 'none (nothing called panic())'}")
                t = p["task"]
                self.out("   panicking task (drgn): " + (f"pid {t['pid']} comm {t['comm']} cpu {t['cpu']}" if t else
                                                       f"not read: {self.drgn_failed('crashed')}"))
        elif self.crash:
            panic = next((ln.strip() for ln in cp.sections.get("sys", []) if re.match(r"^ *PANIC:", ln)), None)
            if panic:
                self.out(panic)
            else:
                self.fail("sys", "no PANIC line")
            t = self.crash["task"]
            if t:
                self.out(f"task:      pid {t['pid']} comm \"{t['comm']}\" cpu {t['cpu']} (task {self.crash['task_addr']})")
            else:
                self.fail("bt", "no PID line")
        for d in self.disagree:
            if d["what"] in ("panic message", "panicking task", "kernel release"):
                self.out(line_of(d))
        self.out()

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
            self.out(self.note_differ("task count", ct, len(tasks),
                                      f"crash {self.crash_version()} (sys TASKS) against drgn's walk;"
                                      " crash 8.0.2 cannot walk 6.1's pid hash; the list below is drgn's"))
        elif ct is not None:
            self.out(f"   crash counts the same: sys TASKS {ct}"
                     + (f", ps {self.crash['ps_tasks']} lines" if self.crash.get("ps_tasks") is not None else ""))
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
                said = f"fire record {n['role']}_pid={n['pid']}" if n.get("from", "fire record") == "fire record" \
                    else f"named in the kernel log, pid {n['pid']}"
                show(f"{n['role']} task ({said})", t)
            else:
                self.out(f"-- {n['role']} task: pid {n['pid']} ({n.get('from', 'fire record')}) is not in the dump's task list")
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
                self.out(self.note_differ("BPF programs (id, type, tag)", c, d))
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

    def text_drgn(self):
        """drgn's sections: tasks and stacks, BPF objects, files and
        memory, and what drgn cannot show; or why they are missing."""
        if self.crash is None and self.cp and self.cp.error:
            self.out(f"== crash part: FAILED: {self.cp.error.strip()}")
            self.out("   The crash sections of this report are empty for that reason"
                     + ("; drgn's follow." if self.drgn_ok else "."))
            self.out()
        if self.drgn is not None and not self.drgn_ok:
            self.out(f"== drgn part: FAILED: {self.drgn.get('error')}")
            self.out("   Not in this report for that reason: every task and its state, the stacks of")
            self.out("   D-state and running tasks, BPF objects by drgn, the fire record cross-check,")
            self.out("   open files and memory." + (" The crash part follows." if self.crash else ""))
            self.out()
        if not self.drgn_ok:
            return
        named = self.d("named_tasks") or []
        for name, title in (("tasks", "Tasks"), ("bpf", "BPF programs and maps")):
            if self.d(name) is None:
                self.out(f"== {title} (drgn): FAILED: {self.drgn_failed(name)}")
                self.out()
            elif name == "tasks":
                self.text_tasks(self.d("tasks"), named, self.d("crashed"))
            else:
                self.text_bpf(self.d("bpf"))
        if self.d("processes") is None:
            self.out(f"== Open files and memory (drgn): FAILED: {self.drgn_failed('processes')}")
            self.out()
        else:
            self.text_processes(self.d("processes"))
        self.out("== Not shown by drgn, and why")
        for n in self.d("not_shown") or []:
            self.out(f"   - {n}")
        for e in self.d("errors") or []:
            self.out(f"   - section failed in drgn: {e}")
        self.out()

    def panic_trace(self):
        """The dying kernel's own report in crash's log: panic or oops, with
        its call trace."""
        log = self.cp.sections.get("log", [])
        start = next((i for i, ln in enumerate(log)
                      if bpk_protocol.kind_of_line(bpk_protocol.strip_stamp(ln)) in TRACE_KINDS), None)
        if start is not None:
            trace = []
            for ln in log[start:]:
                trace.append(ln)
                if len(trace) >= TRACE_LINES or "</TASK>" in ln:
                    break
            for ln in trace:
                self.out(ln)
        elif self.field("trigger.fire_action") == "crash_kexec":
            self.out("   none printed: the trigger fired through crash_kexec(), which prints no panic")
        else:
            self.out("   none printed")

    def text_crash(self):
        """crash's own sections; one line instead when crash could not open
        the dump."""
        if self.crash is None:
            self.out("== crash's sections (bt, the dying kernel's report, log, bpf, kmem, sys): not available (see Panic)")
            self.out()
            return
        s = self.cp.sections

        def has_text(name):
            return any(ln.strip() for ln in s.get(name, []))
        self.out("== Backtrace of the panicking task (crash bt)")
        self.lines.extend(s.get("bt", []))
        self.out()
        if (self.cause or {}).get("dump") in CPU_CAUSES or (self.cause or {}).get("run") in CPU_CAUSES:
            self.out("== Every CPU (crash bt -a: where each CPU was when the kernel went down;"
                     " after <NMI exception stack>, the context the NMI interrupted)")
            for c in self.cpus() or []:
                irq = ("" if c["irqs_off"] is None else
                       f", interrupted at {c['nmi_rip']} with interrupts {'off' if c['irqs_off'] else 'on'}")
                self.out(f"   CPU {c['cpu']}: pid {c['pid']} {c['comm']}{irq}")
            if has_text("cpus"):
                self.lines.extend(s["cpus"])
            else:
                self.fail("cpus", "bt -a printed nothing")
            self.out()
        self.out("== Panic or oops as the dying kernel printed it (shows the JITed BPF program frame)")
        self.panic_trace()
        self.out()
        self.out("== Kernel log, last 25 lines")
        if has_text("log"):
            self.lines.extend(s["log"][-25:])
        else:
            self.fail("log", "empty")
        self.out()
        self.out("== BPF programs and maps in the dump (crash bpf)")
        if has_text("bpf"):
            self.lines.extend(s["bpf"])
        elif self.field("trigger.name") == "none":
            self.out("   none listed (trigger none)")
        else:
            self.fail("bpf", "listed no programs")
        self.out()
        self.text_vmas()
        self.out("== Memory (crash kmem -i)")
        if any("TOTAL MEM" in ln for ln in s.get("kmem", [])):
            self.lines.extend(s["kmem"])
        else:
            self.fail("kmem", "no TOTAL MEM line")
        self.out()
        self.out("== System (crash sys)")
        self.lines.extend(s.get("sys", []))
        self.out()

    def text_vmas(self):
        """The panicking task's memory map: crash's vm, checked against
        drgn's walk of the same maple tree where this drgn has one."""
        cv = self.crash.get("vmas")
        dv = self.d("vmas")
        task = self.crash.get("task") or {}
        self.out(f"== Memory map of the panicking task (crash vm): pid {task.get('pid', '?')} {task.get('comm', '')}")
        if cv is None and self.cp and self.cp.analyzers and self.cp.analyzers.source == "system":
            # a known limit of the analyzers chosen, not a failed section
            self.out(f"   not shown: Debian 12's crash {self.crash_version()} cannot read 6.1's maple trees"
                     f" (the toolbox's crash can): {said(self.cp.sections.get('vm', []))}")
        elif cv is None:
            self.fail("vm", f"crash {self.crash_version()} listed no VMAs: {said(self.cp.sections.get('vm', []))}")
        elif not cv:
            self.out("   none: a kernel thread has no user memory")
        else:
            self.out(f"   {'START':>16} {'END':>16} {'FLAGS':>8}  FILE")
            for v in cv:
                self.out(f"   {v['start']:16x} {v['end']:16x} {v['flags']:8x}  {v['file'] or ''}")
        if cv is not None and dv is not None:
            c = [(v["start"], v["end"]) for v in cv]
            d = [(v["start"], v["end"]) for v in dv["list"]]
            if c != d:
                self.out(self.note_differ("panicking task's VMAs", len(c), len(d),
                                          "crash vm and drgn for_each_vma list different ranges"))
            else:
                self.out(f"   drgn lists the same {len(d)} VMA(s)")
        self.out()

    HANG_CAUSES = ("hung_task", "soft_lockup", "rcu_stall", "hard_lockup", "stall")

    def hang(self):
        """A cause where who blocked whom is the news: a hung_task fire, a
        hang the run or the dump names, a deadlock found."""
        return (self.field("trigger.name") == "hung_task"
                or self.cause.get("run") in self.HANG_CAUSES or self.cause.get("dump") in self.HANG_CAUSES
                or bool((self.d("waits") or {}).get("deadlocks")))

    def text_waits(self):
        """Who blocked whom: deadlocks first, then each blocked task, the
        one blocked longest first, with its chain."""
        w = self.d("waits")
        if w is None:
            if self.drgn_ok:
                self.out(f"== Who blocked whom (drgn): FAILED: {self.drgn_failed('waits')}")
                self.out()
            return
        if not w["tasks"]:
            return
        self.out("== Who blocked whom (drgn: what each blocked task waits on, and who holds it)")
        for cyc in w["deadlocks"]:
            self.out("   DEADLOCK: " + " -> ".join(f"pid {c['pid']} {c['comm']} -> {obj_text(c['waits'])}" for c in cyc)
                     + f" -> pid {cyc[0]['pid']} {cyc[0]['comm']}")
        for t in w["tasks"]:
            blocked = f", blocked {t['blocked_s']:.2f} s" if t.get("blocked_s") is not None else ""
            line = f"   pid {t['pid']} {t['comm']} {t['state']}{blocked}: "
            wt = t["waits"]
            if wt is None:
                line += "its stack cannot be read"
            elif wt["address"] is None and t["state"] == "R":
                line += f"running, not waiting (in {wt['function'] or '?'})"
            elif wt["address"] is None:
                line += f"waits in {wt['function'] or '?'} on nothing the report knows"
            else:
                line += f"waits on {obj_text(wt)} (in {wt['function']})"
                if t["owner"]:
                    line += f", held by pid {t['owner']['pid']} {t['owner']['comm']}"
                elif t["owner_note"]:
                    line += f"; {t['owner_note']}"
                if t["waiters"]:
                    line += f"; also waiting on it: pids {', '.join(str(p) for p in t['waiters'])}"
            self.out(line)
        for c in w["chains"]:
            if len(c["steps"]) > 1 and not c["cycle"]:
                self.out(f"   chain from pid {c['from']}: " + " -> ".join(
                    f"pid {st['pid']} {st['comm']}" + (f" -> {obj_text(st['waits'])}" if st["waits"] and st["waits"]["address"] else
                                                      f" (waits in {(st['waits'] or {}).get('function') or '?'})")
                    for st in c["steps"]))
        self.out(f"   holders read by {w.get('owners_read_by') or '?'}; their stacks are in the task sections below")
        self.out()

    def text_not_in_report(self):
        self.out("== Not in this report")
        warnings = sorted({ln for ln in (self.cp.lines if self.cp else []) if ln.startswith("WARNING")})
        for w in warnings:
            self.out(f"   crash: {w}")
        if not warnings:
            self.out("   nothing crash warned about")
        self.out()

    def armed_to_fire(self):
        """Fire record time minus boot_to_armed_s: the fire's time when no
        panic line timed it (crash_kexec)."""
        armed = self.field("timings.boot_to_armed_s")
        rec = self.fire_record
        t = (rec or {}).get("time_ns")
        if isinstance(armed, (int, float)) and isinstance(t, int):
            return f"{t / 1e9 - armed:.2f}"
        return None

    def text_timings(self, started_ms, crash_ms, drgn_ms, first_look_ms):
        self.out("== Timings (seconds)")
        for k, v in (self.rec.get("timings") or {}).items():
            if v is not None:
                self.out(f"   {k}={json.dumps(v)}")
        a2f = self.armed_to_fire()
        if a2f is not None:
            self.out(f"   armed_to_fire_s={a2f} (fire record time - boot_to_armed_s)")
        ms = now_ms() - started_ms
        self.out(f"   report_s={ms // 1000}.{(ms % 1000) // 10:02d} (crash part {seconds(crash_ms)} s, "
                 f"drgn part {seconds(drgn_ms)} s, in parallel"
                 + (f"; first look printed at {seconds(first_look_ms)} s" if first_look_ms is not None else "")
                 + ")")

    def render(self, started_ms, crash_ms, drgn_ms, first_look_ms):
        """report.txt's lines. The drgn sections are made in a guard of
        their own: a fault in them is a FAILED section, not a lost report."""
        self.header()
        self.text_cause()
        self.text_fire()
        hang = self.drgn_ok and self.hang()
        if hang:
            self.text_waits()
        self.text_panic()
        mark = len(self.lines)
        try:
            if not hang:
                self.text_waits()
            self.text_drgn()
        except Exception as e:  # noqa: BLE001 - any fault here is the report's news
            del self.lines[mark:]
            self.fail("drgn", f"its sections could not be written: {type(e).__name__}: {e}")
            self.out()
        self.text_crash()
        self.text_not_in_report()
        self.text_timings(started_ms, crash_ms, drgn_ms, first_look_ms)
        return self.lines

    # -- report.json

    def json(self, timings):
        rec = self.rec
        tasks = self.d("tasks")
        fire = self.fire_record
        fire_agree = [e["agree"] for e in self.fire_entries if e["agree"] is not None]
        vmcore = os.path.join(self.run, "vmcore")
        by_state = None
        if tasks is not None:
            by_state = {}
            for t in tasks:
                by_state[t["state"]] = by_state.get(t["state"], 0) + 1
        cp = self.cp
        drgn_ran = self.drgn is not None
        return {
            "schema_version": SCHEMA_VERSION,
            "run": run_facts(self.run, rec),
            "trigger": trigger_facts(rec),
            "kernel": {"release": self.d("release") or (self.crash or {}).get("release"),
                       "version": (self.crash or {}).get("version")},
            "vmcore": ({"path": os.path.abspath(vmcore), "bytes": os.path.getsize(vmcore)}
                       if os.path.exists(vmcore) else None),
            "cause": self.cause,
            "cpus": self.cpus(),
            "panic": self.panic,
            "fire": {"record": fire is not None, "fields": fire,
                     "source": (None if fire is None else
                                "drgn" if any(e["drgn"] is fire for e in self.fire_entries) else "crash"),
                     "crash_drgn_agree": (all(fire_agree) if fire_agree else None),
                     "maps": self.fire_entries,
                     "own_maps": self.d("own_maps")},
            "tasks": (None if tasks is None else
                      {"total": len(tasks), "by_state": by_state,
                       "crash_count": (self.crash or {}).get("tasks"),
                       "named": self.d("named_tasks") or [], "list": tasks}),
            "bpf": self.d("bpf"),
            "processes": self.d("processes"),
            "waits": (None if self.d("waits") is None else {**self.d("waits"), "graph": self.graph}),
            "memory_map": (None if not (self.crash or self.drgn_ok) else
                           {"task": (self.crash or {}).get("task") or self.d("crashed"),
                            "crash": (self.crash or {}).get("vmas"),
                            "drgn": (self.d("vmas") or {}).get("list")}),
            "analyzers": {
                "chosen": bpk_analyzers.as_dict(self.analyzers) if self.analyzers else None,
                "crash": {"ran": cp is not None, "ok": self.crash is not None,
                          "error": cp.error if cp else None,
                          "version": self.crash_version() if self.analyzers and cp else None,
                          "retried_from": cp.retried_from if cp else None,
                          "retried_with": cp.analyzers.whose() if cp and cp.retried_from else None,
                          "seconds": timings.get("crash_s")},
                "drgn": {"ran": drgn_ran, "ok": self.drgn_ok,
                         "error": (self.drgn or {}).get("error"),
                         "version": (self.drgn or {}).get("drgn_version"),
                         "section_errors": (self.drgn or {}).get("errors", []),
                         "seconds": timings.get("drgn_s")},
            },
            "disagreements": self.disagree,
            "not_shown": self.d("not_shown") or [],
            "timings": {**record_timings(rec), **timings},
            "record": rec,
        }


def write_graph(run, waits):
    """RUN/waits.dot, and waits.svg drawn from it by Graphviz's dot, when
    tasks were blocked; the name of the picture (or of the .dot when dot
    is missing or fails, said on stderr), None when there is none."""
    if not waits or not waits.get("tasks"):
        return None
    dot_path = os.path.join(run, "waits.dot")
    write(dot_path, wait_dot(waits))
    if not shutil.which("dot"):
        bpk_protocol.say(f"{PROG}: no Graphviz dot: the wait-for graph is {dot_path} (install Debian package graphviz)")
        return "waits.dot"
    r = subprocess.run(["dot", "-Tsvg", "-o", os.path.join(run, "waits.svg"), dot_path],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        bpk_protocol.say(f"{PROG}: dot could not draw {dot_path}: {said(r.stderr.splitlines())}")
        return "waits.dot"
    return "waits.svg"


def obj_text(w):
    """A waited-on object in one phrase: kind, address and symbol."""
    sym = f" ({w['symbol']})" if w.get("symbol") else ""
    return f"{w['kind']} 0x{w['address']:x}{sym}"


def wait_dot(w):
    """The wait-for graph in Graphviz's language: a task a node (state,
    blocked time), an edge per lock to its holder, or to the object itself
    when it records none; the edges of a deadlock in red."""
    def q(text):
        return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    red = {(c["pid"], c["waits"]["address"]) for cyc in w["deadlocks"] for c in cyc if c["waits"]}
    out = ["digraph waits {", '  rankdir=LR; node [fontname="monospace"]; edge [fontname="monospace"];']
    for t in w["tasks"]:
        label = f"pid {t['pid']} {t['comm']}\n{t['state']}"
        if t.get("blocked_s") is not None:
            label += f", blocked {t['blocked_s']:.2f} s"
        out.append(f"  t{t['pid']} [shape=ellipse, label={q(label)}];")
    for t in w["tasks"]:
        wt = t["waits"]
        if not wt or wt["address"] is None:
            continue
        color = ", color=red, fontcolor=red" if (t["pid"], wt["address"]) in red else ""
        what = f"{wt['kind']} 0x{wt['address']:x}"
        if t["owner"] and t["owner"].get("pid") is not None:
            out.append(f"  t{t['pid']} -> t{t['owner']['pid']} [label={q(what)}{color}];")
        else:
            node = f"o{wt['address']:x}"
            out.append(f"  {node} [shape=box, label={q(what + chr(10) + (t['owner_note'] or 'no owner'))}];")
            out.append(f"  t{t['pid']} -> {node} [label={q('waits')}{color}];")
    out.append("}")
    return "\n".join(out) + "\n"


def line_of(d):
    """A disagreement as report.txt says it."""
    if d["what"] == "cause":
        return (f"   DISAGREE cause: the console says {d['run']}, the dump says {d['dump']}"
                + (f" ({d['note']})" if d["note"] else ""))
    return (f"   DISAGREE {d['what']}: crash says {d['crash']!r}, drgn says {d['drgn']!r}"
            + (f" ({d['note']})" if d["note"] else ""))


# Run-level causes that say the console could not tell why the kernel went
# down (a panic in NMI context prints nothing before the capture kernel
# boots: printk defers the console there). The dump is the first witness
# then, not a contradiction.
CONSOLE_COULD_NOT_TELL = ("kexec", "unknown")


def cpu_stacks(lines):
    """crash's bt -a as [{cpu, pid, comm, frames, nmi_rip, rflags,
    irqs_off}]: nmi_rip and rflags are those of the context an NMI
    interrupted (crash prints that exception frame, then "--- <NMI
    exception stack> ---"), None when the CPU was not in one; irqs_off:
    that context ran with interrupts disabled."""
    out = []
    cur = None
    xrip = xflags = None  # the last exception frame printed
    for line in lines:
        m = BT_TASK_RE.match(line)
        if m:
            cur = {"cpu": int(m.group(3)), "pid": int(m.group(1)), "comm": bpk_protocol.escape(m.group(4)),
                   "frames": [], "nmi_rip": None, "rflags": None, "irqs_off": None}
            out.append(cur)
            xrip = xflags = None
            continue
        if cur is None:
            continue
        if "<NMI exception stack>" in line:
            if xrip is not None and cur["nmi_rip"] is None:
                cur["nmi_rip"], cur["rflags"] = xrip, xflags
                cur["irqs_off"] = None if xflags is None else not xflags & X86_EFLAGS_IF
            continue
        m = BT_FRAME_RE.match(line)
        if m:
            cur["frames"].append(bpk_protocol.escape(m.group(2)))
            continue
        m = BT_XRIP_RE.match(line)
        if m:
            xrip, xflags = bpk_protocol.escape(m.group(1).strip()), None
            continue
        m = BT_RFLAGS_RE.search(line)
        if m and xrip is not None and xflags is None:
            xflags = int(m.group(1), 16)
    return out


def stall_cause(cpus, nmi_why):
    """The host's NMI (--stall) brought the kernel down: a CPU it found
    running with interrupts off is a hard lockup; else a stall."""
    if cpus is None:
        return "stall", f"the host injected the NMI (--stall); crash's bt -a could not say where each CPU was ({nmi_why})"
    off = [c for c in cpus if c["irqs_off"]]
    if off:
        where = "; ".join(f"CPU {c['cpu']} (pid {c['pid']} {c['comm']}) at {c['nmi_rip']}" for c in off)
        return "hard_lockup", f"the host's NMI (--stall) found interrupts off: {where}"
    where = "; ".join(f"CPU {c['cpu']} at {c['nmi_rip'] or (c['frames'] or ['?'])[0]}" for c in cpus)
    return "stall", f"the host's NMI (--stall) found no CPU with interrupts off: {where or 'no CPU listed'}"


def causes_agree(run, dump):
    """True if the dump says what the run said, None if the run could not
    tell, False if they differ."""
    if dump == run:
        return True
    # the console can only say the host's NMI ended a stall; the dump
    # tells a hard lockup from the rest
    if run == "stall" and dump == "hard_lockup":
        return True
    return None if run in CONSOLE_COULD_NOT_TELL else False


def cause_disagreement(run, dump, why):
    return {"what": "cause", "run": run, "dump": dump, "note": f"the dump's {why}" if why else None}


def run_facts(run, rec):
    return {"id": rec.get("id") or os.path.basename(os.path.normpath(run)),
            "dir": os.path.abspath(run),
            "status": rec.get("status"),
            "reason": rec.get("reason", ""),
            "dump": bpk_record.field(rec, "dump.state"),
            "dump_path": bpk_record.field(rec, "dump.path"),
            "dump_path_why": bpk_record.field(rec, "dump.path_why")}


def trigger_facts(rec):
    args = bpk_record.field(rec, "trigger.args", "")
    return {"name": bpk_record.field(rec, "trigger.name"), "args": args,
            "arguments": trigger_arguments(args)}


# --- the command forms


def load_record(run, code):
    if not os.path.isdir(run) or not os.access(run, os.R_OK | os.X_OK):
        die(f"{run}: not a readable run directory", code)
    try:
        return bpk_record.load(run)
    except bpk_record.RecordError as e:
        die(str(e), code)


def as_filed(rec, cause):
    """The record as bpk files it once the report is written (bpk/run.c's
    mark_report_written, record.c's confirmed): report.json then carries
    the final record, and no second process has to bring it up to date."""
    rec = json.loads(json.dumps(rec))
    rec["report"] = {**(rec.get("report") or {}), "state": "written", "error": None}
    dump = cause.get("dump")
    if dump in bpk_record.CAUSES and isinstance(rec.get("cause"), dict):
        rec["cause"]["dump"] = dump
        rec["cause"]["confirmed"] = dump == rec["cause"].get("run")
    return rec


def full_report(run, vmlinux=None, analyzers=None, filed=False):
    """report.py RUN [--vmlinux FILE] [--as-filed]: report.txt and
    report.json, printed; exit 1 naming what failed. --as-filed (bpk run):
    report.json holds the record as bpk files it after a report that
    worked."""
    started = now_ms()
    rec = load_record(run, 1)
    run = os.path.realpath(run)  # the toolbox binds it at this path
    vmcore = os.path.join(run, "vmcore")
    if not os.access(vmcore, os.R_OK):
        die(f"{run}: no vmcore to open (run status: {rec.get('status')}: {rec.get('reason', '')})")
    vmlinux = vmlinux or bpk_record.field(rec, "guest.vmlinux") or os.path.join(TOP, "build", "kernel", "vmlinux")
    if not os.access(vmlinux, os.R_OK):
        die(f"{vmlinux}: vmlinux not readable (--vmlinux FILE)")
    fire_decode = os.environ.get("FIRE_DECODE") or os.path.join(TOP, "build", "analysis", "fire-decode")
    if not os.access(fire_decode, os.X_OK):
        die(f"{fire_decode}: not built (make analysis)")
    try:
        chosen = bpk_analyzers.Analyzers(analyzers, progress=sys.stderr)
    except ValueError as e:
        die(str(e), 2)
    if chosen.why_not:
        bpk_protocol.say(f"{PROG}: the toolbox is not used, Debian 12's own crash and drgn read the dump: {chosen.why_not}")
    if chosen.source == "system" and not shutil.which("crash"):
        die("'crash' not found: install Debian package crash (make deps)")
    work = tempfile.mkdtemp(prefix="bpk-report.")
    crash = drgn = None
    # SIGTERM and SIGHUP would end this process and leave crash and drgn
    # running: the cleanup below runs for them as for Ctrl-C
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupted)
    try:
        drgn = DrgnPart(run, vmcore, vmlinux, work, chosen)
        crash = CrashPart(run, vmcore, vmlinux, fire_decode, chosen)
        crash.start()
        # the first look: crash is still reading the vmlinux's debug info
        drgn.wait()
        first_look_ms = None
        if drgn.facts.get("ok"):
            try:
                print("\n".join(bpk_protocol.escape(ln) for ln in first_look(rec, drgn.facts, drgn.ms / 1000)) + "\n",
                      flush=True)
                first_look_ms = now_ms() - started
            except Exception as e:  # noqa: BLE001 - the full report still follows
                bpk_protocol.say(f"first look: {type(e).__name__}: {e}")
        else:
            bpk_protocol.say(f"first look: the drgn part failed: {drgn.facts.get('error')}")
        crash.finish()
        if crash.error and chosen.source == "toolbox":
            # a crash can fail where another reads (crash 8.0.6 on an
            # exception stack): its sections then come from sid's when that
            # toolbox is made, else Debian 12's, said in the report, rather
            # than none
            first = crash.error
            for other in (bpk_analyzers.newest_made(chosen), bpk_analyzers.Analyzers("system")):
                if other is None:
                    continue
                bpk_protocol.say(f"{PROG}: {first}; {other.whose()} crash tries")
                retry = CrashPart(run, vmcore, vmlinux, fire_decode, other)
                retry.start()
                retry.finish()
                if not retry.error:
                    retry.retried_from = first
                    crash = retry
                    break
        r = Report(run, rec, crash, drgn, chosen)
        timings = {"crash_s": crash.ms / 1000, "drgn_s": drgn.ms / 1000}
        if first_look_ms is not None:
            timings["first_look_s"] = first_look_ms / 1000
        # what the guest and the dump said reaches no terminal or file raw
        lines = [bpk_protocol.escape(ln) for ln in r.render(started, crash.ms, drgn.ms, first_look_ms)]
        r.graph = write_graph(run, r.d("waits"))
        timings["report_s"] = round((now_ms() - started) / 1000, 3)
        if filed and not crash.error and not r.failed:
            r.rec = as_filed(rec, r.cause)
        try:
            write(os.path.join(run, "report.json"), json.dumps(bpk_protocol.escape_deep(r.json(timings)), indent=1) + "\n")
        except ReportError as e:
            r.failed.append(f"report.json: {e}")
        write(os.path.join(run, "report.txt"), "\n".join(lines) + "\n")
    except ReportError as e:
        die(str(e))
    except (Interrupted, KeyboardInterrupt) as e:
        signum = e.signum if isinstance(e, Interrupted) else signal.SIGINT
        print(f"{PROG}: error: interrupted by {signal.Signals(signum).name}: no report written", file=sys.stderr)
        sys.exit(128 + signum)
    finally:
        for part in (crash, drgn):
            if part:
                part.kill()
        shutil.rmtree(work, ignore_errors=True)
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    report_txt = os.path.join(run, "report.txt")
    # crash not opening the dump at all comes first: it says most
    if crash.error:
        die(f"{crash.error} (the report keeps what drgn found: {report_txt})")
    if r.failed:
        die(f"the report of {run} is incomplete, {len(r.failed)} section(s) failed: " + "; ".join(r.failed))
    return 0


def run_only(run):
    """report.py --run-only RUN: report.json of a run the report did not
    cover (no vmcore, interrupted): the run's own facts, the analysis
    parts null."""
    rec = load_record(run, 2)
    r = Report(run, rec)
    try:
        write(os.path.join(run, "report.json"), json.dumps(bpk_protocol.escape_deep(r.json({})), indent=1) + "\n")
    except ReportError as e:
        die(str(e))
    return 0


def refresh(run):
    """report.py --refresh RUN: the current run.json into the existing
    report.json (bpk changed the record after the report: a report that
    failed makes the run failed), and what follows from it: the run's
    facts, its timings, the run-level cause and its comparison."""
    rec = load_record(run, 2)
    path = os.path.join(run, "report.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"not a report.json of schema_version {SCHEMA_VERSION}")
    except OSError as e:
        die(f"{path}: {e.strerror}")
    except ValueError as e:
        die(f"{path}: {e}")
    doc["run"] = run_facts(run, rec)
    doc["trigger"] = trigger_facts(rec)
    doc["timings"] = {**(doc.get("timings") or {}), **record_timings(rec)}
    cause = doc.get("cause") or {}
    cause.update(run=bpk_record.field(rec, "cause.run"), run_detail=bpk_record.field(rec, "cause.detail", ""),
                 after=bpk_record.field(rec, "cause.after"))
    disagree = [d for d in doc.get("disagreements") or [] if d.get("what") != "cause"]
    if cause.get("dump") is not None:
        cause["agree"] = causes_agree(cause["run"], cause["dump"])
        if cause["agree"] is False:
            disagree.append(cause_disagreement(cause["run"], cause["dump"], cause.get("dump_from")))
    doc["cause"] = cause
    doc["disagreements"] = disagree
    doc["record"] = rec
    try:
        write(path, json.dumps(bpk_protocol.escape_deep(doc), indent=1) + "\n")
    except ReportError as e:
        die(str(e))
    return 0
