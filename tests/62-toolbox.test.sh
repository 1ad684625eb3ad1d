#!/usr/bin/env bash
# needs root: user namespaces are turned off for one report by a user namespace whose uid map only root may write
# The analysis toolbox (analysis/toolbox.sh): the report, bpk crash and bpk
# drgn read the dump with a current crash and drgn, and see the whole system.
#  - one run of the demo trigger (the panicking task a user process):
#    report.txt and report.json name the toolbox's suite and versions;
#    crash's task count (sys, ps) equals drgn's, no task count disagreement;
#    the panicking task's VMAs by crash vm, the same ranges by drgn;
#  - bpk crash --stdin: ps lists every task of the report, by pid; bpk drgn
#    counts the same;
#  - --analyzers system: Debian 12's crash and drgn, said so;
#  - the archive unreachable (an empty cache, a mirror nobody serves): the
#    system analyzers read the dump and the report says why;
#  - user namespaces off (the report run by an ordinary user in a user
#    namespace that may make no other): the same, with bubblewrap's reason;
#  - a damaged toolbox (its crash truncated) is found and made again;
#  - what a compromised analyzer would try (tests/analysis/escape-probe.py:
#    open_by_handle_at, ptrace, bpf, writing the runs dir and $HOME, a
#    connect to a listener here, TIOCSTI) is refused inside the toolbox,
#    as root and as the test user, while the same probe outside does it
#    (the control); Debian 12's analyzers get the seccomp filter: the same
#    calls refused but the writes and the connect, which nothing stops
#    there (said in the report's analyzers line).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

runs=$out/runs
py=/usr/bin/python3
user=${BPK_TEST_USER:-bpk-test}
# copy_run NAME: a copy of the run to report again, without its report
copy_run() {
	rm -rf "${out:?}/$1"
	cp -a "$run" "$out/$1"
	rm -f "$out/$1/report.json" "$out/$1/report.txt"
	echo "$out/$1"
}

rc=0
"$bpk" --runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo --timeout 240 >"$out/run.out" 2>&1 || rc=$?
run=$({ find "$runs" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null || true; } | sort | tail -1)
check run.exit_0 "exit $rc: $(tail -1 "$out/run.out")" test "$rc" = 0 -a -s "${run:-/nonexistent}/report.json"
run=${run:-/nonexistent}
rj=$run/report.json

# --- the toolbox read the dump
check toolbox.json "$(json_value "$rj" "d['analyzers']['chosen']" 2>&1)" \
	test "$(json_value "$rj" "[d['analyzers']['chosen'][k] for k in ('source', 'wanted', 'suite', 'why_not_toolbox')]" 2>&1)" = '["toolbox", "toolbox", "trixie", null]'
check toolbox.versions "$(json_value "$rj" "[d['analyzers']['crash']['version'], d['analyzers']['drgn']['version']]" 2>&1)" \
	"$py" -c 'import json, sys; d = json.load(open(sys.argv[1]))["analyzers"]
assert d["crash"]["version"].startswith("8.0.6") or d["crash"]["version"][0] >= "9", d["crash"]["version"]
assert tuple(int(x) for x in d["drgn"]["version"].split(".")[:3]) >= (0, 0, 25), d["drgn"]["version"]' "$rj"
check toolbox.text "$(grep -m1 '^analyzers:' "$run/report.txt" 2>&1)" grep -qE '^analyzers: toolbox \(Debian trixie\): crash [0-9][^,]*, drgn [0-9]' "$run/report.txt"

# --- the whole system: crash counts every task drgn walks
counts=$(json_value "$rj" "[d['tasks']['total'], d['tasks']['crash_count'], [x['what'] for x in d['disagreements']]]" 2>&1)
check tasks.crash_equals_drgn "report.json [drgn, crash, disagreements]: $counts" \
	"$py" -c 'import json, sys; t, c, dis = json.loads(sys.argv[1]); assert t > 20 and c == t and "task count" not in dis' "$counts"
