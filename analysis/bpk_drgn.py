# SPDX-License-Identifier: GPL-2.0
"""The project's drgn helpers: what the report's drgn part and `make drgn`
read out of a vmcore.

Written for the toolbox's current drgn (bpk_analyzers.py) and for Debian
12's python3-drgn 0.0.22, the fallback: where a helper is newer than 0.0.22
(for_each_vma: 0.0.25) it is used when present, and what the older drgn
cannot show is said (not_shown), not guessed. Every reader returns plain
Python data (dicts, lists, str, int) so that the report can put it into
JSON as it is; the interactive helpers print it.
"""

import glob
import os
import re
import time

import bpk_protocol
import bpk_waits
import drgn
from drgn import FaultError, Object, cast, container_of
from drgn.helpers.linux.bpf import (
    bpf_link_for_each,
    bpf_map_for_each,
    bpf_prog_for_each,
)
from drgn.helpers.linux.cpumask import for_each_present_cpu
from drgn.helpers.linux.percpu import percpu_counter_sum
from drgn.helpers.linux.fs import d_path, for_each_file
from drgn.helpers.linux.list import list_first_entry, list_for_each_entry
from drgn.helpers.linux.percpu import per_cpu
from drgn.helpers.linux.pid import for_each_task
from drgn.helpers.linux.printk import get_printk_records
from drgn.helpers.linux.sched import idle_task, task_cpu, task_state_to_char

try:  # drgn 0.0.25 and later
    from drgn.helpers.linux.mm import for_each_vma as _for_each_vma
except ImportError:
    _for_each_vma = None

PF_KTHREAD = 0x00200000  # include/linux/sched.h
LOG_KERN = 0  # syslog(3)'s facility of the kernel's own messages

# What the drgn part cannot show, and why: printed in the report and put
# into report.json as it is (not_shown() adds what this drgn lacks).
NOT_SHOWN = [
    "user-space stacks: not unwound (a dump made with makedumpfile -d 31,"
    " the usual level, has no user pages to unwind them from; the level is"
    " on the report's status line)",
    "what is behind a pipe or socket: open files show their path, or"
    " pipe:[inode] / socket:[inode]; the other end and socket state are"
    " not decoded",
]
NO_VMA_HELPER = (f"VMAs (memory maps, /proc/PID/maps): 6.1 keeps them in a maple tree"
                 f" (mm->mm_mt) and drgn {drgn.__version__} has no for_each_vma (drgn 0.0.25);"
                 f" the memory summary is the mm's own counters (total_vm, map_count, rss)")


def not_shown():
    return ([] if _for_each_vma else [NO_VMA_HELPER]) + NOT_SHOWN


# The fire record's constants (its magic, the action names) are read from
# triggers/fire.h: the one place that defines them. Its layout is not: drgn
# reads that from the map's own BTF (see map_btf_decode).
def fire_constants(fire_h):
    """{"magic": "BPKFIRE1", "actions": {0: "none", 1: "bpf_panic", ...}}"""
    with open(fire_h, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'#define\s+FIRE_MAGIC\s+"([^"]*)"', text)
    enum = re.search(r"enum\s+fire_action\s*{([^}]*)}", text)
    if not m or not enum:
        raise ValueError(f"{fire_h}: no FIRE_MAGIC or enum fire_action")
    actions = {}
    for name, value in re.findall(r"FIRE_(\w+)\s*=\s*(\d+)", enum.group(1)):
        actions[int(value)] = name.lower()
    return {"magic": m.group(1), "actions": actions}


def open_dump(vmcore, vmlinux):
    """A drgn Program on VMCORE with the debug info of VMLINUX only (no
    search of /boot or /usr/lib/debug: the run names its vmlinux)."""
    prog = drgn.Program()
    prog.set_core_dump(vmcore)
    prog.load_debug_info([vmlinux], default=False, main=False)
    load_module_debug_info(prog, vmlinux)
    prog.cache["bpk_src_root"] = os.path.join(
        os.path.dirname(os.path.dirname(os.path.realpath(vmlinux))), "src") + "/"
    # drgn 0.0.22 does not check that the vmlinux is the dumped kernel's: a
    # wrong one gives garbage, not an error. The dump's VMCOREINFO names the
    # kernel's build ID; the vmlinux's ELF note has its own.
    want = elf_build_id(vmlinux)
    have = dump_build_id(vmcore)
    if want is None:
        raise ValueError(f"{vmlinux}: no GNU build ID note: cannot tell whether it is the dumped kernel")
    if not want.startswith(have):
        raise ValueError(f"{vmlinux} (build ID {want}) is not the dumped kernel (build ID {have})")
    # drgn reads lazily: a dump whose memory cannot be translated (no
    # KERNELOFFSET, page tables cut off) fails on the first read, here,
    # as "cannot open" rather than as every section failing.
    kernel_release(prog)
    return prog


