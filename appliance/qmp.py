#!/usr/bin/python3
"""Save or restore an armed snapshot through QEMU's QMP socket (issue 13).

  qmp.py save SOCKET STATEFILE
      stop the guest, migrate its device state to STATEFILE (RAM is left
      out: x-ignore-shared, it lives in the shared memory-backend file),
      quit QEMU. Prints "save_s=SECONDS state_bytes=N".
  qmp.py restore SOCKET STATEFILE CONTROL-FIFO MESSAGE
      (QEMU started with -incoming defer) load STATEFILE, resume the guest,
      then write MESSAGE into CONTROL-FIFO (the "control" virtio-serial
      port). Prints "restore_s=SECONDS" (QMP socket seen to guest running).

Both wait up to 60 s for the socket and for the migration; an error names
the step and QEMU's own message, and exits 1.
"""
import json
import os
import socket
import sys
import time


def die(msg):
    print(f"qmp.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


class QMP:
    def __init__(self, path, wait_s=60):
        until = time.monotonic() + wait_s
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError as e:
                self.sock.close()
                if time.monotonic() > until:
                    die(f"{path}: no QMP socket after {wait_s}s ({e})")
                time.sleep(0.02)
        self.file = self.sock.makefile("rwb")
        self.read()  # the greeting
        self.cmd("qmp_capabilities")

    def read(self):
        line = self.file.readline()
        if not line:
            die("QEMU closed the QMP connection")
        return json.loads(line)

    def cmd(self, name, **args):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.file.write(json.dumps(msg).encode() + b"\n")
        self.file.flush()
        while True:
            reply = self.read()
            if "event" in reply:
                continue
            if "error" in reply:
                die(f"{name}: {reply['error'].get('desc', reply['error'])}")
            return reply.get("return")

    def wait_migration(self, what):
        until = time.monotonic() + 60
        while time.monotonic() < until:
            st = self.cmd("query-migrate")
            status = st.get("status", "")
            if status == "completed":
                return
            if status in ("failed", "cancelled"):
                die(f"{what}: migration {status}: {st.get('error-desc', '')}")
            time.sleep(0.01)
        die(f"{what}: migration not completed after 60s")


def ignore_shared(q):
    q.cmd("migrate-set-capabilities",
          capabilities=[{"capability": "x-ignore-shared", "state": True}])


def save(sock, state):
    q = QMP(sock)
    t0 = time.monotonic()
    q.cmd("stop")
    ignore_shared(q)
    q.cmd("migrate", uri=f"exec:cat > '{state}'")
    q.wait_migration("save")
    took = time.monotonic() - t0
    size = os.stat(state).st_size
    try:
        q.cmd("quit")
    except SystemExit:
        pass  # QEMU may close the socket before it answers
    print(f"save_s={took:.3f} state_bytes={size}")


def restore(sock, state, fifo, message):
    q = QMP(sock)
    t0 = time.monotonic()
    ignore_shared(q)
    q.cmd("migrate-incoming", uri=f"exec:cat '{state}'")
    until = time.monotonic() + 60
    while True:
        status = q.cmd("query-status")["status"]
        if status != "inmigrate":
            break
        if time.monotonic() > until:
            die("restore: still in migration after 60s")
        time.sleep(0.005)
    if status != "running":
        q.cmd("cont")
    took = time.monotonic() - t0
    with open(message, "rb") as f:
        data = f.read()
    # QEMU holds the FIFO open for reading: this open does not block, a
    # write larger than the pipe waits for the guest to read
    with open(fifo, "wb") as f:
        f.write(data)
    print(f"restore_s={took:.3f}")


def main(argv):
    if len(argv) == 4 and argv[1] == "save":
        save(argv[2], argv[3])
    elif len(argv) == 6 and argv[1] == "restore":
        restore(*argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
