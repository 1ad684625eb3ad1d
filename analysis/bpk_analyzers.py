# SPDX-License-Identifier: GPL-2.0
"""Which crash and drgn read a vmcore, and how they are started.

"toolbox" (the default): the current analyzers of a Debian suite in the
toolbox root (toolbox.sh: made on first use, run in bubblewrap with only
the paths named bound in). "system": Debian 12's own /usr/bin/crash and
python3-drgn. When the toolbox cannot be made or cannot run here (no
archive, no user namespaces), the system analyzers are used and the reason
is kept: the report says it, nothing falls back silently.

The choice: --analyzers on bpk and report.py, else $BPK_ANALYZERS; the
suite: $BPK_TOOLBOX_SUITE (toolbox.sh).
"""

import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
TOOLBOX = os.path.join(HERE, "toolbox.sh")
CHOICES = ("toolbox", "system")
# the project's own files the drgn part reads inside the toolbox
OWN_PATHS = [HERE, os.path.join(TOP, "lib"), os.path.join(TOP, "triggers", "fire.h")]


def _last_line(text):
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def _system_versions():
    out = {}
    for name, pkg in (("crash", "crash"), ("drgn", "python3-drgn")):
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                           capture_output=True, text=True, check=False)
        out[name] = r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None
    return out


class Analyzers:
    """source: "toolbox" or "system"; wanted: what was asked; why_not: why
    the toolbox is not used although it was asked for (None otherwise);
    suite, root; versions {"crash", "drgn"} (Debian package versions)."""

    def __init__(self, wanted=None, progress=None, suite=None):
        """PROGRESS: a stream for the toolbox's first make (None: quiet);
        SUITE: the toolbox's suite (None: toolbox.sh's default)."""
        wanted = wanted or os.environ.get("BPK_ANALYZERS") or "toolbox"
        if wanted not in CHOICES:
            raise ValueError(f"analyzers '{wanted}': not one of {', '.join(CHOICES)}")
        self.wanted = wanted
        self.source = "system"
        self.why_not = None
        self.root = None
        self.suite = None
        self.versions = {"crash": None, "drgn": None}
        if wanted == "toolbox":
            self._toolbox(progress, suite)
        if self.source == "system":
            self.versions = _system_versions()

    def _toolbox(self, progress, suite):
        # toolbox.sh's progress (a first make) is relayed as it comes; its
        # last line is the reason when it fails
        p = subprocess.Popen([TOOLBOX, "root"] + ([suite] if suite else []), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, errors="replace")
        last = ""
        for line in p.stderr:
            if line.strip():
                last = line.strip()
            if progress:
                progress.write(line)
                progress.flush()
        root = p.stdout.read().strip()
        rc = p.wait()
        if rc != 0 or not root:
            self.why_not = f"the toolbox could not be made: {last or f'toolbox.sh root exit {rc}'}"
            return
        # it must run here, too: bubblewrap needs user namespaces
        t = subprocess.run([TOOLBOX, "exec", root, "--", "python3", "-c", "import drgn"],
                           capture_output=True, text=True, check=False)
        if t.returncode != 0:
            self.why_not = f"the toolbox cannot run here: {_last_line(t.stderr) or f'exit {t.returncode}'}"
            return
        v = subprocess.run([TOOLBOX, "versions", root], capture_output=True, text=True, check=False)
        kv = dict(ln.split("=", 1) for ln in v.stdout.splitlines() if "=" in ln)
        self.root, self.source, self.suite = root, "toolbox", kv.get("suite")
        self.versions = {"crash": kv.get("crash"), "drgn": kv.get("drgn")}

    def whose(self):
        """Whose analyzers, in a few words: "Debian 12's", "Debian sid's"."""
        return "Debian 12's" if self.source == "system" else f"Debian {self.suite}'s"

    def describe(self):
        """One line: which analyzers, their versions, and why not the toolbox."""
        v = f"crash {self.versions['crash'] or '?'}, drgn {self.versions['drgn'] or '?'}"
        if self.source == "toolbox":
            return f"toolbox (Debian {self.suite}): {v}"
        why = f"; {self.why_not}" if self.why_not else " (--analyzers system)"
        # root's: no capability, but nothing keeps it from the files root
        # owns (no mount sandbox around it)
        uid = ", as nobody in a user namespace, with root's file access" if os.geteuid() == 0 else ""
        return f"system (Debian 12's own; no sandbox, the seccomp filter only{uid}): {v}{why}"

    def argv(self, cmd, ro=(), rw=(), tty=False):
        """CMD as it is started: inside the toolbox with RO and RW paths
        bound in, or (Debian 12's analyzers) under the same seccomp filter,
        with no sandbox around it."""
        if self.source == "system":
            return ["/usr/bin/python3", os.path.join(HERE, "bpk_seccomp.py"), "--exec", "--"] + list(cmd)
        out = [TOOLBOX, "exec", self.root] + (["--tty"] if tty else [])
        seen = set()
        for flag, paths in (("--ro", ro), ("--rw", rw)):
            for p in paths:
                p = os.path.realpath(p)
                if p not in seen:
                    seen.add(p)
                    out += [flag, p]
        return out + ["--"] + list(cmd)

    def python(self):
        """The interpreter that has this source's drgn: Debian's
        python3-drgn is installed for /usr/bin/python3."""
        return "python3" if self.source == "toolbox" else "/usr/bin/python3"


def newest_made(chosen):
    """sid's toolbox when CHOSEN is another suite's toolbox and sid's is
    made already, else None: a crash that cannot open a dump gets one more
    try with the newest before Debian 12's (crash 8.0.6 stops on a live
    guest's exception stacks, 9.0 reads them). Never made for that: a
    retry is not a download."""
    if chosen.source != "toolbox" or chosen.suite == "sid":
        return None
    cache = os.environ.get("BPK_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "bpf-panic-kdump")
    if not os.path.exists(os.path.join(cache, "toolbox", "sid")):
        return None
    a = Analyzers("toolbox", suite="sid")
    return a if a.source == "toolbox" else None


def crash_vmlinux(vmlinux):
    """The vmlinux crash should read, as a real path (the toolbox binds it
    there): crash-vmlinux.sh's indexed copy, which halves crash's start,
    else VMLINUX itself."""
    try:
        look = subprocess.run([os.path.join(HERE, "crash-vmlinux.sh"), "--lookup", vmlinux],
                              capture_output=True, text=True, check=False)
        quick = look.stdout.strip() if look.returncode == 0 and look.stdout.strip() else vmlinux
    except OSError:
        quick = vmlinux
    return os.path.realpath(quick)


def kernel_paths(vmlinux):
    """What drgn and crash read of a kernel: the vmlinux and, where the
    kernel has them, its modules beside it (bpk_drgn.load_module_debug_info)."""
    real = os.path.realpath(vmlinux)
    mods = os.path.join(os.path.dirname(real), "modules")
    return [real] + ([mods] if os.path.isdir(mods) else [])


def as_dict(a):
    return {"source": a.source, "wanted": a.wanted, "suite": a.suite,
            "crash_version": a.versions["crash"], "drgn_version": a.versions["drgn"],
            "why_not_toolbox": a.why_not}