def load_module_debug_info(prog, vmlinux):
    """Debug info of the modules next to VMLINUX, where the kernel has them:
    debian-kernel.sh keeps the guest's modules in modules/lib/modules/ beside
    the -dbg vmlinux (our kernel has none). Only lkdtm.ko, built there out of
    tree, carries DWARF; the package's own modules are stripped, and their
    frames stay "(no symbol)" (the -dbg package's copies are not extracted).
    Without it the hung_task example's stack ends in an address, not in
    lkdtm's direct_entry."""
    root = os.path.join(os.path.dirname(os.path.realpath(vmlinux)), "modules", "lib", "modules")
    kos = sorted(glob.glob(os.path.join(root, "*", "**", "*.ko"), recursive=True))
    if not kos:
        return
    try:
        prog.load_debug_info(kos, default=False, main=False)
    except drgn.MissingDebugInfoError:
        pass  # the stripped ones; the others are loaded


def dump_build_id(vmcore):
    """The BUILD-ID= line of the VMCOREINFO that makedumpfile (or QEMU, in
    the host's dump) keeps in a kdump-compressed vmcore (disk_dump_header,
    then kdump_sub_header at
    block_size: offset_vmcoreinfo, size_vmcoreinfo; makedumpfile's
    diskdump_mod.h, x86_64 layout)."""
    with open(vmcore, "rb") as f:
        hdr = f.read(464)
        if hdr[:4] == b"\x7fELF":
            info = elf_vmcoreinfo(f, vmcore)
            m = re.search(r"^BUILD-ID=([0-9a-f]+)$", info, re.M)
            if not m:
                raise ValueError(f"{vmcore}: its VMCOREINFO has no BUILD-ID")
            return m.group(1)
        if hdr[:8] != b"KDUMP   ":
            raise ValueError(f"{vmcore}: neither a kdump-compressed vmcore nor an ELF core (signature {hdr[:8]!r})")
        block_size = int.from_bytes(hdr[428:432], "little")
        f.seek(block_size)
        sub = f.read(48)
        off = int.from_bytes(sub[32:40], "little")
        size = int.from_bytes(sub[40:48], "little")
        if not off or not 0 < size < 1 << 20:
            raise ValueError(f"{vmcore}: no VMCOREINFO in its header")
        f.seek(off)
        info = f.read(size).decode(errors="replace")
    m = re.search(r"^BUILD-ID=([0-9a-f]+)$", info, re.M)
    if not m:
        raise ValueError(f"{vmcore}: its VMCOREINFO has no BUILD-ID")
    return m.group(1)


def elf_vmcoreinfo(f, path):
    """The VMCOREINFO note of an ELF64 little-endian core (QEMU's
    dump-guest-memory in its ELF form writes the one the guest kernel
    published), as text."""
    f.seek(0)
    eh = f.read(64)
    phoff = int.from_bytes(eh[32:40], "little")
    phentsize = int.from_bytes(eh[54:56], "little")
    phnum = int.from_bytes(eh[56:58], "little")
    if eh[4] != 2 or eh[5] != 1 or not phoff or phentsize < 56 or phnum > 4096:
        raise ValueError(f"{path}: not an ELF64 little-endian core")
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        ph = f.read(56)
        if int.from_bytes(ph[0:4], "little") != 4:  # PT_NOTE
            continue
        off = int.from_bytes(ph[8:16], "little")
        size = int.from_bytes(ph[32:40], "little")
        if size > 1 << 24:
            raise ValueError(f"{path}: a note segment of {size} bytes")
        f.seek(off)
        notes = f.read(size)
        pos = 0
        while pos + 12 <= len(notes):
            namesz, descsz = (int.from_bytes(notes[pos + k:pos + k + 4], "little") for k in (0, 4))
            name = notes[pos + 12:pos + 12 + namesz].rstrip(b"\0")
            desc_at = pos + 12 + (namesz + 3) // 4 * 4
            if name == b"VMCOREINFO":
                return notes[desc_at:desc_at + descsz].decode(errors="replace")
            pos = desc_at + (descsz + 3) // 4 * 4
    raise ValueError(f"{path}: no VMCOREINFO note (was QEMU run with -device vmcoreinfo?)")


def elf_build_id(path):
    """The GNU build ID note of an ELF64 little-endian file, as hex, or
    None. Reads the section headers and the note sections only."""
    with open(path, "rb") as f:
        hdr = f.read(64)
        if hdr[:4] != b"\x7fELF" or hdr[4] != 2 or hdr[5] != 1:
            raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
        shoff = int.from_bytes(hdr[0x28:0x30], "little")
        shentsize = int.from_bytes(hdr[0x3A:0x3C], "little")
        shnum = int.from_bytes(hdr[0x3C:0x3E], "little")
        f.seek(shoff)
        table = f.read(shentsize * shnum)
        for i in range(shnum):
            sh = table[i * shentsize:(i + 1) * shentsize]
            if int.from_bytes(sh[4:8], "little") != 7:  # SHT_NOTE
                continue
            off = int.from_bytes(sh[0x18:0x20], "little")
            size = int.from_bytes(sh[0x20:0x28], "little")
            f.seek(off)
            notes = f.read(size)
            pos = 0
            while pos + 12 <= len(notes):
                namesz, descsz, ntype = (int.from_bytes(notes[pos + 4 * k:pos + 4 * k + 4], "little")
                                         for k in range(3))
                name_end = pos + 12 + ((namesz + 3) & ~3)
                if ntype == 3 and notes[pos + 12:pos + 12 + namesz].rstrip(b"\0") == b"GNU":
                    return notes[name_end:name_end + descsz].hex()  # NT_GNU_BUILD_ID
                pos = name_end + ((descsz + 3) & ~3)
    return None


