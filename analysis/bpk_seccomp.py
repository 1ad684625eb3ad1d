#!/usr/bin/python3
"""The analyzers' seccomp filter: crash and drgn are large C parsers fed a
vmcore the guest shaped, so a compromise of theirs must stay inside.

    bpk_seccomp.py --bpf > FILE        the filter as a cBPF program, for
                                       bwrap --seccomp FD (toolbox.sh)
    bpk_seccomp.py --exec -- CMD ...   CMD under the filter (no new
                                       privileges): Debian 12's analyzers,
                                       which run without bubblewrap; run
                                       by root, as uid 65534 of a user
                                       namespace of its own (DROPPED_UID)
    bpk_seccomp.py --list              what is refused, one line each

Refused with EPERM: the calls that reach past a sandbox or into the host
kernel (open_by_handle_at and name_to_handle_at, the "Shocker" escape;
ptrace and process_vm_*; the keyring; bpf; perf_event_open; the mount
family, namespaces and pivot_root; module and kexec loading;
userfaultfd), and ioctl(TIOCSTI), which pushes keystrokes into the
terminal an interactive analyzer shares with the user. TIOCSTI is matched
on the request's low 32 bits, as the kernel reads it (a request with high
bits set is the known bypass). Any other architecture's calls (int 0x80,
x32) are refused whole. Stdlib only."""

import ctypes
import os
import struct
import sys

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
EPERM = 1
TIOCSTI = 0x5412
SYS_IOCTL = 16

# x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl)
DENIED = {
    "ptrace": 101, "pivot_root": 155, "mount": 165, "umount2": 166,
    "init_module": 175, "delete_module": 176, "kexec_load": 246,
    "add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272,
    "perf_event_open": 298, "name_to_handle_at": 303,
    "open_by_handle_at": 304, "setns": 308, "process_vm_readv": 310,
    "process_vm_writev": 311, "finit_module": 313, "kexec_file_load": 320,
    "bpf": 321, "userfaultfd": 323, "open_tree": 428, "move_mount": 429,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442,
}

# classic BPF
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
RET_K = 0x06
OFF_NR, OFF_ARCH, OFF_ARG1_LO = 0, 4, 24  # struct seccomp_data, little-endian


def program():
    """[(code, jt, jf, k)]: the filter. cBPF jumps are relative: from
    instruction i to t is t - i - 1."""
    nrs = sorted(DENIED.values())
    allow = 5 + len(nrs)      # ret ALLOW
    ioctl_at = allow + 1      # load the request, compare it
    deny = ioctl_at + 2       # ret ERRNO(EPERM)
    allow2 = deny + 1         # ret ALLOW (an ioctl that is not TIOCSTI)
    prog = [
        (LD_W_ABS, 0, 0, OFF_ARCH),
        (JEQ_K, 0, deny - 2, AUDIT_ARCH_X86_64),
        (LD_W_ABS, 0, 0, OFF_NR),
        (JGE_K, deny - 4, 0, X32_SYSCALL_BIT),
        (JEQ_K, ioctl_at - 5, 0, SYS_IOCTL),
    ]
    for i, nr in enumerate(nrs):
        prog.append((JEQ_K, deny - (5 + i) - 1, 0, nr))
    prog += [
        (RET_K, 0, 0, SECCOMP_RET_ALLOW),
        (LD_W_ABS, 0, 0, OFF_ARG1_LO),
        (JEQ_K, deny - (ioctl_at + 1) - 1, allow2 - (ioctl_at + 1) - 1, TIOCSTI),
        (RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM),
        (RET_K, 0, 0, SECCOMP_RET_ALLOW),
    ]
    for i, (_, jt, jf, _) in enumerate(prog):
        assert 0 <= jt < 256 and 0 <= jf < 256, (i, jt, jf)
    return prog


def bpf_bytes():
    return b"".join(struct.pack("=HBBI", *ins) for ins in program())


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def apply():
    """This process (and what it execs) under the filter; OSError if the
    kernel refuses it."""
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
    code = bpf_bytes()
    buf = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "prctl(PR_SET_NO_NEW_PRIVS): " + os.strerror(e))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "prctl(PR_SET_SECCOMP): " + os.strerror(e))


# The uid root's analyzers run as: nobody, in a user namespace whose one
# uid is root's. Not a host account of its own: in the host's namespace
# it holds no capability, so it reads only what root owns or anyone may.
DROPPED_UID = 65534


def drop_root():
    """Root only: this process into a user namespace of its own in which
    it is DROPPED_UID (mapped to root's uid outside), so that the command
    it execs has no capability at all; OSError if the kernel refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    CLONE_NEWUSER = 0x10000000
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(CLONE_NEWUSER) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "unshare(CLONE_NEWUSER): " + os.strerror(e))
    for path, text in (("/proc/self/setgroups", "deny"),
                       ("/proc/self/uid_map", f"{DROPPED_UID} {uid} 1"),
                       ("/proc/self/gid_map", f"{DROPPED_UID} {gid} 1")):
        with open(path, "w", encoding="ascii") as f:
            f.write(text)
    # the namespace's own capabilities go with the exec: a uid other than
    # the namespace's 0 keeps none
    os.setresgid(DROPPED_UID, DROPPED_UID, DROPPED_UID)
    os.setresuid(DROPPED_UID, DROPPED_UID, DROPPED_UID)


def main(argv):
    if argv[:1] == ["--bpf"] and len(argv) == 1:
        sys.stdout.buffer.write(bpf_bytes())
        return 0
    if argv[:1] == ["--list"] and len(argv) == 1:
        for name in sorted(DENIED, key=DENIED.get):
            print(f"{name} ({DENIED[name]})")
        print(f"ioctl TIOCSTI (0x{TIOCSTI:x}, on the request's low 32 bits)")
        print("every call of another architecture (int 0x80, x32)")
        return 0
    if argv[:2] == ["--exec", "--"] and len(argv) > 2:
        try:
            if os.geteuid() == 0:
                try:
                    drop_root()
                except OSError as e:
                    # (user namespaces turned off for root too): said,
                    # and the filter still applies
                    print(f"bpk_seccomp.py: no uid drop for {argv[2]}: {e.strerror}: it runs as root, "
                          "under the filter only", file=sys.stderr)
            apply()
            os.execvp(argv[2], argv[2:])
        except OSError as e:
            print(f"bpk_seccomp.py: error: {argv[2]}: {e.strerror}", file=sys.stderr)
            return 127 if e.errno == 2 else 1
    print("usage: bpk_seccomp.py --bpf | --list | --exec -- CMD [ARGS...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