check tasks.text "$(grep -m1 'crash counts the same' "$run/report.txt" || grep -m1 'DISAGREE task' "$run/report.txt" || echo none)" \
	grep -qE "^   crash counts the same: sys TASKS $(json_value "$rj" "d['tasks']['total']"), ps $(json_value "$rj" "d['tasks']['total']") lines" "$run/report.txt"

# --- the panicking task's memory map, by both
mm=$(json_value "$rj" "[d['memory_map']['task']['comm'], len(d['memory_map']['crash'] or []), [(v['start'], v['end']) for v in d['memory_map']['crash'] or []] == [(v['start'], v['end']) for v in d['memory_map']['drgn'] or []], sorted({v['file'] for v in d['memory_map']['drgn'] or [] if v['file']})]" 2>&1)
check vmas.both "report.json memory_map [task, crash VMAs, same as drgn's, files]: $mm" \
	"$py" -c 'import json, sys; comm, n, same, files = json.loads(sys.argv[1]); assert comm == "bpk-demo" and n >= 5 and same and "/bin/busybox" in files' "$mm"
check vmas.text "$(sed -n '/^== Memory map/,/^$/p' "$run/report.txt" | head -4 | tr -s ' \n' ' ')" \
	test "$(sed -n '/^== Memory map/,/^$/p' "$run/report.txt" | grep -c ' /bin/busybox$')" -ge 1 -a \
	"$(sed -n '/^== Memory map/,/^$/p' "$run/report.txt" | grep -c 'drgn lists the same')" = 1

# --- bpk crash without a terminal: its ps has every task the report has
printf 'ps\nq\n' | "$bpk" --runs "$runs" crash --no-report --stdin "$run" >"$out/crash-ps.out" 2>"$out/crash-ps.err" || true
"$py" - "$rj" "$out/crash-ps.out" >"$out/ps-compare.txt" 2>&1 <<'EOF' || true
import json, re, sys
want = sorted({t["pid"] for t in json.load(open(sys.argv[1]))["tasks"]["list"]})
have = sorted({int(m.group(1)) for ln in open(sys.argv[2])
               for m in [re.match(r"^[> ]\s*(\d+)\s+\d+\s+\d+\s+[0-9a-f]{8,}\s+[A-Z]{2}\s", ln)] if m})
missing = sorted(set(want) - set(have))
print(f"report {len(want)} pids, crash ps {len(have)} pids, missing {missing}")
print("ok" if want and not missing else "bad")
EOF
check crash_session.ps_every_task "$(head -1 "$out/ps-compare.txt"); $(grep -m1 'analyzers:' "$out/crash-ps.err" || tail -1 "$out/crash-ps.err")" \
	test "$(tail -1 "$out/ps-compare.txt")" = ok
check crash_session.toolbox "$(grep -m1 'analyzers:' "$out/crash-ps.err" || tail -1 "$out/crash-ps.err")" \
	grep -q '^open.py: analyzers: toolbox' "$out/crash-ps.err"
echo 'print("ntasks", len(list(tasks())))' | "$bpk" --runs "$runs" drgn "$run" >"$out/drgn.out" 2>&1 || true
check drgn_session.tasks "$(grep -m1 ntasks "$out/drgn.out" || tail -1 "$out/drgn.out")" \
	grep -qx ">>> ntasks $(json_value "$rj" "d['tasks']['total']")" "$out/drgn.out"

# --- Debian 12's own, asked for
sys_run=$(copy_run system)
analysis/report.py --analyzers system "$sys_run" >"$out/system.out" 2>&1 || true
check system.json "$(json_value "$sys_run/report.json" "d['analyzers']['chosen']" 2>&1)" \
	test "$(json_value "$sys_run/report.json" "[d['analyzers']['chosen'][k] for k in ('source', 'wanted', 'why_not_toolbox', 'crash_version')]" 2>&1)" = "[\"system\", \"system\", null, \"$(dpkg-query -W -f '${Version}' crash)\"]"
