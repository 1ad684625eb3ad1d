#!/usr/bin/env bash
# A plain bpk run starts warm: it restores the idle snapshot of its kernel
# (ours, Debian's) and arms there. Each restored guest gets the host's clock and its own
# random state; --stall and --panic-on reach it as sysctls; a run that
# needs a boot (--cold, --append) boots and says why in run.json; a
# restore that fails is followed by a boot that files the run, with
# QEMU's words on the failure kept.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

runs=$out/runs
wl=tests/warm/state.sh
a=(--runs "$runs" run syscall_errno syscall=openat errno=ENOENT comm=warm-fire --workload "$wl" --no-report -q)

# run NAME ARGS...: one run, its dir in $dir ("" if none filed); stderr
# kept as $out/NAME.err
run() {
	local name=$1
	shift
	dir=$("$bpk" "${a[@]}" "$@" 2>"$out/$name.err" | tail -1) || true
	[[ -n $dir && -d $dir ]] || dir=
}
# seen DIR KEY: what the workload printed as "KEY value"
seen() { sed -n "s/^$2 //p" "$1/workload.log" 2>/dev/null | head -1; }

# the idle snapshot, made first if need be, and some seconds old: a guest
# that kept the snapshot's clock would be behind the host's by as much
idle=$("$bpk" snapshot --quiet 2>"$out/snapshot.err" || true)
check warm.idle_snapshot "${idle:-none}: $(tail -1 "$out/snapshot.err")" test -n "$idle" -a -r "$idle/ok"
age=$(($(date +%s) - $(stat -c %Y "$idle/ok" 2>/dev/null || date +%s)))
((age >= 6)) || sleep $((6 - age))
watch_qemu "$runs/"

t_host=$(date +%s)
run first
first=$dir
check_field warm.first.ok "$first" status success
check_field warm.first.restored "$first" guest.restored_from "$idle"
check warm.first.cold_why "guest.cold_why=$(record_field "$first" guest.cold_why 2>&1 || true)" \
	test -n "$first" -a -z "$(record_field "$first" guest.cold_why 2>/dev/null || echo x)"
check_field warm.snapshot_unarmed "$first" guest.restored_from "$(
	[[ $(json_value "$idle/snapshot.json" "d['trigger']") == '""' ]] && echo "$idle" || echo "armed: $idle"
)"
check_field_match warm.first.start_to_armed "$first" timings.start_to_armed_s '^[0-9.]+$'
check_field_match warm.first.restore_s "$first" timings.restore_s '^[0-9.]+$'
got=$(kdump_header "$first/vmcore")
check warm.first.vmcore "vmcore: $got; the guest's kernel: $(record_field "$first" guest.kernel_release 2>&1 || true)" \
	test "${got% *}" = "KDUMP $(record_field "$first" guest.kernel_release 2>/dev/null || echo none)"
clock=$(seen "$first" clock)
check warm.clock "guest clock ${clock:-none}, host $t_host (the snapshot was saved before)" \
	test -n "$clock" -a "${clock:-0}" -ge "$((t_host - 2))" -a "${clock:-0}" -le "$(($(date +%s) + 2))"
check warm.sysctls_default "softlockup_panic hung_task_panic panic_on_rcu_stall unknown_nmi_panic: $(seen "$first" sysctls)" \
	test "$(seen "$first" sysctls)" = "0 0 0 0"

run second --panic-on softlockup,hung,rcu --stall 60
second=$dir
check_field warm.second.restored "$second" guest.restored_from "$idle"
u1=$(seen "$first" uuid) u2=$(seen "$second" uuid)
check warm.random "first run's uuid ${u1:-none}, second's ${u2:-none} (one snapshot)" \
	test -n "$u1" -a -n "$u2" -a "$u1" != "$u2"
# the host's bytes are credited: the generator is seeded before arming
# (under TCG a guest has too little of its own this early)
crng=$(awk '/crng init done/ { c = 1 } /^BPK-STATE armed/ { print c ? "before" : "not before"; exit }' \
	"$second/console.log" 2>/dev/null)
check warm.crng_seeded "the kernel's 'crng init done': ${crng:-no armed state} arming" test "$crng" = before
r1=$(seen "$first" random) r2=$(seen "$second" random)
check warm.urandom "first run's /dev/urandom ${r1:-none}, second's ${r2:-none}" \
	test -n "$r1" -a -n "$r2" -a "$r1" != "$r2"