def text(obj_or_bytes):
    """A kernel char array or C string as text, non-printables escaped as
    fire-decode escapes them (\\xNN)."""
    raw = obj_or_bytes if isinstance(obj_or_bytes, bytes) else obj_or_bytes.string_()
    raw = raw.split(b"\0", 1)[0]
    return "".join(chr(c) if 0x20 <= c < 0x7F else f"\\x{c:02x}" for c in raw)


def kernel_release(prog):
    return text(prog["init_uts_ns"].name.release)


def enum_name(obj, prefix=""):
    """The enumerator name of an enum Object, PREFIX dropped, lower case."""
    value = obj.value_()
    for name, v in obj.type_.unqualified().enumerators:
        if v == value:
            return name[len(prefix):].lower() if name.startswith(prefix) else name
    return str(value)


# --- tasks


def _running(prog):
    """{task address: cpu} of the task executing on each present CPU: the
    per-CPU current_task (x86 6.1; pcpu_hot from 6.2), which is what
    `current` is. rq->curr is not: sched_switch's tracepoint (where
    runq_latency fires) runs after rq->curr became the next task, still
    on the previous one's stack. Present, not online: a panic without a
    crash kernel (--dump host) stops the other CPUs by taking them
    offline, and what they ran is still theirs."""
    out = {}
    for cpu in for_each_present_cpu(prog):
        if "current_task" in prog:
            cur = per_cpu(prog["current_task"], cpu)
        elif "pcpu_hot" in prog:
            cur = per_cpu(prog["pcpu_hot"], cpu).current_task
        else:
            cur = per_cpu(prog["runqueues"], cpu).curr
        out[cur.value_()] = cpu
    return out


def task_objects(prog):
    """Every task: the idle task of each present CPU (pid 0, not in the pid
    hash; one that panic() took offline has it still, and crash counts
    it), then every task the pid hash knows, threads included."""
    for cpu in for_each_present_cpu(prog):
        yield idle_task(prog, cpu)
    yield from for_each_task(prog)


def blocked_s(prog, task):
    """Seconds since TASK last ran: its CPU's run-queue clock_task minus
    the task's se.exec_start (the clock_task of its last run), or None."""
    try:
        rq = per_cpu(prog["runqueues"], task_cpu(task))
        d = rq.clock_task.value_() - task.se.exec_start.value_()
    except (KeyError, LookupError, FaultError):
        return None
    return round(d / 1e9, 3) if d >= 0 else None


def task_info(task, running):
    """One task as a dict: pid, tgid, ppid, state, comm, cpu, on_cpu,
    kthread."""
    parent = task.real_parent
    return {
        "pid": task.pid.value_(),
        "tgid": task.tgid.value_(),
        "ppid": parent.tgid.value_() if parent else 0,
        "state": task_state_to_char(task),
        "comm": text(task.comm),
        "cpu": task_cpu(task),
        "on_cpu": task.value_() in running,
        "kthread": bool(task.flags.value_() & PF_KTHREAD),
    }


def tasks(prog, state=None, comm=None):
    """[(task_struct *, info dict)] of every task, or only those in STATE
    (a ps letter: R S D T t Z X I) and/or named COMM."""
    running = _running(prog)
    out = []
    for t in task_objects(prog):
        info = task_info(t, running)
        if state is not None and info["state"] != state:
            continue
        if comm is not None and info["comm"] != comm:
            continue
        out.append((t, info))
    return out


def find_task(prog, pid):
    for t in task_objects(prog):
        if t.pid.value_() == pid:
            return t
    raise LookupError(f"no task with pid {pid}")


# --- stacks


class JitSymbols:
    """Addresses of JITed BPF programs, which drgn 0.0.22 cannot name: each
    program's kallsyms entry (aux->ksym) gives its name and range."""

    def __init__(self, prog):
        self.ranges = []
        for p in bpf_prog_for_each(prog):
            ksym = p.aux.ksym
            start, end = ksym.start.value_(), ksym.end.value_()
            if start and end > start:
                self.ranges.append((start, end, text(ksym.name)))

    def lookup(self, pc):
        for start, end, name in self.ranges:
            if start <= pc < end:
                return f"{name}+0x{pc - start:x}/0x{end - start:x}"
        return None


def stack(prog, task, jit=None):
    """The kernel stack of TASK as a list of frames: {"symbol":
    "name+0xoff/0xsize" (None for an inlined frame), "function", "inline",
    "source" ("file:line" or None), "pc"}. Raises what drgn raises when it
    cannot unwind."""
    frames = []
    for f in prog.stack_trace(task):
        fr = {"pc": f.pc, "function": f.name, "inline": f.is_inline,
              "symbol": None, "source": None}
        if not f.is_inline:
            try:
                sym = f.symbol()
                fr["symbol"] = f"{sym.name}+0x{f.pc - sym.address:x}/0x{sym.size:x}"
            except LookupError:
                fr["symbol"] = jit.lookup(f.pc) if jit else None
        try:
            path, line, _col = f.source()
            fr["source"] = f"{_short_path(prog, path)}:{line}"
        except LookupError:
            pass
        frames.append(fr)
    return frames


