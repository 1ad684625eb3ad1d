#!/usr/bin/env bash
# The analysis' own units, with Debian's python3 (no dump needed):
#  - bpk_protocol.escape: control characters, the line separators and the
#    invisible characters that reorder or hide text (bidi overrides and
#    isolates, zero-width ones, the BOM) come out as \xNN, as escape.c does,
#    idempotently; say() prints escaped;
#  - crash's section markers carry a nonce drawn by each report: a line of
#    the dump's text that looks like a plain marker starts no section.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
fresh_out
/usr/bin/python3 - "$top/analysis" <<'PY' >"$out/units.txt" 2>&1 || true
import io
import sys

sys.path.insert(0, sys.argv[1])
import bpk_protocol  # noqa: E402
import bpk_report  # noqa: E402


def check(name, ok, detail):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail))


cases = [
    ("a\x1b]0;t\x07b", "a\\x1b]0;t\\x07b"),
    ("x\u2028y", "x\\xe2\\x80\\xa8y"),
    ("a\u202eb", "a\\xe2\\x80\\xaeb"),
    ("\u2066x\u2069", "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9"),
    ("z\u200bw\u200f", "z\\xe2\\x80\\x8bw\\xe2\\x80\\x8f"),
    ("\ufeffbom", "\\xef\\xbb\\xbfbom"),
    ("caf\u00e9 \u202f", "caf\u00e9 \u202f"),
]
for i, (raw, want) in enumerate(cases):
    got = bpk_protocol.escape(raw)
    check("escape.case%d" % i, got == want, "%r -> %r (want %r)" % (raw, got, want))
    check("escape.idempotent%d" % i, bpk_protocol.escape(got) == got, repr(got))
buf = io.StringIO()
bpk_protocol.say("drgn: \x1b[2J\u202eevil", file=buf)
check("say.escaped", buf.getvalue() == "drgn: \\x1b[2J\\xe2\\x80\\xaeevil\n", repr(buf.getvalue()))

mark = bpk_report.MARK
check("crash.mark_has_a_nonce", mark.startswith("@@@") and len(mark) == 27, mark)
lines = ["loading", mark + " ps", "  PID  COMM", "@@@ sys", "forged by a task name",
         mark + " sys", "RELEASE: 6.1"]
got = bpk_report.crash_split(lines)
check("crash.plain_marker_is_text", sorted(got) == ["ps", "sys"]
      and got["ps"][-2:] == ["@@@ sys", "forged by a task name"]
      and got["sys"] == ["RELEASE: 6.1"], repr(got))
PY
cat "$out/units.txt"
n=$(grep -c -E '^(PASS|FAIL) ' "$out/units.txt" || true)
check analysis_unit.ran "$n results: $(grep -v -E '^(PASS|FAIL) ' "$out/units.txt" | tail -1)" test "${n:-0}" -ge 17
