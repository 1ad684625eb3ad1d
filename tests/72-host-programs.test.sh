#!/usr/bin/env bash
# needs root: bpk as root runs QEMU as nobody, which a share must allow
# The host's programs in the guest: the host's /usr over virtio 9p,
# read-only.
#  - a #!/usr/bin/python3 workload (standard library only) on Debian's
#    kernel (its 9p modules loaded by the preinit) aborts, fatal_signal fires
#    with crash_kexec, and the workload log shows the host's python3 ran it: the
#    same sys.version as the host's /usr/bin/python3, /usr on 9p, the
#    guest's kernel release, comm "workload" (the script's name);
#  - a dynamically linked C program from the build dir fires uprobe on its
#    own function (our kernel: uprobe needs bpf_panic);
#  - writes to the host's /usr and to a read-only share fail with EROFS in
#    the guest, even after root in the guest remounts the share rw (QEMU's
#    readonly=on refuses them), and leave the host untouched; the one writable share
#    (--share-rw) takes a file the host then sees;
#  - bad shares are refused before anything boots.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out
cd "$top"

# one_run NAME BPK-RUN-ARGS...: a run filed under $out/NAME; sets r (its dir) and rc
one_run() {
	local name=$1
	shift
	rc=0
	"$bpk" --runs "$out/$name" run "$@" --timeout 400 >"$out/$name.out" 2>&1 || rc=$?
	r=$(find "$out/$name" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | sort | tail -1 || true)
}
# meta PATH: the last run's record field PATH (run.json)
meta() { record_field "$r" "$1" 2>/dev/null || true; }

# --- python3 on Debian's kernel
host_version=$(/usr/bin/python3 -c 'import sys; print(repr(sys.version))')
one_run python fatal_signal signal=SIGABRT comm=workload --kernel debian \
	--workload tests/field/workloads/python-abort.py
if ((rc != 0)) || [[ ! -r $r/report.txt ]]; then
	fail host.python.run "exit $rc: $(grep -m1 'error:' "$out/python.out" || tail -1 "$out/python.out")"
else
	pass host.python.run "$r, kernel $(meta guest.kernel_release), $(meta guest.host_fs)"
	line=$(grep -m1 '^python-abort: python ' "$r/workload.log" || true)
	check host.python.host_interpreter "${line:-no python-abort line in $r/workload.log}" \
		grep -qxF "python-abort: sys.version $host_version" "$r/workload.log"
	check host.python.usr_over_9p "${line:-no python-abort line}" \
		grep -q '^python-abort: python .* at /usr/bin/python3, /usr on 9p, kernel 6\.1\.0-[0-9]*-amd64, comm workload$' "$r/workload.log"
	check host.python.fire_record "$(grep -E '^ +(trigger|comm|action|detail)=' "$r/report.txt" | tr -s ' \n' ' ' || echo 'no fire record in the report')" \
		grep -qx '   comm=workload' "$r/report.txt"
	check host.python.action "$(grep -m1 -E '^ +action=' "$r/report.txt" || echo 'no action= in the report')" \
		grep -qx '   action=crash_kexec' "$r/report.txt"
	check host.python.preinit_9p_modules "$(grep -m1 'bpk-preinit: [0-9]* modules' "$r/console.log" || echo 'no preinit line')" \
		grep -Eq 'bpk(-preinit)?: host view ready' "$r/console.log"
fi

