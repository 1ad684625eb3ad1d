#!/usr/bin/python3
"""phases.py STAMPED-CONSOLE: split one run's loop into phases.

The input is a console log whose lines console-stamp.sh prefixed with the
host's time (ms since the run started). Two clocks meet here: the host's
stamps span everything, including the step from the panic into the crash
kernel, where no guest clock runs; each kernel's printk times ([ s.us ])
time the initramfs unpacking, which runs beside other initcalls. The serial
console prints nothing before it registers: "console up" phases include the
kernel's early boot.

Prints "phase<TAB>seconds" lines, in loop order, then two marks (@panic,
@poweroff: host seconds since the run started); exits 1 naming the first
marker it cannot find, so a changed boot message cannot yield a silent zero.
"""
import re
import sys

PRINTK = re.compile(r"^(?:<\d+>)?\[\s*(\d+\.\d+)\]\s")


def load(path):
    lines = []
    with open(path, encoding="utf-8", errors="replace", newline="\n") as f:
        for raw in f:
            stamp, _, text = raw.rstrip("\n").partition(" ")
            if stamp.isdigit():
                lines.append((int(stamp) / 1000.0, text))
    return lines


class Console:
    def __init__(self, lines):
        self.lines = lines

    def find(self, needle, after=0, required=True):
        """index of the first line at or after index `after` containing needle"""
        for i in range(after, len(self.lines)):
            if needle in self.lines[i][1]:
                return i
        if required:
            sys.exit(f"phases.py: no console line with {needle!r} "
                     f"after line {after}")
        return None

    def host(self, i):
        return self.lines[i][0]

    def printk(self, i):
        m = PRINTK.match(self.lines[i][1])
        if not m:
            sys.exit(f"phases.py: line {i} has no printk time: {self.lines[i][1]!r}")
        return float(m.group(1))


def kernel_phases(c, start_idx, label):
    """one kernel's boot from its console up to its /init: host stamps for
    the boundaries, its printk times only for the unpacking (before the TSC
    is calibrated a loaded host's TCG loses timer ticks, and early printk
    times run slow); returns (phases, index of its Run /init line)"""
    unpack = c.find("Unpacking initramfs", start_idx)
    freed = c.find("Freeing initrd memory", unpack)
    init = c.find("Run /init as init process", freed)
    return [
        (f"{label}: console up to initramfs unpacking", c.host(unpack) - c.host(start_idx)),
        (f"{label}: initramfs unpacking (printk; async, beside other initcalls)",
         c.printk(freed) - c.printk(unpack)),
        (f"{label}: unpacking start to /init, less the unpacking",
         c.host(init) - c.host(unpack) - (c.printk(freed) - c.printk(unpack))),
    ], init


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: phases.py STAMPED-CONSOLE")
    c = Console(load(sys.argv[1]))
    if not c.lines:
        sys.exit(f"phases.py: {sys.argv[1]}: no stamped lines")
    out = []
    k1 = c.find("Linux version")
    k1p, init1 = kernel_phases(c, k1, "guest")
    out.append(("guest: QEMU start to console up (firmware, decompression, early boot)",
                c.host(k1)))
    out += k1p
    kexec = c.find("bpk: loading the crash kernel", init1)
    out.append(("guest: /init to kexec -p", c.host(kexec) - c.host(init1)))
    # the reservation check's line follows kexec -p at once (absent with
    # --no-reservation-check: then triggerctl check's verdict on it)
    loaded = c.find("bpk: the capture kernel needs", kexec, required=False)
    if loaded is None:
        loaded = c.find("crash kernel           loaded", kexec)
    out.append(("guest: kexec -p (load the crash kernel)", c.host(loaded) - c.host(kexec)))
    panic = c.find("Kernel panic - not syncing", loaded, required=False)
    if panic is None:  # crash_kexec kfunc: no panic line; the capture kernel's boot is next
        panic = c.find("Linux version", loaded) - 1
    out.append(("guest: triggerctl check, arm, workload to the panic",
                c.host(panic) - c.host(loaded)))
    k2 = c.find("Linux version", panic)
    k2p, init2 = kernel_phases(c, k2, "capture")
    out.append(("panic to capture console up (purgatory, decompression, early boot)",
                c.host(k2) - c.host(panic)))
    out += k2p
    up = c.find("bpk-capture: crash kernel up", init2)
    out.append(("capture: /init to capture step", c.host(up) - c.host(init2)))
    dmesg = c.find("bpk-capture: saving the kernel log", up)
    out.append(("capture: ports and checks", c.host(dmesg) - c.host(up)))
    dump = c.find("bpk-capture: dumping", dmesg)
    out.append(("capture: vmcore-dmesg", c.host(dump) - c.host(dmesg)))
    status = c.find("bpk-capture: status", dump)
    steps = {}
    for _, text in c.lines[dump:status]:
        for name, secs in re.findall(r"STEP \[([^\]]+?)\s*\] : ([0-9.]+) seconds", text):
            steps[name] = steps.get(name, 0.0) + float(secs)
    if "Copying data" in steps:
        scan = sum(v for k, v in steps.items() if k != "Copying data")
        out.append(("capture: makedumpfile page scan (holes, excluding)", scan))
        out.append(("capture: makedumpfile copy (read, compress, write)", steps["Copying data"]))
        out.append(("capture: makedumpfile, start and end outside its steps",
                    c.host(status) - c.host(dump) - scan - steps["Copying data"]))
    else:  # a makedumpfile run without report messages (--message-level 16)
        print("phases.py: no makedumpfile STEP lines: its time is not split",
              file=sys.stderr)
        out.append(("capture: makedumpfile", c.host(status) - c.host(dump)))
    off = c.find("reboot: Power down", status)
    out.append(("capture: status and power off", c.host(off) - c.host(status)))
    out.append(("panic to capture kernel powered off", c.host(off) - c.host(panic)))
    # marks on the host clock (s since the stamper started, i.e. the run):
    # make bench times "panic to report" from the panic's
    out.append(("@panic", c.host(panic)))
    out.append(("@poweroff", c.host(off)))
    for name, secs in out:
        print(f"{name}\t{secs:.3f}")


if __name__ == "__main__":
    main()
