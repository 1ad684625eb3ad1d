#!/usr/bin/python3
"""A field reproducer in Python, standard library only: it says which
python3 runs it and from where, then aborts like an application hitting a
fatal error. Provokes

    fatal_signal signal=SIGABRT comm=workload

(a script's comm is its file name, not its interpreter's: the appliance runs
it as /etc/bpk/workload, so its comm is "workload", not "python3")."""
import os
import platform
import sys
import time


def fs_type(path):
    """The file system type of the mount holding @path (/proc/self/mounts)."""
    best, kind = "", "?"
    with open("/proc/self/mounts", encoding="ascii") as mounts:
        for line in mounts:
            _, where, fstype = line.split()[:3]
            inside = path == where or path.startswith(where.rstrip("/") + "/")
            if inside and len(where) >= len(best):
                best, kind = where, fstype
    return kind


with open("/proc/self/comm", encoding="ascii") as f:
    comm = f.read().strip()
print(f"python-abort: python {sys.version.split()[0]} at {sys.executable},"
      f" /usr on {fs_type('/usr/bin/python3')}, kernel {platform.release()},"
      f" comm {comm}", flush=True)
print(f"python-abort: sys.version {sys.version!r}", flush=True)
# the appliance's log is forwarded by another process: give it a moment
# before the dump stops everything
time.sleep(0.5)
os.abort()