# --- a dynamically linked program, uprobe on its own function (our kernel)
dyn=$build/examples/uprobe-dyn
interp=$(readelf -l "$dyn" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
check host.uprobe.dynamic "$dyn: interpreter ${interp:-none}" test -n "$interp"
one_run uprobe uprobe target=/etc/bpk/workload:app_assert_failed --workload "$dyn"
if ((rc != 0)) || [[ ! -r $r/report.txt ]]; then
	fail host.uprobe.run "exit $rc: $(grep -m1 'error:' "$out/uprobe.out" || tail -1 "$out/uprobe.out")"
else
	check_field_match host.uprobe.host_fs "$r" guest.host_fs '^on: a dynamically linked program'
	check host.uprobe.fire_record "$(grep -E '^ +(trigger|comm|detail)=' "$r/report.txt" | tr -s ' \n' ' ' || echo 'no fire record in the report')" \
		grep -qx '   trigger=uprobe' "$r/report.txt"
	check host.uprobe.panic "$(grep -m1 '^PANIC:' "$r/report.txt" || echo 'no PANIC: line in the report')" \
		grep -q '^PANIC: "Kernel panic - not syncing: bpf_panic trigger uprobe fired: ' "$r/report.txt"
fi

# --- read-only means read-only; the writable share is the only way out
ro=$out/share-ro rw=$out/share-rw outside=$out/not-shared
mkdir -p "$ro" "$rw" "$outside"
echo "host data" >"$ro/data.txt"
before=$(cd "$ro" && find . -printf '%p %s %T@\n' | sort | sha256sum)
probe=/usr/bpk-erofs-probe-$$
sed -e "s|@RO@|$ro|g" -e "s|@RW@|$rw|g" -e "s|@PROBE@|$probe|g" -e "s|@OUTSIDE@|$outside|g" tests/field/workloads/erofs.py.in >"$out/erofs.py"
chmod +x "$out/erofs.py"
# QEMU writes into the writable share as its own user (nobody, when bpk is
# root): a share that user cannot write is refused before anything boots
if ((EUID == 0)); then
	one_line host.rw_share_for_qemu_user "QEMU runs as nobody, which cannot write there (chown nobody $rw" \
		"$bpk" --runs "$out/runs-refused" run proc_exit status=3 comm=workload --workload "$out/erofs.py" \
		--share "$ro" --share-rw "$rw"
	chown nobody "$rw"
fi
one_run erofs proc_exit status=3 comm=workload --workload "$out/erofs.py" \
	--share "$ro" --share-rw "$rw"
if ((rc != 0)) || [[ ! -r $r/workload.log ]]; then
	fail host.erofs.run "exit $rc: $(grep -m1 'error:' "$out/erofs.out" || tail -1 "$out/erofs.out")"
else
	# ro-remount-create: root in the guest remounts the share rw; QEMU
	# (readonly=on) still refuses the write
	for what in usr-create ro-create ro-append ro-unlink ro-remount-create; do
		line=$(grep -m1 "^erofs: $what " "$r/workload.log" || true)
		check "host.erofs.$what" "${line:-no erofs: $what line in $r/workload.log}" \
			grep -q "^erofs: $what .* EROFS$" <<<"$line"
	done
	# restored from a snapshot whose QEMU exports the two shares too
	check_field_match host.erofs.warm "$r" guest.restored_from '/snapshot/[0-9a-f]+$'
	line=$(grep -m1 '^erofs: remount rw ' "$r/workload.log" || true)
	check host.erofs.guest_remounted_rw "${line:-no remount line}" grep -q ' exited 0$' <<<"$line"
	line=$(grep -m1 '^erofs: ro-read ' "$r/workload.log" || true)
	check host.erofs.ro_readable "${line:-no ro-read line}" grep -qx 'erofs: ro-read ok host data' <<<"$line"
	check host.erofs.usr_untouched "$probe on the host: $(ls -d "$probe" 2>&1)" test ! -e "$probe"
	after=$(cd "$ro" && find . -printf '%p %s %T@\n' | sort | sha256sum)
	check host.erofs.share_untouched "$ro: $(find "$ro" -mindepth 1 -printf '%f ')" test "$before" = "$after"
	check host.erofs.rw_written "$rw/from-guest.txt: $(cat "$rw/from-guest.txt" 2>&1)" \
		grep -qx 'written by the guest' "$rw/from-guest.txt"
	line=$(grep -m1 '^erofs: rw-symlink-escape ' "$r/workload.log" || true)
	check host.erofs.symlink_stays_in_guest "${line:-no rw-symlink-escape line}; $outside on the host: $(find "$outside" -mindepth 1 -printf '%f ' | sed 's/^$/empty/')" \
		test -n "$line" -a -z "$(find "$outside" -mindepth 1)"
	# mapped-xattr: the guest's symlink is a plain file on the host
	check host.erofs.no_host_symlink "$rw/escape on the host: $(stat -c %F "$rw/escape" 2>&1)" \
		test -e "$rw/escape" -a ! -L "$rw/escape"
fi

# --- bad shares: one line, exit 2, nothing boots
for bad in /nonexistent/dir /proc /usr; do
	rc=0
	msg=$("$bpk" --runs "$out/bad" run syscall_errno syscall=openat --share "$bad" 2>&1 >/dev/null) || rc=$?
	check "host.bad_share.${bad//\//_}" "exit $rc: $msg" test "$rc" = 2 -a "$(wc -l <<<"$msg")" = 1
done
check host.bad_share.nothing_filed "$(find "$out/bad" -mindepth 1 2>/dev/null | wc -l) entries" \
	test -z "$(find "$out/bad" -mindepth 1 2>/dev/null)"
