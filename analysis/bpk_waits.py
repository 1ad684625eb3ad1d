# SPDX-License-Identifier: GPL-2.0
"""Who blocked whom: for every blocked task, what it waits on (read from
the sleeping function's own variables on its stack), the holder where the
kernel records one, followed to the end of the chain; a chain that comes
back to a task already on it is a deadlock.

The lock a task waits on is the argument of the blocking function in its
stack (drgn reads it from the frame's DWARF locations): `lock` of
__mutex_lock, `sem` of the rwsem slow paths and of __down, `x` of
wait_for_completion, `folio` of folio_wait_bit_common. The holder is what
the lock itself records: a mutex's owner and a write-held rwsem's owner
(their low bits are flags), an rt_mutex's owner. Semaphores, completions,
wait queues, page locks and percpu rwsems record none: the report says so
and lists the tasks waiting on the same object instead of guessing.

Where drgn has helpers for a holder (drgn.helpers.linux.locking, drgn
0.1.0 on: mutex_owner, rwsem_locked, rwsem_owner) they read it, and the
result says so; older drgn (Debian 12's 0.0.22, trixie's 0.0.31) gets the
same reading done here. rt_mutex has no drgn helper: always read here.

Plain data out (dicts), as bpk_drgn's readers.
"""

from drgn import FaultError, Object

try:
    from drgn.helpers.linux.locking import RwsemLocked, mutex_owner, rwsem_locked, rwsem_owner
    OWNERS_READ_BY = "drgn.helpers.linux.locking (mutex_owner, rwsem_locked, rwsem_owner)"
except ImportError:
    mutex_owner = rwsem_locked = rwsem_owner = RwsemLocked = None
    OWNERS_READ_BY = "bpk_waits (this drgn has no drgn.helpers.linux.locking)"

# (functions, the frame variable that names the object, kind); the first
# frame of a blocked stack that is in one of these names what it waits on
WAIT_FRAMES = [
    (("__mutex_lock_common", "__mutex_lock", "__mutex_lock_slowpath", "mutex_lock",
      "mutex_lock_killable", "mutex_lock_interruptible", "__ww_mutex_lock"), "lock", "mutex"),
    (("rwsem_down_write_slowpath",), "sem", "rwsem"),
    (("rwsem_down_read_slowpath",), "sem", "rwsem"),
    (("percpu_rwsem_wait", "percpu_down_write", "__percpu_down_read"), "sem", "percpu-rwsem"),
    (("rt_mutex_slowlock_block", "__rt_mutex_slowlock", "rt_mutex_slowlock",
      "rtlock_slowlock_locked", "rt_mutex_slowlock_locked"), "lock", "rt_mutex"),
    (("__down_common", "__down", "__down_killable", "__down_interruptible", "__down_timeout",
      "down", "down_killable", "down_interruptible"), "sem", "semaphore"),
    (("do_wait_for_common", "__wait_for_common", "wait_for_common", "wait_for_completion",
      "wait_for_completion_killable", "wait_for_completion_interruptible",
      "wait_for_completion_timeout", "wait_for_completion_io"), "x", "completion"),
    (("folio_wait_bit_common", "folio_wait_bit", "__folio_lock", "__folio_lock_killable"), "folio", "page"),
]
FRAME_KIND = {fn: (var, kind) for fns, var, kind in WAIT_FRAMES for fn in fns}
# the kinds whose holder the kernel records, and their structs
OWNED = {"mutex": "struct mutex", "rwsem": "struct rw_semaphore", "rt_mutex": "struct rt_mutex_base"}
OWNER_FLAGS = {"mutex": 0x7, "rwsem": 0x7, "rt_mutex": 0x1}  # MUTEX_FLAGS, RWSEM_OWNER_FLAGS_MASK, RT_MUTEX_HAS_WAITERS
RWSEM_READER_OWNED = 0x1


def _symbol(prog, addr):
    try:
        s = prog.symbol(addr)
        return s.name if addr == s.address else f"{s.name}+0x{addr - s.address:x}"
    except LookupError:
        return None


def _owner(prog, kind, obj):
    """(owner task_struct * or None, note)"""
    if mutex_owner is not None and kind in ("mutex", "rwsem"):
        if kind == "rwsem" and rwsem_locked(obj.address_of_()) == RwsemLocked.READ_LOCKED:
            return None, "held for reading: the kernel records no reader (the last one's pointer is a hint only)"
        owner = (mutex_owner if kind == "mutex" else rwsem_owner)(obj.address_of_())
        if not owner.value_():
            return None, "no owner recorded (free, or being handed over)"
        return owner, None
    if kind == "mutex":
        word = obj.owner.counter.value_()
    elif kind == "rwsem":
        word = obj.owner.counter.value_()
        if word & RWSEM_READER_OWNED:
            return None, "held for reading: the kernel records no reader (the last one's pointer is a hint only)"
    elif kind == "rt_mutex":
        word = obj.owner.value_()
    else:
        return None, f"a {kind} records no owner"
    addr = word & ~OWNER_FLAGS[kind]
    if not addr:
        return None, "no owner recorded (free, or being handed over)"
    return Object(prog, "struct task_struct *", addr), None


