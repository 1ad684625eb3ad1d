#!/usr/bin/env bash
# The armed snapshot is keyed by what a restore must match: another memory
# size, CPU count or root image is another snapshot; bpk run refuses to
# restore one made for another memory size or kernel (one line, exit 2,
# nothing booted).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

snap=$("$bpk" snapshot 2>"$out/snapshot.err" || true)
check key.made "${snap:-none}: $(tail -1 "$out/snapshot.err")" test -n "$snap" -a -r "$snap/ok"
d1g=$("$bpk" snapshot --print-dir)
d512=$("$bpk" snapshot --print-dir --mem 512M)
dsmp=$("$bpk" snapshot --print-dir --smp 1)
check key.same_inputs_same_dir "$snap vs $d1g" test -n "$snap" -a "$snap" = "$d1g"
check key.mem_other_dir "1G $d1g, 512M $d512" test -n "$d512" -a "$d512" != "$d1g"
check key.smp_other_dir "2 cpus $d1g, 1 cpu $dsmp" test -n "$dsmp" -a "$dsmp" != "$d1g"
# a root image one byte longer (guest init, jobs, kdump image...) is another key
mkdir -p "$out/build/appliance"
ln -s "$(readlink -f "$build/kernel")" "$out/build/kernel"
{ cat "$build/appliance/root.cpio.gz" && printf '\0'; } >"$out/build/appliance/root.cpio.gz"
dimg=$(BUILD=$out/build "$bpk" snapshot --print-dir)
check key.image_other_dir "root image changed: $dimg" test -n "$dimg" -a "$dimg" != "$d1g"

w=tests/campaign/flaky.sh
a=(--runs "$out/runs" run syscall_errno syscall=openat errno=ENOENT comm=flaky --workload "$w")
one_line key.refuses_other_mem "the snapshot's mem is 1G, this run's 512M" "$bpk" "${a[@]}" --restore "$snap" --mem 512M
# the same snapshot, said to be made for another kernel
mkdir -p "$out/other-kernel"
cp "$snap/ok" "$out/other-kernel/" 2>/dev/null || true
ln "$snap/ram" "$out/other-kernel/ram" 2>/dev/null || true
/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["kernel"] = "/nonexistent/bzImage"
json.dump(d, open(sys.argv[2], "w"))' "$snap/snapshot.json" "$out/other-kernel/snapshot.json" 2>/dev/null || true
one_line key.refuses_other_kernel "made for /nonexistent/bzImage" "$bpk" "${a[@]}" --restore "$out/other-kernel"
one_line key.refuses_non_snapshot "not a snapshot made by bpk snapshot" "$bpk" "${a[@]}" --restore "$out"
one_line key.refuses_9p "QEMU cannot migrate a guest with a 9p share" "$bpk" "${a[@]}" --restore "$snap" --host-fs on
# a RAM file someone could have written (here: its owner) is refused
mkdir -p "$out/writable-ram"
cp "$snap/ok" "$snap/snapshot.json" "$out/writable-ram/" 2>/dev/null || true
cp --sparse=always "$snap/ram" "$out/writable-ram/ram" 2>/dev/null || true
chmod 0600 "$out/writable-ram/ram" 2>/dev/null || true
one_line ram.refuses_writable "ram: not a read-only file of uid $(id -u) (uid $(id -u), mode 0600)" \
	"$bpk" "${a[@]}" --restore "$out/writable-ram"
made=$(find "$out/runs" -mindepth 1 2>/dev/null | head -3 || true)
check key.nothing_booted "under $out/runs: ${made:-nothing}" test -z "$made"
rm -rf "$out/other-kernel" "$out/writable-ram"

# The snapshot's RAM file is ours and read-only once saved, and a restored
# QEMU maps a private copy of it (a memfd), never the cached file: a QEMU
# the guest took over cannot change what later attempts start from.
st=$(stat -c '%u %a' "$snap/ram" 2>/dev/null || echo none)
check ram.sealed "$snap/ram: uid and mode $st" test "$st" = "$(id -u) 400"
rc=0
"$bpk" --runs "$out/ram-runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--workload triggers/examples/syscall_errno.sh --restore "$snap" \
	>"$out/ram-run.out" 2>&1 &
rpid=$!
fds=
for _ in $(seq 1 600); do
	q=$(qemu_on "$out/ram-runs" | head -1)
	if [[ -n $q ]]; then
		fds=$(find "/proc/$q/fd" -mindepth 1 -printf '%l\n' 2>/dev/null | sort -u | tr '\n' ' ')
		[[ $fds == *memfd:* || $fds == *"$snap/ram"* ]] && break
	fi
	sleep 0.1
done
wait "$rpid" || rc=$?
from_copy() { [[ $fds == *"memfd:bpk-snapshot-ram"* && $fds != *"$snap/ram"* && $rc == 0 ]]; }
check ram.restore_maps_a_copy "exit $rc; QEMU's files: ${fds:-no QEMU seen}" from_copy
st=$(stat -c '%u %a' "$snap/ram" 2>/dev/null || echo none)
check ram.sealed_after_restore "$snap/ram: uid and mode $st" test "$st" = "$(id -u) 400"

# Commas, QEMU's option separator, in the snapshot's dir and in bpk run's
# work dir (TMPDIR): doubled where QEMU's options name paths; the snapshot
# is made and an attempt restored from it fires and is filed.
# (Short /tmp dirs: a socket path must fit a sun_path.)
cdir=$(mktemp -d /tmp/bpk,cache,XXXXXX) tdir=$(mktemp -d /tmp/bpk,tmp,XXXXXX)
csnap=$(BPK_CACHE=$cdir "$bpk" snapshot 2>"$out/comma-snapshot.err" || true)
check comma.snapshot_made "${csnap:-none}: $(tail -1 "$out/comma-snapshot.err")" \
	test -n "$csnap" -a -r "$csnap/ok" -a "${csnap#"$cdir"/}" != "$csnap"
# a cached snapshot whose RAM file could have been written is made again
chmod 0600 "$csnap/ram" 2>/dev/null || true
again=$(BPK_CACHE=$cdir "$bpk" snapshot 2>"$out/comma-again.err" || true)
check_file_has ram.unsealed_made_again "$out/comma-again.err" \
	"making the snapshot again: .*/ram: not a read-only file of uid $(id -u) \(uid $(id -u), mode 0600\)"
st=$(stat -c '%u %a' "$csnap/ram" 2>/dev/null || echo none)
check ram.made_again_sealed "${again:-none}: $st" test "$again" = "$csnap" -a "$st" = "$(id -u) 400"
rc=0
TMPDIR=$tdir "$bpk" --runs "$out/comma-runs" run syscall_errno syscall=openat errno=ENOENT comm=bpk-demo \
	--workload triggers/examples/syscall_errno.sh --restore "$csnap" \
	>"$out/comma-run.out" 2>&1 || rc=$?
crun=$(find "$out/comma-runs" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | sort | tail -1 || true)
from=$([[ -z $crun ]] || record_field "$crun" guest.restored_from 2>/dev/null || true)
check comma.restored_run_filed "exit $rc, ${crun:-no run}: status $([[ -z $crun ]] || record_field "$crun" status 2>&1), restored from ${from:-nothing}" \
	test "$rc" = 0 -a -s "${crun:-/nonexistent}/vmcore" -a "$from" = "$csnap"
check_file_has comma.fired "${crun:-/nonexistent}/report.txt" '^   comm=bpk-demo$'
rm -rf "$cdir" "$tdir"