def _short_path(prog, path):
    """A source path relative to the kernel tree: drgn gives it as the
    compiler saw it, inside the build cache (<entry>/src, vmlinux in
    <entry>/obj)."""
    root = prog.cache.get("bpk_src_root")
    if root and path.startswith(root):
        return path[len(root):]
    return path


# --- BPF programs and maps


def _attach_points(prog):
    """{program id: attach point} for what drgn can see through links:
    raw tracepoints by name, perf-event uprobes and kprobes by target."""
    out = {}
    for link in bpf_link_for_each(prog):
        try:
            pid = link.prog.aux.id.value_()
            kind = enum_name(link.type, "BPF_LINK_TYPE_")
            if kind == "raw_tracepoint":
                rl = container_of(link, "struct bpf_raw_tp_link", "link")
                out[pid] = f"raw_tp {text(rl.btp.tp.name)}"
            elif kind == "perf_event":
                out[pid] = _perf_attach(prog, link)
            elif pid not in out:
                out[pid] = f"{kind} link"
        except (FaultError, LookupError, AttributeError) as e:
            out.setdefault(link.prog.aux.id.value_(), f"link not readable: {e}")
    return out


def _perf_attach(prog, link):
    """A perf-event link's target. libbpf makes uprobes and kprobes through
    perf_event_open: the event's trace_event_call belongs to a
    trace_probe_event whose first probe is the trace_uprobe/trace_kprobe;
    the class's reg callback tells which."""
    pl = container_of(link, "struct bpf_perf_link", "link")
    event = cast("struct perf_event *", pl.perf_file.private_data)
    call = event.tp_event
    if not call:
        return "perf event"
    reg = prog.symbol(call.member_("class").reg.value_()).name
    tpe = container_of(call, "struct trace_probe_event", "call")
    tp = list_first_entry(tpe.probes.address_of_(), "struct trace_probe", "list")
    if reg == "trace_uprobe_register":
        tu = container_of(tp, "struct trace_uprobe", "tp")
        return f"uprobe {text(tu.filename)}+0x{tu.offset.value_():x}"
    if reg == "kprobe_register":
        tk = container_of(tp, "struct trace_kprobe", "tp")
        kp = tk.rp.kp
        name = text(kp.symbol_name) if kp.symbol_name else hex(kp.addr.value_())
        return f"kprobe {name}+0x{kp.offset.value_():x}"
    return f"perf event ({reg})"


def bpf_objects(prog):
    """{"programs": [...], "maps": [...]}: id, type, name (programs: tag,
    attach point, maps used; maps: value size, BTF value type id)."""
    attach = _attach_points(prog)
    programs, maps = [], []
    for p in bpf_prog_for_each(prog):
        aux = p.aux
        pid = aux.id.value_()
        point = None
        if aux.attach_func_name:
            kind = enum_name(p.expected_attach_type, "BPF_")
            kind = kind[len("trace_"):] if kind.startswith("trace_") else kind
            point = f"{kind} {text(aux.attach_func_name)}"
        elif pid in attach:
            point = attach[pid]
        programs.append({
            "id": pid,
            "type": enum_name(p.type, "BPF_PROG_TYPE_"),
            "name": text(aux.name),
            "tag": bytes(p.tag.value_()).hex(),
            "attach": point,
            "maps": [aux.used_maps[i].id.value_() for i in range(aux.used_map_cnt.value_())],
        })
    for m in bpf_map_for_each(prog):
        maps.append({
            "id": m.id.value_(),
            "type": enum_name(m.map_type, "BPF_MAP_TYPE_"),
            "name": text(m.name),
            "value_size": m.value_size.value_(),
            "btf_value_type_id": m.btf_value_type_id.value_(),
        })
    return {"programs": programs, "maps": maps}


# --- the fire record, decoded with the map's own BTF

BTF_KIND = {1: "int", 2: "ptr", 3: "array", 4: "struct", 5: "union",
            6: "enum", 7: "fwd", 8: "typedef", 9: "volatile", 10: "const",
            11: "restrict", 12: "func", 13: "func_proto", 14: "var",
            15: "datasec", 16: "float", 17: "decl_tag", 18: "type_tag",
            19: "enum64"}
BTF_INT_CHAR = 2  # BTF_INT_ENCODING bit: a char