check system.text "$(grep -m1 '^analyzers:' "$sys_run/report.txt" 2>&1)" grep -q '^analyzers: system (Debian 12.s own; no sandbox, the seccomp filter only, as nobody in a user namespace, with root.s file access): crash .*(--analyzers system)$' "$sys_run/report.txt"

# --- the archive unreachable: no toolbox can be made in an empty cache
net_run=$(copy_run no-archive)
rc=0
BPK_CACHE=$out/empty-cache BPK_TOOLBOX_MIRROR=http://127.0.0.1:9/debian \
	analysis/report.py "$net_run" >"$out/no-archive.out" 2>"$out/no-archive.err" || rc=$?
why=$(json_value "$net_run/report.json" "d['analyzers']['chosen']['why_not_toolbox']" 2>&1)
check no_archive.report_made "exit $rc, tasks $(json_value "$net_run/report.json" "d['tasks']['total']" 2>&1)" \
	test "$rc" = 0 -a "$(json_value "$net_run/report.json" "d['analyzers']['chosen']['source']" 2>&1)" = '"system"'
check no_archive.says_why "why_not_toolbox: $why" grep -q 'mmdebstrap could not make a trixie root from http://127.0.0.1:9/debian: .*127.0.0.1' <<<"$why"
check no_archive.text "$(grep -m1 '^analyzers:' "$net_run/report.txt" 2>&1)" \
	grep -q '^analyzers: system (Debian 12.s own; no sandbox, the seccomp filter only, as nobody in a user namespace, with root.s file access): .*; the toolbox could not be made: .*mmdebstrap' "$net_run/report.txt"

# --- user namespaces off: an ordinary user's report, in a user namespace
# (uids as on the host) whose limit of further ones is 0
ns_run=$(copy_run no-userns)
chown -R "$user:" "$ns_run"
cat >"$out/no-userns.sh" <<'EOF'
# inside: wait for the uid map, then (exec'd as the mapped root, which
# gives back the capabilities the unmapped exec dropped) allow no further
# user namespace, and run the report as the test user (as-user.sh: its own
# view of the cache)
while [ -z "$(cat /proc/self/uid_map)" ] || [ -z "$(cat /proc/self/gid_map)" ]; do sleep 0.05; done
exec sh -c 'echo 0 >/proc/sys/user/max_user_namespaces && exec "$@"' sh "$@"
EOF
rc=0
unshare --user -- bash "$out/no-userns.sh" tests/as-user.sh "$user" "$build" \
	analysis/report.py "$ns_run" >"$out/no-userns.out" 2>"$out/no-userns.err" &
pid=$!
for _ in $(seq 100); do
	[[ $(readlink "/proc/$pid/ns/user") != "$(readlink /proc/self/ns/user)" ]] && break
	sleep 0.05
done
if ! { echo "0 0 65536" >"/proc/$pid/uid_map" && echo "0 0 65536" >"/proc/$pid/gid_map"; }; then
	kill "$pid" 2>/dev/null || true
fi
wait "$pid" || rc=$?
why=$(json_value "$ns_run/report.json" "d['analyzers']['chosen']['why_not_toolbox']" 2>&1)
check no_userns.report_made "exit $rc ($(tail -1 "$out/no-userns.err")), source $(json_value "$ns_run/report.json" "d['analyzers']['chosen']['source']" 2>&1)" \
	test "$rc" = 0 -a "$(json_value "$ns_run/report.json" "d['analyzers']['chosen']['source']" 2>&1)" = '"system"'
check no_userns.says_why "why_not_toolbox: $why" grep -q 'the toolbox cannot run here: bwrap: .*namespace' <<<"$why"

