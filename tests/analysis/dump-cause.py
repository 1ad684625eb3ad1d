#!/usr/bin/python3
"""dump-cause.py: the dump-level cause (analysis/bpk_protocol.py, by
lib/console-patterns) of made-up kernel logs, one case per way a kernel
goes down. Prints "ok NAME: cause (why)" or "bad NAME: got X, want Y
(why)" per case; exit 0 either way (tests/60-analysis reads the lines).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "analysis"))
import bpk_protocol  # noqa: E402 - after the path is set

FIRE = {"trigger": "syscall_errno", "action": "bpf_panic"}
PANIC = "Kernel panic - not syncing: "
OOPS = ["BUG: kernel NULL pointer dereference, address: 0000000000000000",
        "#PF: supervisor write access in kernel mode", "Oops: 0002 [#1] SMP",
        "RIP: 0010:lkdtm_EXCEPTION+0x7/0xf"]
WARN = ["WARNING: CPU: 1 PID: 88 at drivers/misc/lkdtm/bugs.c:85 lkdtm_WARNING+0xd/0x10",
        "RIP: 0010:lkdtm_WARNING+0xd/0x10"]
END = ["---[ end trace 0000000000000000 ]---"]

# name, fire record fields, log messages (None: no log read), wanted cause
CASES = [
    ("fire_record_bpf_panic", FIRE, [PANIC + "bpf_panic trigger syscall_errno fired: x=1"], "trigger"),
    ("fire_record_crash_kexec", dict(FIRE, action="crash_kexec"), ["random: crng init done"], "trigger"),
    ("trigger_message_no_record", None, [PANIC + "bpf_panic trigger uprobe fired: x=1"], "trigger"),
    ("dry_run_record_is_not_a_fire", dict(FIRE, action="none"), ["random: crng init done"], "unknown"),
    ("oops_to_crash_kexec", None, ["bpk: armed"] + OOPS, "oops"),
    ("oops_fatal_exception", None, OOPS + [PANIC + "Fatal exception"], "oops"),
    ("panic_on_warn", None, WARN + [PANIC + "kernel: panic_on_warn set ..."], "warning"),
    ("survived_warning_then_panic", None, WARN + END + [PANIC + "Attempted to kill init! exitcode=0x00000009"], "panic"),
    ("sysrq", None, ["sysrq: Trigger a crash", PANIC + "sysrq triggered crash"], "sysrq"),
    ("sysrq_after_survived_oops", None, OOPS + END + ["sysrq: Trigger a crash", PANIC + "sysrq triggered crash"], "sysrq"),
    ("sysrq_line_only", None, ["sysrq: Trigger a crash"], "sysrq"),
    ("nmi", None, ["Uhhuh. NMI received for unknown reason 30 on CPU 0.", PANIC + "NMI: Not continuing"], "nmi"),
    ("nmi_iock", None, [PANIC + "NMI IOCK error: Not continuing"], "nmi"),
    ("nmi_line_only", None, ["Uhhuh. NMI received for unknown reason 2c on CPU 1."], "nmi"),
    ("unclassified_panic", None, [PANIC + "VFS: Unable to mount root fs on unknown-block(0,0)"], "panic"),
    ("nothing_said", None, ["random: crng init done", "bpk: armed"], "unknown"),
    ("no_log", None, None, "unknown"),
    # anchored: the words in the middle of a line (a user task writing to
    # /dev/kmsg) are not a panic, an oops or a sysrq
    ("not_anchored", None, ["workload: Kernel panic - not syncing: bpf_panic trigger x fired",
                            "workload: BUG: sysrq: Trigger a crash"], "unknown"),
    # crash's log has "[ time] " stamps: removed before matching
    ("crash_log_stamps", None, [bpk_protocol.strip_stamp(ln) for ln in
                                ["[    5.123456] sysrq: Trigger a crash",
                                 "[    5.123789] " + PANIC + "sysrq triggered crash"]], "sysrq"),
]

for name, fire, log, want in CASES:
    ev = None if log is None else bpk_protocol.evidence(log)
    got, why = bpk_protocol.dump_cause(fire, ev)
    if got == want:
        print(f"ok {name}: {got} ({why})")
    else:
        print(f"bad {name}: got {got}, want {want} ({why})")