check warm.sysctls_stall_panic_on "--panic-on softlockup,hung,rcu --stall 60: $(seen "$second" sysctls)" \
	test "$(seen "$second" sysctls)" = "1 1 1 1"

run cold --cold
check_field warm.cold.why "$dir" guest.cold_why --cold
check warm.cold.booted "restored_from=$(record_field "$dir" guest.restored_from 2>&1 || true)" \
	test -n "$dir" -a -z "$(record_field "$dir" guest.restored_from 2>/dev/null || echo x)"
check_field warm.cold.ok "$dir" status success

run append --append quiet
check_field_match warm.append.why "$dir" guest.cold_why '^--append: '
check_field warm.append.ok "$dir" status success

# A host program (the host's /usr over 9p): the idle snapshot with the host
# view, its shares mounted once restored
run python --workload tests/warm/host-python.py
check_field_match warm.hostview.restored "$dir" guest.restored_from '/snapshot/[0-9a-f]{16}$'
hv=$(record_field "$dir" guest.restored_from 2>/dev/null || true)
check warm.hostview.snapshot "${hv:-no snapshot}: hostview $(json_value "$hv/snapshot.json" "d.get('hostview')" 2>/dev/null)" \
	test -n "$hv" -a "$hv" != "$idle" -a "$(json_value "$hv/snapshot.json" "d.get('hostview')" 2>/dev/null)" = true
check_field_match warm.hostview.host_fs "$dir" guest.host_fs '^on: a script for /usr/bin/python3'
check warm.hostview.host_python "$(head -1 "$dir/workload.log" 2>/dev/null || echo 'no workload.log')" \
	test "$(seen "$dir" python)" = "$(/usr/bin/python3 -c 'import sys; print(sys.version.split()[0])')"
mounted=$(awk '/^BPK-STATE restored/ { r = 1 } /host view ready/ { print r ? "after" : "before"; exit }' "$dir/console.log" 2>/dev/null)
check warm.hostview.mounted_after_restore "9p mounted ${mounted:-never} the restore" test "$mounted" = after
check_field warm.hostview.ok "$dir" status success

# Debian's kernel starts warm from an idle snapshot of its own
dsnap=$("$bpk" snapshot --kernel debian --print-dir 2>&1 || true)
run debian --kernel debian --timeout 600
check_field warm.debian.restored "$dir" guest.restored_from "$dsnap"
check_field warm.debian.ok "$dir" status success
check warm.debian.own_snapshot "debian's $dsnap, ours $idle" test -n "$dsnap" -a "$dsnap" != "$idle"

# A restore that fails: a cache of its own (every entry the shared one's,
# but its own snapshots), its idle snapshot's state cut short
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}
pc=$out/cache
mkdir -p "$pc"
for e in "$cache"/*; do
	[[ ${e##*/} == snapshot* ]] || ln -s "$e" "$pc/"
done
psnap=$(BPK_CACHE=$pc "$bpk" snapshot --quiet 2>"$out/private-snapshot.err" || true)
if [[ -n $psnap && -f $psnap/state ]]; then
	chmod u+w "$psnap/state"
	truncate -s 4096 "$psnap/state"
fi
dir=$(BPK_CACHE=$pc "$bpk" "${a[@]}" 2>"$out/fallback.err" | tail -1) || true
[[ -n $dir && -d $dir ]] || dir=
check_field warm.fallback.ok "$dir" status success
check_field_match warm.fallback.restore_error "$dir" guest.restore_error '.'
check_field_match warm.fallback.cold_why "$dir" guest.cold_why "^the restore of $psnap failed: "
check warm.fallback.said "stderr: $(head -c 300 "$out/fallback.err")" \
	grep -q "^bpk: error: booting cold: the restore of $psnap failed" "$out/fallback.err"
check warm.fallback.qemu_words "restore-qemu.log: $(head -c 200 "$dir/restore-qemu.log" 2>/dev/null || echo missing)" \
	test -s "$dir/restore-qemu.log"
check warm.fallback.nothing_left "staging dirs left: $(find "$runs" -maxdepth 1 -name '.staging-*' | wc -l)" \
	test -z "$(find "$runs" -maxdepth 1 -name '.staging-*')"
no_qemu_left warm.no_qemu_left "$runs/"