def wait_of(prog, task, stack_frames=None):
    """What TASK waits on: {"kind", "address", "symbol", "function"}, or
    {"kind": None, "function": the sleeping function} when no frame names
    an object; None when its stack cannot be read."""
    first = None
    try:
        frames = stack_frames if stack_frames is not None else prog.stack_trace(task)
        for f in frames:
            name = f.name
            if name is None:
                continue
            if first is None and name not in ("context_switch", "__schedule", "schedule",
                                              "schedule_preempt_disabled", "schedule_timeout", "io_schedule"):
                first = name
            hit = FRAME_KIND.get(name)
            if not hit:
                continue
            var, kind = hit
            try:
                v = f[var]
            except (KeyError, LookupError):
                continue
            if v.absent_:
                continue
            obj = v.read_() if v.type_.kind.name != "POINTER" else v
            addr = obj.value_()
            if not addr:
                continue
            return {"kind": kind, "address": addr, "symbol": _symbol(prog, addr), "function": name}
    except (ValueError, FaultError):
        return None
    return {"kind": None, "address": None, "symbol": None, "function": first}


def wait_graph(prog, blocked, info_of):
    """BLOCKED: [(task_struct *, info dict)] of the tasks to explain (D
    state, and the ones a cause names). INFO_OF(task) -> info dict for
    any task (an owner may not be blocked). Returns {"tasks": [...],
    "chains": [...], "deadlocks": [...]}: per blocked task its wait, the
    owner and the waiters on the same object; per blocked task the chain
    task -> object -> owner -> ... to its end; each cycle once."""
    waits = {}  # task address -> entry
    objs = {}  # object address -> [pids waiting]
    tasks_by_addr = {}

    def entry(t, info):
        a = t.value_()
        if a in waits:
            return waits[a]
        tasks_by_addr[a] = (t, info)
        w = wait_of(prog, t)
        e = {"pid": info["pid"], "comm": info["comm"], "state": info["state"],
             "blocked_s": info.get("blocked_s"), "waits": w, "owner": None,
             "owner_note": None, "waiters": []}
        waits[a] = e
        if w and w["address"]:
            objs.setdefault(w["address"], []).append(info["pid"])
            kind_type = OWNED.get(w["kind"])
            if kind_type:
                try:
                    owner, note = _owner(prog, w["kind"], Object(prog, kind_type, address=w["address"]))
                except (LookupError, FaultError) as ex:
                    owner, note = None, f"cannot read the {w['kind']}: {ex}"
                if owner is not None:
                    e["owner"] = owner.value_()
                    e["owner_task"] = owner
                e["owner_note"] = note
            else:
                e["owner_note"] = f"a {w['kind']} records no owner"
        return e

    for t, info in blocked:
        entry(t, info)
    # owners are followed too: an owner may itself wait (the chain)
    todo = [e for e in waits.values() if "owner_task" in e]
    while todo:
        e = todo.pop()
        ot = e.pop("owner_task")
        oa = ot.value_()
        if oa not in waits:
            try:
                oinfo = info_of(ot)
            except FaultError as ex:
                e["owner_note"] = f"owner at 0x{oa:x} unreadable: {ex}"
                e["owner"] = None
                continue
            oe = entry(ot, oinfo)
            if "owner_task" in oe:
                todo.append(oe)
    for a, e in waits.items():
        if e["waits"] and e["waits"]["address"]:
            e["waiters"] = sorted(p for p in objs[e["waits"]["address"]] if p != e["pid"])
        if e["owner"] is not None:
            e["owner"] = {"pid": waits[e["owner"]]["pid"], "comm": waits[e["owner"]]["comm"]} \
                if e["owner"] in waits else {"pid": None, "comm": None, "address": e["owner"]}
    by_pid = {e["pid"]: e for e in waits.values()}

    def chain_of(e):
        """[step ...]: each step a task and what it waits on; ends at a task
        that waits on nothing known, an object with no recorded owner, or a
        task already on the chain (then "cycle" names where)."""
        steps, seen = [], []
        cur = e
        while cur is not None:
            if cur["pid"] in seen:
                return steps, seen[seen.index(cur["pid"]):]
            seen.append(cur["pid"])
            steps.append({"pid": cur["pid"], "comm": cur["comm"], "state": cur["state"],
                          "waits": cur["waits"], "owner_note": cur["owner_note"]})
            nxt = cur["owner"]["pid"] if cur["owner"] else None
            cur = by_pid.get(nxt) if nxt is not None else None
        return steps, None

    chains, deadlocks, seen_cycles = [], [], set()
    for t, info in blocked:
        e = waits[t.value_()]
        steps, cycle = chain_of(e)
        chains.append({"from": e["pid"], "steps": steps, "cycle": cycle})
        if cycle and frozenset(cycle) not in seen_cycles:
            seen_cycles.add(frozenset(cycle))
            deadlocks.append([{"pid": p, "comm": by_pid[p]["comm"], "waits": by_pid[p]["waits"]} for p in cycle])
    out = sorted(waits.values(), key=lambda e: -(e["blocked_s"] or 0))
    return {"tasks": out, "chains": chains, "deadlocks": deadlocks, "owners_read_by": OWNERS_READ_BY}
