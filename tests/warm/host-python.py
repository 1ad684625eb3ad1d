#!/usr/bin/python3
# The host's python3 in a restored guest (the host view over 9p, mounted
# after the restore): its version, then a process named warm-fire opens a
# missing file (the trigger's fire).
import shutil
import sys

print("python", sys.version.split()[0], flush=True)
shutil.copy("/bin/sh", "/tmp/warm-fire")
import os  # noqa: E402

os.execv("/tmp/warm-fire", ["warm-fire", "-c", "exec 3</warm/no-such-file"])