# --- a damaged toolbox is found and made again
dcache=$out/damaged-cache
mkdir -p "$dcache/toolbox"
tb=$(readlink -f "${BPK_CACHE:-$HOME/.cache/bpf-panic-kdump}/toolbox/trixie")
cp -a "$tb" "$dcache/toolbox/"
ln -s "${tb##*/}" "$dcache/toolbox/trixie"
: >"$dcache/toolbox/${tb##*/}/root/usr/bin/crash"
rc=0
BPK_CACHE=$dcache analysis/toolbox.sh root >"$out/damaged.out" 2>"$out/damaged.err" || rc=$?
check damaged.found "$(grep -m1 'does not match its manifest' "$out/damaged.err" || echo 'not found')" \
	grep -q 'does not match its manifest (interrupted or damaged): making it again' "$out/damaged.err"
check damaged.remade "exit $rc: $(cat "$out/damaged.out"); crash $(stat -c %s "$dcache/toolbox/trixie/root/usr/bin/crash" 2>&1) bytes" \
	test "$rc" = 0 -a -s "$dcache/toolbox/trixie/root/usr/bin/crash" -a "$(cat "$out/damaged.out")" = "$(readlink -f "$dcache/toolbox/trixie")/root"
rm -rf "$dcache" "$out/empty-cache"

# --- a compromised analyzer: what it would try, inside and outside
probe=$top/tests/analysis/escape-probe.py
port=$($py -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
$py -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); s.settimeout(120)
t = time.monotonic()
while time.monotonic() - t < 120:
    try:
        s.accept()[0].close()
    except OSError:
        break' "$port" &
listener=$!
probe_runs=$out/probe-runs
mkdir -p "$probe_runs"
chmod 755 "$out"
chown "$user:" "$probe_runs"
tbroot=$(analysis/toolbox.sh root 2>"$out/probe-root.err" || true)
# probe NAME CMD...: the probe's lines under CMD, in $out/probe-NAME.txt
probe() {
	local name=$1
	shift
	"$@" >"$out/probe-$name.txt" 2>&1 || true
}
# expect NAME CALL allowed|refused: what probe NAME said of CALL (the
# check named by what the dir is, not where: write:runs, write:home)
expect() {
	local line label=$2
	label=${label/#"write:$probe_runs"/write:runs}
	label=${label/#"write:$HOME"/write:home}
	line=$(grep -m1 "^PROBE $2 " "$out/probe-$1.txt" 2>/dev/null || true)
	check "escape.$1.$label" "${line:-the probe said nothing of $2 ($(tail -1 "$out/probe-$1.txt" 2>/dev/null))}" \
		grep -q "^PROBE $2 $3: " <<<"${line:-none}"
}
calls=(privileged open_by_handle_at ptrace bpf "write:$probe_runs" "write:$HOME" connect tiocsti)
# the control: root, no sandbox, no filter: every call goes through
probe control $py "$probe" --write "$probe_runs" --write "$HOME" --connect "$port"
for c in "${calls[@]}"; do expect control "$c" allowed; done
# the toolbox as root
probe toolbox_root analysis/toolbox.sh exec "$tbroot" --ro "$top/tests/analysis" --ro "$probe_runs" -- \
	python3 "$probe" --write "$probe_runs" --write "$HOME" --connect "$port"
for c in "${calls[@]}"; do expect toolbox_root "$c" refused; done
# the toolbox as the test user, its own runs dir bound read-only
probe toolbox_user tests/as-user.sh "$user" "$build" \
	analysis/toolbox.sh exec "$tbroot" --ro "$top/tests/analysis" --ro "$probe_runs" -- \
	python3 "$probe" --write "$probe_runs" --connect "$port"
for c in privileged open_by_handle_at ptrace bpf "write:$probe_runs" connect tiocsti; do expect toolbox_user "$c" refused; done
# Debian 12's analyzers: the filter, and nothing else
probe system $py analysis/bpk_seccomp.py --exec -- $py "$probe" --write "$probe_runs" --connect "$port"
# (run by root, as nobody in a user namespace: the runs dir, the test
# user's, is not its to write)
for c in privileged open_by_handle_at ptrace bpf tiocsti "write:$probe_runs"; do expect system "$c" refused; done
kill "$listener" 2>/dev/null || true
wait "$listener" 2>/dev/null || true
