# SPDX-License-Identifier: GPL-2.0
"""What the kernel's log lines and panic messages mean, read from
lib/console-patterns: the one list bpk's console scanner is generated from
too, so the run-level cause (bpk, from the console) and the dump-level
cause (the report, from the dump's log) are found by the same texts.

    kind_of_line(message)    "oops", "warning", "panic", ... or None
    kind_of_panic(text)      the same for a panic message's text
    evidence(messages)       what a whole log says (panic message, oops
                             lines, the fatal line, ...)
    dump_cause(fire, ev)     (cause, why) in run.schema.json's vocabulary
    escape(text)             guest text made safe to show (as bpk/escape.c)
    escape_deep(obj)         the same for every string of a JSON document

A line is matched at the start of its message, after the "[ time] " stamp;
a panic message at the start of its text after "Kernel panic - not
syncing: ". Stdlib only: the report and first look import it.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PATTERNS = os.path.normpath(os.path.join(HERE, "..", "lib", "console-patterns"))

# what one line of the file must look like: KIND SCOPE "TEXT", TEXT with \"
# and \\ as its only escapes
_ENTRY_RE = re.compile(r'^([a-z_]+)\s+(line|panic)\s+"((?:[^"\\]|\\["\\])*)"\s*$')
_STAMP_RE = re.compile(r"^\[ *[0-9]+\.[0-9]+\] ")

# The kinds that name a cause when a line of theirs is the fatal one: the
# kernel did not survive it ("---[ end trace" is printed when it does; a
# WARN() with panic_on_warn, or an oops that panic_on_oops takes to
# crash_kexec(), never gets there).
FATAL_LINE_KINDS = ("oops", "warning", "sysrq", "nmi")
MAX_OOPS_LINES = 8


# valid, but they change how a reader sees the text around them: the line
# and paragraph separators, bidi embeddings, overrides and isolates,
# zero-width spaces and joiners, the marks, the BOM (as escape.c)
_INVISIBLE = frozenset([0x2028, 0x2029, 0x061C, 0xFEFF]
                       + list(range(0x200B, 0x2010))
                       + list(range(0x202A, 0x202F))
                       + list(range(0x2066, 0x206A)))


def _escape_char(ch):
    """One character as escape() shows it: itself, or \\xNN per byte."""
    cp = ord(ch)
    if 0xDC80 <= cp <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return "\\x%02x" % (cp - 0xDC00)
    if cp < 0x20 or cp == 0x7F or 0x80 <= cp <= 0x9F or cp in _INVISIBLE \
            or 0xD800 <= cp <= 0xDFFF:
        return "".join("\\x%02x" % b for b in ch.encode("utf-8", "surrogatepass"))
    return ch


def escape(text):
    """Guest text made safe to show, as bpk's escape.c makes it: control
    characters (C0, DEL, C1), U+2028 and U+2029, the invisible characters
    that reorder or hide text (bidi, zero-width), and bytes that were not
    UTF-8 (decoded with errors="surrogateescape") become \\xNN; the rest,
    backslashes included, stays. Idempotent: the run record's text, escaped
    once by bpk, comes through unchanged. Every string the report takes
    from the guest or the dump passes here before a terminal or a file."""
    if text is None:
        return None
    if not isinstance(text, str):
        text = str(text)
    if text.isprintable() and not any(ord(c) in _INVISIBLE for c in text):
        return text
    return "".join(_escape_char(c) for c in text)


def say(msg, file=None):
    """One message line on stderr (or FILE), escaped: an error of crash's
    or drgn's, a reason from the run record, an exception's text can all
    quote the guest or the vmcore. Every line the analysis prints to a
    terminal goes here, or through escape()."""
    print(escape(msg), file=file if file is not None else sys.stderr, flush=True)


def escape_deep(obj):
    """escape() applied to every string of a JSON-shaped value (keys too)."""
    if isinstance(obj, str):
        return escape(obj)
    if isinstance(obj, list):
        return [escape_deep(v) for v in obj]
    if isinstance(obj, dict):
        return {escape(k): escape_deep(v) for k, v in obj.items()}
    return obj


class PatternError(Exception):
    """lib/console-patterns cannot be read; str() names the file and line."""


def load(path=PATTERNS):
    """[(kind, scope, text)] of the file, in its order (the first match
    wins, as in bpk's scanner)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise PatternError(f"{path}: {e.strerror}") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _ENTRY_RE.match(line)
        if not m:
            raise PatternError(f"{path}:{n}: not KIND SCOPE \"TEXT\": {line.strip()}")
        text = re.sub(r"\\(.)", r"\1", m.group(3))
        if not text:
            raise PatternError(f"{path}:{n}: empty TEXT would match everything")
        out.append((m.group(1), m.group(2), text))
    return out


ENTRIES = load()
LINE = [(k, t) for k, s, t in ENTRIES if s == "line"]
PANIC = [(k, t) for k, s, t in ENTRIES if s == "panic"]
# the line that starts a panic message, which the panic scope reads after
PANIC_PREFIX = next((t for k, t in LINE if k == "panic"), None)
if PANIC_PREFIX is None:
    raise PatternError(f"{PATTERNS}: no 'panic line' entry: cannot find a panic message")


def strip_stamp(line):
    """A log line's message: without crash's or the console's "[ time] "
    stamp (drgn's printk records have none)."""
    return _STAMP_RE.sub("", line, count=1)


def kind_of_line(message):
    """The KIND of the first line pattern the message (stamp already
    removed) starts with, or None."""
    for kind, text in LINE:
        if message.startswith(text):
            return kind
    return None


def kind_of_panic(text):
    """The KIND of the first panic pattern TEXT starts with, or None. TEXT
    is what follows "Kernel panic - not syncing: "; a whole panic line is
    accepted too."""
    if text is None:
        return None
    if text.startswith(PANIC_PREFIX):
        text = text[len(PANIC_PREFIX):]
    for kind, pattern in PANIC:
        if text.startswith(pattern):
            return kind
    return None


def evidence(messages):
    """What a kernel log says about its end, from its messages (stamps
    removed), as plain data for JSON:

      message     the first panic line, whole ("Kernel panic - not
                  syncing: ..."), None if nothing called panic()
      oops_lines  the oops lines, at most MAX_OOPS_LINES
      oops, sysrq, nmi, warning   the first line of each kind, or None
      fatal       {"kind", "line"}: the first oops, WARNING, sysrq or NMI
                  line before the panic message that no "---[ end trace"
                  followed (the report the kernel did not survive), or
                  None
    """
    ev = {"message": None, "oops": None, "oops_lines": [], "sysrq": None,
          "nmi": None, "warning": None, "fatal": None}
    for raw in messages:
        line = raw.rstrip()
        kind = kind_of_line(line)
        if kind is None:
            continue
        if kind == "panic":
            if ev["message"] is None:
                ev["message"] = line
        elif kind == "end_trace":
            ev["fatal"] = None
        elif kind in ("oops", "sysrq", "nmi", "warning"):
            if ev[kind] is None:
                ev[kind] = line
            if kind == "oops" and len(ev["oops_lines"]) < MAX_OOPS_LINES:
                ev["oops_lines"].append(line)
            if kind in FATAL_LINE_KINDS and ev["message"] is None and ev["fatal"] is None:
                ev["fatal"] = {"kind": kind, "line": line}
    return ev


def dump_cause(fire, ev):
    """The dump-level cause and its evidence: (cause, why). FIRE is the
    fired record's fields (or None), EV evidence() of the dump's log (or
    None when no log could be read). In order: a fire record whose action
    takes the machine down; the panic message, by its panic patterns; the
    fatal line; a panic message of no known kind ('panic'); else
    'unknown'."""
    if fire and fire.get("action") in ("bpf_panic", "crash_kexec"):
        return "trigger", f"fire record: {fire.get('trigger')} fired through {fire.get('action')}"
    ev = ev or {}
    message = ev.get("message")
    kind = kind_of_panic(message)
    if kind:
        return kind, f"panic message: {message}"
    if ev.get("fatal"):
        return ev["fatal"]["kind"], f"log: {ev['fatal']['line']}"
    if message:
        return "panic", f"panic message: {message}"
    if not ev:
        return "unknown", "no fire record, and the dump's log could not be read"
    return "unknown", "no fire record, no panic message, no oops, WARNING, sysrq or NMI line in the dump's log"