class MapBTF:
    """The BTF a program loaded with its maps (struct btf in kernel memory,
    kernel/bpf/btf.c), read through drgn: enough of it to decode a map
    value whose type is a DATASEC of ints, chars, arrays and structs."""

    def __init__(self, prog, btf):
        self.prog = prog
        self.btf = btf
        self.start_id = btf.start_id.value_()
        self.start_str = btf.start_str_off.value_()
        self.nr = btf.nr_types.value_()
        if btf.base_btf:
            # split BTF (modules) is not what libbpf loads for a program
            raise ValueError("map BTF is split BTF: not supported")

    def _type(self, tid):
        if not self.start_id <= tid < self.start_id + self.nr:
            raise ValueError(f"BTF type id {tid} out of range")
        addr = self.btf.types[tid - self.start_id].value_()
        name_off, info, size_or_type = (
            int.from_bytes(self.prog.read(addr + 4 * i, 4), "little") for i in range(3))
        kind = BTF_KIND.get((info >> 24) & 0x1F, f"kind{(info >> 24) & 0x1F}")
        return {"addr": addr, "name": self._str(name_off), "kind": kind,
                "vlen": info & 0xFFFF, "kflag": info >> 31, "size": size_or_type,
                "type": size_or_type}

    def _str(self, off):
        if off == 0:
            return ""
        return self.prog.read(self.btf.strings.value_() + off - self.start_str, 256).split(b"\0", 1)[0].decode()

    def _words(self, addr, n):
        raw = self.prog.read(addr, 4 * n)
        return [int.from_bytes(raw[4 * i:4 * i + 4], "little") for i in range(n)]

    def _resolve(self, tid):
        t = self._type(tid)
        while t["kind"] in ("typedef", "volatile", "const", "restrict", "type_tag"):
            t = self._type(t["type"])
        return t

    def sizeof(self, tid):
        t = self._resolve(tid)
        if t["kind"] == "array":
            elem, _idx, n = self._words(t["addr"] + 12, 3)
            return n * self.sizeof(elem)
        if t["kind"] == "ptr":
            return 8
        return t["size"]

    def decode(self, tid, raw, off=0):
        """The value of type TID at RAW[OFF:] as Python data: int, str (for
        char arrays), list, dict (struct members and DATASEC variables)."""
        t = self._resolve(tid)
        kind = t["kind"]
        if kind in ("int", "enum", "ptr"):
            size = 8 if kind == "ptr" else t["size"]
            signed = kind == "int" and self._words(t["addr"] + 12, 1)[0] >> 24 & 1
            return int.from_bytes(raw[off:off + size], "little", signed=bool(signed))
        if kind == "array":
            elem, _idx, n = self._words(t["addr"] + 12, 3)
            et = self._resolve(elem)
            if et["kind"] == "int" and et["size"] == 1 and (
                    et["name"] == "char" or self._words(et["addr"] + 12, 1)[0] >> 24 & BTF_INT_CHAR):
                return text(bytes(raw[off:off + n]))
            es = self.sizeof(elem)
            return [self.decode(elem, raw, off + i * es) for i in range(n)]
        if kind in ("struct", "union"):
            out = {}
            words = self._words(t["addr"] + 12, 3 * t["vlen"])
            for i in range(t["vlen"]):
                name_off, mtype, moff = words[3 * i:3 * i + 3]
                bits = moff & 0xFFFFFF if t["kflag"] else moff
                if t["kflag"] and moff >> 24:
                    raise ValueError(f"bitfield member in {t['name']}: not supported")
                if bits % 8:
                    raise ValueError(f"member of {t['name']} not byte aligned")
                out[self._str(name_off) or f"anon{i}"] = self.decode(mtype, raw, off + bits // 8)
            return out
        if kind == "datasec":
            out = {}
            words = self._words(t["addr"] + 12, 3 * t["vlen"])
            for i in range(t["vlen"]):
                vtype, voff, _vsize = words[3 * i:3 * i + 3]
                var = self._type(vtype)
                out[var["name"]] = self.decode(var["type"], raw, off + voff)
            return out
        raise ValueError(f"BTF kind {kind} ({t['name']}) not decoded")


def fire_maps(prog):
    """The .data.fire maps: [(struct bpf_map *, value address)]."""
    out = []
    for m in bpf_map_for_each(prog):
        if text(m.name) == ".data.fire":
            arr = container_of(m, "struct bpf_array", "map")
            out.append((m, arr.value.address_))
    return out


def fire(prog, consts):
    """Every .data.fire map's trigger state, decoded with the map's BTF:
    [{"map_id", "program", "layout": "map BTF ...", "state": {...},
    "record": bool, "fields": {...}}]. "fields" are the record in the
    names fire-decode prints (matches, trigger, hit, pid, tgid, cpu, comm,
    action, time_ns, detail), plus any other member of the state."""
    users = {}
    for p in bpf_prog_for_each(prog):
        aux = p.aux
        for i in range(aux.used_map_cnt.value_()):
            users.setdefault(aux.used_maps[i].id.value_(), []).append(text(aux.name))
    out = []
    for m, addr in fire_maps(prog):
        mid = m.id.value_()
        entry = {"map_id": mid, "program": ",".join(users.get(mid, [])) or None}
        if not m.btf or not m.btf_value_type_id:
            raise ValueError(f"map {mid}: no BTF for its value")
        btf = MapBTF(prog, m.btf)
        raw = prog.read(addr, m.value_size.value_())
        sec = btf.decode(m.btf_value_type_id.value_(), raw)
        if len(sec) != 1:
            raise ValueError(f"map {mid}: {len(sec)} variables in .data.fire, expected one")
        (var, state), = sec.items()
        entry["layout"] = f"map BTF: variable {var}, {m.value_size.value_()} bytes"
        entry["state"] = state
        rec = state.get("fire", {})
        entry["record"] = rec.get("magic") == consts["magic"]
        fields = {"matches": state.get("matches")}
        for k, v in state.items():
            if k not in ("matches", "fire"):
                fields[k] = v  # fields appended to trigger_state after fire.h
        if entry["record"]:
            fields.update({
                "trigger": rec["trigger"], "hit": rec["hits"], "pid": rec["pid"],
                "tgid": rec["tgid"], "cpu": rec["cpu"], "comm": rec["comm"],
                "action": consts["actions"].get(rec["action"], "unknown"),
                "action_code": rec["action"],
                "time_ns": rec["time_ns"], "detail": rec["detail"]})
            for k, v in rec.items():
                if k not in ("magic", "trigger", "hits", "pid", "tgid", "cpu",
                             "comm", "action", "time_ns", "detail"):
                    fields[k] = v
        entry["fields"] = fields
        out.append(entry)
    return out


# --- the fired program's own maps, decoded with their BTF

OWN_MAP_ENTRIES = 32  # entries shown of a map; its count is whole


def _hash_entries(prog, m, limit):
    """(total, [(key bytes, value bytes)]) of a hash map (bpf_htab: its
    buckets' hlist_nulls of htab_elem, the key at elem->key, the value
    after the key rounded up to 8 bytes)."""
    from drgn.helpers.linux.list_nulls import hlist_nulls_for_each_entry
    htab = container_of(m, "struct bpf_htab", "map")
    ks, vs = m.key_size.value_(), m.value_size.value_()
    voff = (ks + 7) // 8 * 8
    total, out = 0, []
    nb = htab.n_buckets.value_()
    bsize = prog.type("struct bucket").size
    base = htab.buckets.value_()
    # the bucket array in one read: an empty bucket's first pointer is a
    # nulls marker (low bit set); only the others are walked
    raw = prog.read(base, nb * bsize)
    for b in range(nb):
        if int.from_bytes(raw[b * bsize:b * bsize + 8], "little") & 1:
            continue
        head = htab.buckets[b].head.address_of_()
        for e in hlist_nulls_for_each_entry("struct htab_elem", head, "hash_node"):
            total += 1
            if len(out) < limit:
                key = e.key.address_of_().value_()
                out.append((prog.read(key, ks), prog.read(key + voff, vs)))
    return total, out


def _array_entries(prog, m, limit):
    """(total, [(key bytes, value bytes)]) of an array map: every index."""
    arr = container_of(m, "struct bpf_array", "map")
    n, vs, es = m.max_entries.value_(), m.value_size.value_(), arr.elem_size.value_()
    base = arr.value.address_
    out = [(i.to_bytes(4, "little"), prog.read(base + i * es, vs)) for i in range(min(n, limit))]
    return n, out


def own_maps(prog):
    """The maps of the programs that own a .data.fire map (the trigger's),
    other than libbpf's internal ones (.rodata, .data, .bss, .data.fire):
    [{"map_id", "name", "type", "key_size", "value_size", "max_entries",
    "entries_total", "entries": [{"key", "value"}], "note"}], key and value
    decoded with the map's own BTF where it has one, else hex."""
    fire_ids = {m.id.value_() for m, _ in fire_maps(prog)}
    wanted = {}
    for p in bpf_prog_for_each(prog):
        aux = p.aux
        used = [aux.used_maps[i] for i in range(aux.used_map_cnt.value_())]
        if not any(u.id.value_() in fire_ids for u in used):
            continue
        for u in used:
            if "." not in text(u.name):
                wanted[u.id.value_()] = u
    out = []
    for mid in sorted(wanted):
        m = wanted[mid]
        kind = enum_name(m.map_type, "BPF_MAP_TYPE_")
        entry = {"map_id": mid, "name": text(m.name), "type": kind,
                 "key_size": m.key_size.value_(), "value_size": m.value_size.value_(),
                 "max_entries": m.max_entries.value_(), "entries_total": None,
                 "entries": [], "note": None}
        try:
            if kind in ("hash", "lru_hash"):
                total, raw = _hash_entries(prog, m, OWN_MAP_ENTRIES)
            elif kind == "array":
                total, raw = _array_entries(prog, m, OWN_MAP_ENTRIES)
        except FaultError as e:
            entry["note"] = f"its entries cannot be read from the dump: {e}"
            out.append(entry)
            continue
        if kind not in ("hash", "lru_hash", "array"):
            entry["note"] = f"a {kind} map: its entries are not read"
            out.append(entry)
            continue
        entry["entries_total"] = total
        try:
            btf = MapBTF(prog, m.btf) if m.btf and m.btf_value_type_id.value_() else None
        except (ValueError, FaultError) as e:
            btf = None
            entry["note"] = f"its BTF cannot be read: {e}; hex"
        kt, vt = m.btf_key_type_id.value_(), m.btf_value_type_id.value_()
        for k, v in raw:
            try:
                entry["entries"].append({"key": btf.decode(kt, k) if btf and kt else k.hex(),
                                         "value": btf.decode(vt, v) if btf else v.hex()})
            except (ValueError, FaultError) as e:
                entry["note"] = f"BTF decode: {e}; hex"
                entry["entries"].append({"key": k.hex(), "value": v.hex()})
        if not btf and not entry["note"]:
            entry["note"] = "no BTF for the map: hex"
        out.append(entry)
    return out


# --- files and memory of the user processes


def processes(prog, max_files=16):
    """Per process (thread-group leader with an mm): exe, open files (fd:
    path, the first MAX_FILES), and the mm's counters. Plain fields of
    mm_struct and the fd table: both read reliably on 6.1."""
    page = prog["PAGE_SIZE"].value_()
    counters = {name: prog[name].value_() for name in
                ("MM_FILEPAGES", "MM_ANONPAGES", "MM_SHMEMPAGES", "MM_SWAPENTS")}
    out = []
    for t in for_each_task(prog):
        if t.pid != t.tgid or not t.mm:
            continue
        mm = t.mm
        entry = {"pid": t.pid.value_(), "comm": text(t.comm), "exe": None,
                 "fds": 0, "files": [], "mm": {}}
        if mm.exe_file:
            entry["exe"] = text(d_path(mm.exe_file.f_path.address_of_()))
        if t.files:
            for fd, f in for_each_file(t):
                entry["fds"] += 1
                if len(entry["files"]) < max_files:
                    entry["files"].append({"fd": fd, "path": file_name(f)})
        rss = {}
        for name, idx in counters.items():
            if mm.rss_stat.type_.kind == drgn.TypeKind.ARRAY:
                # 6.2 on: a percpu_counter per kind, its per-CPU parts not
                # yet folded into its count
                v = percpu_counter_sum(mm.rss_stat[idx])
            else:
                v = mm.rss_stat.count[idx].counter.value_()
                # SPLIT_RSS_COUNTING: each thread caches a delta not yet
                # folded into the mm's counters
                if hasattr(t, "rss_stat"):
                    for th in _threads(prog, t):
                        v += th.rss_stat.count[idx].value_()
            rss[name[3:].lower()] = v * page // 1024
        entry["mm"] = {"total_vm_kib": mm.total_vm.value_() * page // 1024,
                       "map_count": mm.map_count.value_(),
                       "rss_kib": rss}
        out.append(entry)
    return out


VM_FLAGS = ((0x1, "r"), (0x2, "w"), (0x4, "x"))
VM_SHARED = 0x8


def vmas(prog, task):
    """The memory map of TASK as /proc/PID/maps shows it: [{"start", "end",
    "perms" ("rwxp"), "pgoff", "file"}]; [] for a kernel thread (no mm).
    None when this drgn has no VMA walker (not_shown() says so)."""
    if _for_each_vma is None:
        return None
    if not task.mm:
        return []
    out = []
    for v in _for_each_vma(task.mm):
        flags = v.vm_flags.value_()
        perms = "".join(c if flags & bit else "-" for bit, c in VM_FLAGS) + ("s" if flags & VM_SHARED else "p")
        out.append({"start": v.vm_start.value_(), "end": v.vm_end.value_(), "perms": perms,
                    "pgoff": v.vm_pgoff.value_() * prog["PAGE_SIZE"].value_(),
                    "file": file_name(v.vm_file) if v.vm_file else None})
    return out


def file_name(f):
    """A struct file's path; a pipe or socket as pipe:[ino] / socket:[ino]
    as /proc shows it (drgn's d_path gives only "[pipefs]": it does not
    call the dentry's d_dname)."""
    path = text(d_path(f.f_path.address_of_()))
    if path in ("[pipefs]", "[sockfs]"):
        return f"{path[1:-3]}:[{f.f_inode.i_ino.value_()}]".replace("sock:", "socket:")
    return path


def _threads(prog, leader):
    yield leader
    for th in list_for_each_entry("struct task_struct", leader.signal.thread_head.address_of_(), "thread_node"):
        if th.value_() != leader.value_():
            yield th


# --- the panic


def panic_info(prog):
    """What the kernel log in the dump says about its end, by the texts of
    lib/console-patterns (bpk_protocol.evidence): the panic message (None
    if nothing called panic(): a crash_kexec trigger, or an oops with
    panic_on_oops, which goes to crash_kexec from oops_end()), the oops
    lines (BUG:, Oops: ...), the first sysrq, NMI and WARNING lines, and
    the fatal line. Only the kernel's own records count (facility
    LOG_KERN): a task writing "Kernel panic - not syncing: ..." to /dev/kmsg
    gets LOG_USER whatever it asks for, and the dump tells the two apart
    where the console cannot."""
    return bpk_protocol.evidence(r.text.decode(errors="surrogateescape")
                                 for r in get_printk_records(prog) if r.facility == LOG_KERN)


# The tasks the kernel's own detectors name in the log: the hung-task
# detector's blocked task, the soft-lockup detector's task on the stuck
# CPU, the tasks a preemptible RCU grace period waits on, the task running
# on each CPU an RCU stall warning names (in the dump, not the log: the log
# names only the CPU). A task the log
# only names (a comm and pid printed by a detector) is not trusted until
# the dump has it: waits() and task_list() look each pid up there.
LOG_NAMED = (
    ("hung", re.compile(r"INFO: task .{1,16}:(\d+) blocked for more than \d+ seconds")),
    ("stuck", re.compile(r"soft lockup - CPU#\d+ stuck for \d+s! \[.{1,16}:(\d+)\]")),
    ("rcu_blocking", re.compile(r"Tasks blocked on level-\d+ rcu_node .*?((?: P\d+)+)")),
    ("rcu_stalling", re.compile(r"^rcu:\s+(\d+)-\S*: \(")),
)


def log_named_tasks(prog):
    """[{"role", "pid"}] of the tasks the detectors' log lines name, the
    first mention of each pid kept, in log order."""
    out, seen = [], set()
    on_cpu = None
    for r in get_printk_records(prog):
        if r.facility != LOG_KERN:
            continue
        line = r.text.decode(errors="surrogateescape")
        for role, pat in LOG_NAMED:
            m = pat.search(line)
            if not m:
                continue
            if role == "rcu_blocking":
                pids = [int(p) for p in re.findall(r"\d+", m.group(1))]
            elif role == "rcu_stalling":
                if on_cpu is None:
                    on_cpu = {cpu: Object(prog, "struct task_struct *", value=addr).pid.value_()
                              for addr, cpu in _running(prog).items()}
                # the idle task of a CPU stalled in an interrupt: no task to follow
                pids = [p for p in (on_cpu.get(int(m.group(1))),) if p]
            else:
                pids = [int(m.group(1))]
            for pid in pids:
                if pid not in seen:
                    seen.add(pid)
                    out.append({"role": role, "pid": pid, "from": "kernel log"})
    return out


def crashed_task(prog):
    return prog.crashed_thread().object


# --- everything the report needs, section by section


def collect(prog, consts, stack_pids=()):
    """The drgn part's facts as a dict; a section that fails leaves its
    error in "errors" and the others go on."""
    facts = {"errors": []}
    timings = {}

    def section(name, fn):
        t0 = time.monotonic()
        try:
            facts[name] = fn()
        except Exception as e:  # noqa: BLE001 - any failure is reported per section
            facts[name] = None
            facts["errors"].append(f"{name}: {type(e).__name__}: {e}")
        timings[name] = round(time.monotonic() - t0, 3)

    section("release", lambda: kernel_release(prog))
    section("panic", lambda: panic_info(prog))
    section("bpf", lambda: bpf_objects(prog))
    section("fire", lambda: fire(prog, consts))
    section("own_maps", lambda: own_maps(prog))
    # Tasks a fire record names (hung_pid=, victim_pid=, waited_pid=): their
    # stacks are shown, the hung task's first.
    named = []
    for rec in facts["fire"] or []:
        for role, pid in re.findall(r"\b(\w+)_pid=(\d+)", rec["fields"].get("detail") or ""):
            named.append({"role": role, "pid": int(pid), "from": "fire record"})
    section("log_named", lambda: log_named_tasks(prog))
    for n in facts["log_named"] or []:
        if all(n["pid"] != m["pid"] for m in named):
            named.append(n)
    facts["named_tasks"] = named

    def crashed():
        t = crashed_task(prog)
        return {"pid": t.pid.value_(), "comm": text(t.comm), "cpu": task_cpu(t)}
    section("crashed", crashed)

    def waits():
        running = _running(prog)
        named_pids = {n["pid"] for n in named}

        def info_of(t):
            info = task_info(t, running)
            info["blocked_s"] = blocked_s(prog, t) if info["state"] in ("D", "S") else None
            return info
        blocked = []
        for t in task_objects(prog):
            if task_state_to_char(t) == "D" or t.pid.value_() in named_pids:
                blocked.append((t, info_of(t)))
        return bpk_waits.wait_graph(prog, blocked, info_of)
    section("waits", waits)

    def task_list():
        jit = JitSymbols(prog)
        wanted = set(stack_pids) | {n["pid"] for n in named}
        # the holders of what blocked tasks wait on: their stacks too
        for w in (facts.get("waits") or {}).get("tasks", []):
            if w.get("owner") and w["owner"].get("pid") is not None:
                wanted.add(w["owner"]["pid"])
        if facts.get("crashed"):
            wanted.add(facts["crashed"]["pid"])
        out = []
        for t, info in tasks(prog):
            if info["state"] == "D" or info["on_cpu"] or info["pid"] in wanted:
                try:
                    info["stack"] = stack(prog, t, jit)
                except Exception as e:  # noqa: BLE001 - unwinding one task may fail
                    info["stack_error"] = f"{type(e).__name__}: {e}"
            out.append(info)
        return out
    section("tasks", task_list)
    section("processes", lambda: processes(prog))

    def crashed_vmas():
        t = crashed_task(prog)
        maps = vmas(prog, t)
        return None if maps is None else {"pid": t.pid.value_(), "comm": text(t.comm),
                                          "kthread": not t.mm, "list": maps}
    section("vmas", crashed_vmas)
    facts["not_shown"] = not_shown()
    facts["section_s"] = timings
    return facts
