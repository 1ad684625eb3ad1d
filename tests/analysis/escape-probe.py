#!/usr/bin/env python3
"""What a compromised analyzer would try, each said as one line:

    PROBE NAME allowed|refused: DETAIL

    escape-probe.py --write DIR... [--connect PORT]

whether it runs as root or with any capability, open_by_handle_at on a
handle of / (the "Shocker" read of any host file),
ptrace of its own child, bpf(), a write into each DIR (the runs dir, the
user's home), a TCP connect to 127.0.0.1:PORT, and TIOCSTI into a terminal
it made its controlling one. Stdlib only: it runs under the toolbox's
python3 as well as the host's."""

import ctypes
import os
import pty
import socket
import struct
import sys

libc = ctypes.CDLL(None, use_errno=True)


def say(name, ok, detail):
    print(f"PROBE {name} {'allowed' if ok else 'refused'}: {detail}", flush=True)


def err():
    e = ctypes.get_errno()
    return f"{os.strerror(e)} (errno {e})"


def shocker():
    # struct file_handle: handle_bytes, handle_type, then the bytes
    size = 128
    buf = ctypes.create_string_buffer(8 + size)
    struct.pack_into("=Ii", buf, 0, size, 0)
    mount_id = ctypes.c_int()
    r = libc.syscall(303, -100, b"/", buf, ctypes.byref(mount_id), 0)  # name_to_handle_at
    if r != 0:
        return say("open_by_handle_at", False, "name_to_handle_at: " + err())
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
    r = libc.syscall(304, fd, buf, os.O_RDONLY | os.O_DIRECTORY)  # open_by_handle_at
    os.close(fd)
    if r >= 0:
        os.close(r)
        return say("open_by_handle_at", True, "opened / by its handle")
    say("open_by_handle_at", False, err())


def ptrace_child():
    pid = os.fork()
    if pid == 0:
        os.read(os.pipe()[0], 1)  # wait for ever
        os._exit(0)
    r = libc.syscall(101, 16, pid, 0, 0)  # PTRACE_ATTACH
    detail = "attached" if r == 0 else err()
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    say("ptrace", r == 0, detail)


def bpf():
    attr = ctypes.create_string_buffer(128)
    struct.pack_into("=IIII", attr, 0, 2, 4, 4, 1)  # BPF_MAP_TYPE_ARRAY, 4, 4, 1
    r = libc.syscall(321, 0, attr, 128)  # BPF_MAP_CREATE
    if r >= 0:
        os.close(r)
    say("bpf", r >= 0, "a map made" if r >= 0 else err())


def write_into(d):
    path = os.path.join(d, f"escape-probe.{os.getpid()}")
    try:
        with open(path, "w") as f:
            f.write("written from the analyzer\n")
        os.unlink(path)
        say(f"write:{d}", True, "wrote " + path)
    except OSError as e:
        say(f"write:{d}", False, f"{e.strerror} (errno {e.errno})")


def connect(port):
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect(("127.0.0.1", port))
        say("connect", True, f"127.0.0.1:{port}")
    except OSError as e:
        say("connect", False, f"{e.strerror or e} (errno {e.errno})")
    finally:
        s.close()


def tiocsti():
    # a child in a session of its own, a pty its controlling terminal:
    # TIOCSTI there needs no privilege, so only a filter refuses it
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.setsid()
            master, slave = pty.openpty()
            name = os.ttyname(slave)
            fd = os.open(name, os.O_RDWR)  # now the controlling terminal
            ch = ctypes.c_char(b"x")
            rc = libc.ioctl(fd, 0x5412, ctypes.byref(ch))
            msg = "pushed a byte" if rc == 0 else err()
            os.write(w, f"{0 if rc == 0 else 1} {msg}".encode())
        except OSError as e:
            os.write(w, f"2 {e}".encode())
        os._exit(0)
    os.close(w)
    out = os.read(r, 200).decode()
    os.waitpid(pid, 0)
    code, _, detail = out.partition(" ")
    say("tiocsti", code == "0", detail or "no answer")


def privileged():
    # root, or any capability at all in effect
    with open("/proc/self/status", encoding="ascii") as f:
        cap = next((ln.split()[1] for ln in f if ln.startswith("CapEff:")), "?")
    uid = os.geteuid()
    say("privileged", uid == 0 or cap.strip("0") != "", f"uid {uid}, CapEff {cap}")


def main(argv):
    dirs, port = [], None
    i = 0
    while i < len(argv):
        if argv[i] == "--write" and i + 1 < len(argv):
            dirs.append(argv[i + 1])
            i += 2
        elif argv[i] == "--connect" and i + 1 < len(argv):
            port = int(argv[i + 1])
            i += 2
        else:
            print(f"escape-probe.py: unknown argument {argv[i]}", file=sys.stderr)
            return 2
    privileged()
    shocker()
    ptrace_child()
    bpf()
    for d in dirs:
        write_into(d)
    if port is not None:
        connect(port)
    tiocsti()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
