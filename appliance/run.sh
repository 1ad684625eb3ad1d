#!/usr/bin/env bash
# One appliance run: boot the guest with a trigger and a workload, let the
# trigger panic it into the crash kernel, collect the dump on the host, file
# the run and write its crash report.
#
#   run.sh --trigger NAME [options]
#
#   --args "k=v ..."     trigger arguments (checked on the host before boot)
#   --workload FILE      a script or static binary, run in the guest as
#                        /etc/bpk/workload (default: triggers/examples/syscall_errno.sh)
#   --repeat N           run the workload N times, 0 = until the timeout (1)
#   --timeout SEC        hard limit for the whole guest run (300)
#   --mem SIZE           guest memory (1G); --smp N guest CPUs (2)
#   --crashkernel SIZE   crash kernel reservation (192M); "none" for none
#   --no-reservation-check  arm even if the reservation is below what the
#                        capture kernel needs (to measure that need)
#   --runs DIR           where runs are filed (runs/)
#   --accel MODE         auto | tcg | kvm (auto)
#   --dry-run            arm with dry_run, report the trigger status, no dump
#   --sysctl-off         leave kernel.destructive_bpf_enabled at 0: bpf_panic()
#                        is unavailable and triggers fire with crash_kexec
#   --no-panic-on-oops   an oops kills the task and the guest goes on (the
#                        default is oops=panic: an oops is dumped like a fire)
#   --panic-on-warn      a WARN() panics the guest too (panic_on_warn=1)
#   --no-report          collect only (no report.txt, no report.json)
#   --qemu-arg ARG       pass ARG to QEMU (repeatable), e.g. a QMP socket
#   --append STR         add STR to the guest kernel's command line
#   --capture-append STR add STR to the crash kernel's command line (no
#                        commas), e.g. initcall_debug: make bench times boots
#   --kexec-checks       load the crash kernel with kexec's SHA-256 checks
#                        (off by default: see appliance/guest/jobs/appliance)
#   --trigger none       arm nothing: the workload itself crashes the guest
#                        (the sysrq baseline of the benchmarks, an oops)
#   --kernel ours|debian the guest's kernel: ours (default), or Debian's stock
#                        linux-image of linux-source-6.1's version (make
#                        debian-kernel), crash kernel too (reservation 256M)
#   --host-fs auto|on|off  run the workload in the host's user space: the
#                        host's /usr over virtio 9p, read-only (auto: for a
#                        dynamically linked program or a non-/bin/sh script)
#   --share DIR          also show host directory DIR, read-only, at its path
#                        (repeatable); --share-rw DIR: the one writable one
#   --progress FILE      append one line per event to FILE (staging DIR, guest,
#                        guest-end RC, collect, filed DIR, unfiled DIR, report,
#                        report-end RC): bpk's progress display reads it
#   --no-crash           no interactive crash session, even at a terminal
#   -- CMD [ARG ...]     the workload is this command line instead of a file
#                        (quoting kept); it runs in the host's user space
#                        (--host-fs on) unless --host-fs off (busybox)
#   --restore SNAPDIR    issue 13: restore the armed snapshot SNAPDIR
#                        (appliance/snapshot.sh) instead of booting; trigger,
#                        arguments and workload go over its control port
#   --attempt N          issue 13: the campaign's attempt number (run.meta
#                        attempt=, BPK_ATTEMPT in the workload's environment)
#
# At a terminal, an interactive crash session on the vmcore follows the
# report. Paths of the built pieces come from the environment (BUILD, default
# build/): the kernel, build/appliance/root.cpio.gz (or BPK_ROOT_IMG),
# triggerctl, the collector and fire-decode.
#
# Exit: 0 a verified vmcore and its report (a dry run: it completed), and
# nothing failed; 1 the run failed: it is filed, the reason on stderr and in
# run.meta; 2 bad input, before anything boots; 3 the run could not be filed
# (e.g. No space left on device): what the guest sent is kept in
# RUNS/<UTC time>-<trigger>.unfiled/, named on stderr; 128+N interrupted by
# signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP): QEMU is stopped and what
# exists is filed with status=interrupted.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=../lib/log.sh
. "$top/lib/log.sh"

build=${BUILD:-$top/build}
trigger='' args='' workload=$top/triggers/examples/syscall_errno.sh repeat=1 timeout=300 mem=1G smp=2
crashkernel=192M runs=$top/runs accel=${BPK_ACCEL:-auto} dry=0 report=1 sysctl=1
panic_on_oops=1 panic_on_warn=0 reservation_check=1
qemu_args=() append='' capture_append='' kexec_checks=0
flavor=ours host_fs=auto field_shares=() field_share_rw='' crashkernel_given='' # issue 11
progress_file='' open_crash=1 command_line=() workload_given='' # issue 12: bpk
restore='' attempt=0 campaign_meta=() # issue 13
while (($#)); do
	case $1 in
	--trigger) trigger=${2:?--trigger needs a name} && shift ;;
	--args) args=${2?--args needs a string} && shift ;;
	--workload) workload=${2:?--workload needs a file} && workload_given=1 && shift ;;
	--repeat) repeat=${2:?--repeat needs a number} && shift ;;
	--timeout) timeout=${2:?--timeout needs seconds} && shift ;;
	--mem) mem=${2:?--mem needs a size} && shift ;;
	--smp) smp=${2:?--smp needs a number} && shift ;;
	--crashkernel) crashkernel=${2:?--crashkernel needs a size or none} && crashkernel_given=1 && shift ;;
	--no-reservation-check) reservation_check=0 ;;
	--runs) runs=${2:?--runs needs a directory} && shift ;;
	--accel) accel=${2:?--accel needs a mode} && shift ;;
	--dry-run) dry=1 ;;
	--sysctl-off) sysctl=0 ;;
	--no-panic-on-oops) panic_on_oops=0 ;;
	--panic-on-warn) panic_on_warn=1 ;;
	--no-report) report=0 ;;
	--qemu-arg) qemu_args+=("${2:?--qemu-arg needs an argument}") && shift ;;
	--append) append=${2:?--append needs kernel parameters} && shift ;;
	--capture-append) capture_append=${2:?--capture-append needs kernel parameters} && shift ;;
	--kexec-checks) kexec_checks=1 ;;
	--kernel) flavor=${2:?--kernel needs ours or debian} && shift ;;
	--host-fs) host_fs=${2:?--host-fs needs auto, on or off} && shift ;;
	--share) field_shares+=("${2:?--share needs a directory}") && shift ;;
	--share-rw) field_share_rw=${2:?--share-rw needs a directory} && shift ;;
	# issue 12: bpk's progress hook, and a command line as the workload
	--progress) progress_file=${2:?--progress needs a file} && shift ;;
	--no-crash) open_crash=0 ;;
	--)
		shift
		(($#)) || bad_input "-- needs a command to run in the guest"
		command_line=("$@")
		break
		;;
	--restore) restore=${2:?--restore needs a snapshot dir} && shift ;; # issue 13
	--attempt) attempt=${2:?--attempt needs a number} && shift ;;       # issue 13
	*) bad_input "unknown argument '$1' (see the header of $0)" ;;
	esac
	shift
done

root_img=${BPK_ROOT_IMG:-$build/appliance/root.cpio.gz}
triggerctl=$build/triggers/triggerctl
collect=$build/collector/bpk-collect
nl=$'\n'
[[ -n $trigger ]] || bad_input "--trigger is required (triggerctl list shows them)"
# --- issue 11: the kernel (ours or Debian's), the shares
# shellcheck source=field.sh
. "$here/field.sh"
field_kernel "$flavor"
field_resolve_shares
# --- end issue 11
# --- issue 12: a command line as the workload (run.sh ... -- CMD ARGS): a
# script that execs it, written once the temporary dir exists
command_script() { # command_script FILE: write it
	local a q
	{
		echo '#!/bin/sh'
		echo '# the command line given to run.sh after --'
		printf 'exec'
		for a in "${command_line[@]}"; do
			q=${a//\'/\'\\\'\'} # POSIX sh: ' becomes '\''
			printf " '%s'" "$q"
		done
		echo
	} >"$1"
}
if ((${#command_line[@]})); then
	[[ -z $workload_given ]] || bad_input "give the workload as --workload FILE or as -- CMD ARGS, not both"
	cmd0=${command_line[0]}
	if [[ $host_fs == off ]]; then
		# the appliance's busybox runs it: /bin/busybox is what the image has
		[[ $cmd0 == /* ]] || /bin/busybox --list | grep -qxF -- "$cmd0" ||
			bad_input "-- $cmd0: not a busybox applet (with --host-fs off the command runs in the appliance's busybox)"
	elif [[ $cmd0 == /* ]]; then
		[[ -f $cmd0 && -x $cmd0 ]] || bad_input "-- $cmd0: no such program on the host"
		visible=0
		for d in /usr /bin /sbin /lib /lib64 "${field_shares[@]}" ${field_share_rw:+"$field_share_rw"}; do
			[[ $cmd0 != "$d"/* ]] || visible=1
		done
		((visible)) || bad_input "-- $cmd0: not under /usr, /bin, /sbin or a share: the guest cannot see it (--share $(dirname "$cmd0"))"
	else
		# the guest's PATH, looked up in the host's view of the file system
		PATH=/bin:/sbin:/usr/bin:/usr/sbin type -P -- "$cmd0" >/dev/null ||
			bad_input "-- $cmd0: no such program in the host's /bin, /sbin, /usr/bin or /usr/sbin (the guest's PATH)"
	fi
	[[ $host_fs != auto ]] || host_fs='command'
	workload_meta="-- $(printf '%q ' "${command_line[@]}")"
	workload_meta=${workload_meta% }
fi
[[ -z $progress_file ]] || : >>"$progress_file" || bad_input "--progress $progress_file: cannot write to it"
# progress EVENT ...: one line for bpk's progress display (--progress)
progress() {
	[[ -z $progress_file ]] || echo "$*" >>"$progress_file" || true
}
# --- end issue 12
[[ -r $root_img ]] || bad_input "$root_img: guest image not built (make appliance)"
[[ -x $triggerctl && -x $collect ]] || bad_input "triggerctl or bpk-collect not built (make all)"
((${#command_line[@]})) || [[ -f $workload && -r $workload ]] || bad_input "$workload: workload not found or not readable"
# What goes into run.meta (key=value lines) and onto the kernel command line
# must be one line, and the runs dir is read back from one line of output.
[[ $workload != *$nl* && $runs != *$nl* ]] || bad_input "--workload and --runs must not contain a newline"
[[ $append$capture_append != *$nl* ]] || bad_input "--append and --capture-append must not contain a newline"
[[ $capture_append != *,* ]] || bad_input "--capture-append '$capture_append': no commas (they carry the spaces)"
[[ $repeat =~ ^[0-9]+$ ]] || bad_input "--repeat '$repeat' is not a number"
[[ $timeout =~ ^[0-9]+$ && $timeout -gt 0 ]] || bad_input "--timeout '$timeout' is not a positive number of seconds"
[[ $mem =~ ^[0-9]+[MG]$ ]] || bad_input "--mem '$mem' is not a size like 512M or 1G"
[[ $smp =~ ^[0-9]+$ && $smp -gt 0 ]] || bad_input "--smp '$smp' is not a positive number"
[[ $accel == auto || $accel == tcg || $accel == kvm ]] || bad_input "--accel '$accel' must be auto, tcg or kvm"
[[ $crashkernel == none || $crashkernel =~ ^[0-9]+[MG]$ ]] || bad_input "--crashkernel '$crashkernel' is not a size like 192M, or none"
[[ $args != *,* ]] || bad_input "--args '$args': commas are not allowed (they separate arguments on the kernel command line)"
[[ $args != *[[:cntrl:]]* ]] || bad_input "--args: a newline or other control character is not allowed (the arguments go on one kernel command line)"
[[ $args != *\"* ]] || bad_input "--args '$args': double quotes are not allowed (the kernel command line would take them as quoting)"
[[ $trigger =~ ^[a-z0-9_]+$ ]] || bad_input "unknown trigger '$trigger' (triggerctl list shows them)"
# Check the trigger and its arguments here, before anything boots: the same
# parser the guest will use, run on the host.
parse_args=()
read -r -a parse_args <<<"$args"
((dry == 0)) || parse_args+=(dry_run)
if [[ $trigger == none ]]; then
	[[ -z $args ]] || bad_input "--trigger none takes no --args"
	((dry == 0)) || bad_input "--dry-run needs a trigger"
else
	"$triggerctl" parse "$trigger" "${parse_args[@]}" >/dev/null || exit 2
fi
# tp=CAT:NAME and func=NAME name things of the kernel that will boot: its
# symbol table (and its modules', where it has them) lists every trace event
# category (str__CAT__trace_system_name), tracepoint (__tracepoint_NAME) and
# function. A name missing there is a typo, refused before the boot; which
# category an event belongs to, and whether a function is in BTF, the guest
# checks when it arms (tracefs, libbpf). syscalls:* the parser has checked.
check_kernel_names() {
	local a key val syms
	for a in "${parse_args[@]}"; do
		key=${a%%=*} val=${a#*=}
		[[ ($key == tp && ${val%%:*} != syscalls) || $key == func ]] || continue
		[[ -n ${syms:-} ]] || syms=$({
			nm "$kernel/vmlinux"
			[[ ! -d $kernel/modules ]] || find "$kernel/modules" -name '*.ko' -exec nm {} +
		} 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u) || true
		[[ -n $syms ]] || die "cannot read the symbol table of $kernel/vmlinux (nm)"
		if [[ $key == func ]]; then
			grep -qxF "$val" <<<"$syms" || bad_input "func=$val: no function $val in this kernel ($flavor: $kernel/vmlinux)"
		elif ! grep -qxF "str__${val%%:*}__trace_system_name" <<<"$syms"; then
			bad_input "tp=$val: no trace event category ${val%%:*} in this kernel ($flavor: $kernel/vmlinux)"
		elif ! grep -qxF "__tracepoint_${val#*:}" <<<"$syms"; then
			bad_input "tp=$val: no tracepoint ${val#*:} in this kernel ($flavor: $kernel/vmlinux)"
		fi
	done
}
[[ $trigger == none ]] || check_kernel_names

# --- issue 13: an attempt restored from an armed snapshot must match it
[[ $attempt =~ ^[0-9]+$ ]] || bad_input "--attempt '$attempt' is not a number"
if [[ -n $restore ]]; then
	[[ -r $restore/ok && -r $restore/meta ]] || bad_input "--restore $restore: not a snapshot made by appliance/snapshot.sh"
	[[ $flavor == ours ]] || bad_input "--restore: snapshots are made of our kernel only, not --kernel $flavor"
	for k in mem smp crashkernel; do
		[[ ${!k} == "$(sed -n "s/^$k=//p" "$restore/meta")" ]] ||
			bad_input "--restore $restore: the snapshot's $k is $(sed -n "s/^$k=//p" "$restore/meta"), this run's ${!k}"
	done
	((reservation_check == 1)) || bad_input "--restore: the snapshot was checked with the reservation check on"
	# an armed snapshot serves its own trigger and arguments only
	snap_trigger=$(sed -n 's/^trigger=//p' "$restore/meta")
	if [[ -n $snap_trigger ]]; then
		[[ $snap_trigger == "$trigger" && $(sed -n 's/^args=//p' "$restore/meta") == "$args" ]] ||
			bad_input "--restore $restore: armed for '$snap_trigger $(sed -n 's/^args=//p' "$restore/meta")', not '$trigger $args'"
		((dry == 0 && sysctl == 1)) || bad_input "--restore $restore: armed without --dry-run or --sysctl-off"
	fi
	[[ $(readlink -f "$kernel_image") == "$(cat "$restore/kernel")" ]] ||
		bad_input "--restore $restore: made for $(cat "$restore/kernel"), this run boots $(readlink -f "$kernel_image")"
	if ((${#field_shares[@]})) || [[ -n $field_share_rw || $host_fs == on ]] ||
		{ [[ $host_fs == auto ]] && why=$(field_needs_host "$workload"); }; then
		bad_input "--restore: the workload needs the host's file system (${why:-shares or --host-fs on}) over 9p, and QEMU cannot migrate a guest with a 9p share"
	fi
fi
# --- end issue 13
err=$(mkdir -p "$runs" 2>&1) || bad_input "cannot create the runs dir: $err"
# The initrd is not evidence: it is built outside the runs dir, which only
# ever holds what the guest sent.
work=$(mktemp -d "${TMPDIR:-/tmp}/bpk-run-XXXXXX") || bad_input "cannot make a temporary dir in ${TMPDIR:-/tmp}"
stage=$(mktemp -d "$runs/.staging-XXXXXX" 2>"$work/mktemp.err") ||
	{ rm -rf "$work" && bad_input "cannot make a staging dir under $runs: $(cat "$work/mktemp.err")"; }
phase=prepare interrupted='' signum=0 qrun=''
progress staging "$stage" # issue 12
if ((${#command_line[@]})); then # issue 12: the command line's script
	workload=$work/command
	command_script "$workload"
fi

# keep_unfiled: the staging dir holds what the guest sent and could not be
# filed: give it a findable name next to the runs, say where it is.
keep_unfiled() {
	local dir base n=1 files
	base=$runs/$(date -u +%Y%m%dT%H%M%SZ)-$trigger
	dir=$base.unfiled
	while [[ -e $dir ]]; do
		n=$((n + 1))
		dir=$base-$n.unfiled
	done
	if mv -T "$stage" "$dir" 2>"$work/mv.err"; then
		stage=''
	else
		say "error: cannot rename $stage to $dir: $(cat "$work/mv.err")"
		dir=$stage
	fi
	files=$(cd "$dir" && find . -mindepth 1 -maxdepth 1 -printf '%f ' | sed 's/ $//')
	say "error: everything the guest sent is kept in $dir ($files)"
	progress unfiled "$dir" # issue 12
}

# At exit: a staging dir still there was not filed. Delete it only if the
# guest never wrote a byte to it.
on_exit() {
	trap '' INT TERM HUP
	if [[ -n $qrun ]]; then stop_guest; fi
	if [[ -n $stage && -d $stage ]]; then
		if [[ -n $(find "$stage" -type f -size +0 -print -quit) ]]; then
			keep_unfiled
		else
			rm -rf "$stage"
		fi
	fi
	rm -rf "$work"
}
trap on_exit EXIT

# alive PID: the process exists and is not a zombie
alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != Z ]]
}

# stop_guest: SIGTERM to qemu-run.sh, which stops QEMU (SIGTERM, then
# SIGKILL after 5 s); if it is still there 10 s later, SIGKILL its whole
# process group (setsid made it the leader: QEMU is in it).
stop_guest() {
	local until
	kill -TERM "$qrun" 2>/dev/null || true
	until=$(($(now_ms) + 10000))
	while alive "$qrun" && (($(now_ms) < until)); do sleep 0.1; done
	if alive "$qrun"; then
		say "qemu-run.sh (pid $qrun) did not stop: SIGKILL to its process group"
		kill -KILL -- "-$qrun" 2>/dev/null || true
	fi
	wait "$qrun" 2>/dev/null || true
	qrun=''
}

# A signal stops the guest, and what exists is filed as interrupted; before
# the boot there is nothing to file.
on_signal() { # on_signal NAME NUMBER
	[[ -n $interrupted ]] || interrupted=SIG$1 signum=$2
	case $phase in
	prepare)
		say "error: interrupted by SIG$1 before the guest booted: nothing to file"
		exit $((128 + $2))
		;;
	guest) say "interrupted by SIG$1: stopping the guest" ;;
	*) say "interrupted by SIG$1: finishing what is under way, then stopping" ;;
	esac
}
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP

# meta_set RUN KEY VALUE: replace (or add) KEY in RUN/run.meta, atomically;
# a failure is named (and, under set -e, ends this script with exit 1)
meta_set() {
	local f=$1/run.meta
	if ! K=$2 V=${3//$nl/ } awk 'index($0, ENVIRON["K"] "=") == 1 { if (!done) print ENVIRON["K"] "=" ENVIRON["V"]; done = 1; next }
		{ print } END { if (!done) print ENVIRON["K"] "=" ENVIRON["V"] }' "$f" >"$f.tmp" 2>"$work/meta.err" ||
		! mv "$f.tmp" "$f" 2>>"$work/meta.err"; then
		rm -f "$f.tmp"
		say "error: cannot set $2= in $f: $(cat "$work/meta.err")"
		return 1
	fi
}

# The run's own piece of the initramfs: the workload. The kernel unpacks
# concatenated cpio archives in order, so it is appended to the shared image.
step "image"
mkdir -p "$work/wl/etc/bpk"
cp "$workload" "$work/wl/etc/bpk/workload"
chmod 755 "$work/wl/etc/bpk/workload"
field_hostfs "$host_fs" "$workload" "$work/wl" # issue 11: the host's programs
(cd "$work/wl" && find . | LC_ALL=C sort | cpio -o -H newc --owner 0:0 --quiet) | gzip -1 >"$work/wl.cpio.gz"
cat "$root_img" "$work/wl.cpio.gz" >"$work/initrd.cpio.gz"
step_done

cmdline="bpk.job=appliance bpk.trigger=$trigger bpk.repeat=$repeat"
[[ -z $args ]] || cmdline+=" bpk.args=$(tr ' ' ',' <<<"$args")"
((dry == 0)) || cmdline+=" bpk.dry=1"
# the guest job hands the crash kernel these words (commas for spaces)
[[ -z $capture_append ]] || cmdline+=" bpk.capture_append=$(tr ' ' ',' <<<"$capture_append")"
((kexec_checks == 0)) || cmdline+=" bpk.kexec_checks=1"
[[ -z $append ]] || cmdline+=" $append"
((sysctl == 1)) || cmdline+=" bpk.sysctl=0"
((reservation_check == 1)) || cmdline+=" bpk.reservation_check=0"
# An oops is a field bug too: by default it panics, so it is dumped.
((panic_on_oops == 0)) || cmdline+=" oops=panic"
((panic_on_warn == 0)) || cmdline+=" panic_on_warn=1"
[[ $crashkernel == none ]] || cmdline+=" crashkernel=$crashkernel"
((field_preinit == 0)) || cmdline+=" rdinit=/etc/bpk/preinit" # issue 11
# --- issue 13: the attempt number; a restore boots nothing: the snapshot's
# initrd and command line (they must match what was saved), RAM mapped
# copy-on-write from its file, and what a command line would say goes over
# the control port, sent by qmp.py once the guest runs again
((attempt == 0)) || cmdline+=" bpk.attempt=$attempt"
if [[ -n $restore ]]; then
	ln -sf "$restore/initrd" "$work/initrd.cpio.gz"
	cmdline=$(cat "$restore/append")
	mkfifo "$work/control.in" "$work/control.out"
	{
		echo "BPK-CONTROL trigger=$trigger args=$(tr ' ' ',' <<<"$args") repeat=$repeat dry=$dry" \
			"sysctl=$sysctl panic_on_oops=$panic_on_oops panic_on_warn=$panic_on_warn attempt=$attempt" \
			"seed=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n') size=$(stat -c %s "$workload")"
		cat "$workload"
	} >"$work/control.msg"
	# QEMU's own comma-separated options: a comma in a path is doubled
	# shellcheck disable=SC2054
	qemu_args+=(-object "memory-backend-file,id=bpkmem,size=$mem,mem-path=${restore//,/,,}/ram,share=off"
		-machine memory-backend=bpkmem -incoming defer -qmp "unix:${work//,/,,}/qmp.sock,server=on,wait=off"
		-chardev "pipe,id=bpkctl,path=${work//,/,,}/control" -device virtserialport,chardev=bpkctl,name=control)
	"$here/qmp.py" restore "$work/qmp.sock" "$restore/state" "$work/control.in" "$work/control.msg" \
		>"$work/restore.out" 2>"$work/restore.err" </dev/null &
	feeder=$!
	campaign_meta+=(--meta "restored_from=$restore")
fi
((attempt == 0)) || campaign_meta+=(--meta "attempt=$attempt")
# --- end issue 13

step "guest (trigger $trigger${args:+ $args})"
t_boot=$(now_ms)
qemu_rc=0
phase=guest
# Its own session and process group: a signal to this script is passed on
# by on_signal, and the group can be killed whole if need be.
setsid "$here/qemu-run.sh" --kernel "$kernel_image" --initrd "$work/initrd.cpio.gz" \
	--append "$cmdline" --mem "$mem" --smp "$smp" --accel "$accel" --timeout "$timeout" \
	--console "$stage/console.log" --port "results=$stage/results.txt" \
	--port "dmesg=$stage/dmesg.txt" --port "dump=$stage/dump.flat" \
	--port "status=$stage/status.txt" --quiet -- "${qemu_args[@]}" </dev/null &
qrun=$!
progress guest # issue 12
# A trapped signal ends "wait" early, with qemu-run.sh still running.
while :; do
	qemu_rc=0
	wait "$qrun" || qemu_rc=$?
	if [[ -n $interrupted ]]; then
		alive "$qrun" && stop_guest
		qemu_rc=$((128 + signum))
		break
	fi
	alive "$qrun" || break
done
qrun=''
qemu_ms=$(($(now_ms) - t_boot))
# --- issue 13: a restored run's console and guest log begin with the
# snapshot's boot (the first kernel's command line, its states until idle)
if [[ -n $restore ]]; then
	kill "$feeder" 2>/dev/null || true
	wait "$feeder" 2>/dev/null || true
	if [[ -s $work/restore.out ]]; then
		campaign_meta+=(--meta "$(cat "$work/restore.out")")
	else
		why=$(tail -1 "$work/restore.err" 2>/dev/null || true)
		# qmp.py said nothing: QEMU ended before it could restore (an
		# option QEMU refused, say: its own message is above)
		[[ -n $why ]] || why="QEMU exited (status $qemu_rc) before qmp.py could restore the snapshot $restore"
		say "error: the restore failed: $why"
		campaign_meta+=(--meta "restore_error=$why")
	fi
	for f in console.log results.txt; do
		[[ ! -e $stage/$f ]] || { cat "$restore/$f" "$stage/$f" >"$stage/$f.whole" && mv "$stage/$f.whole" "$stage/$f"; }
	done
fi
# --- end issue 13
rm -f "$work/initrd.cpio.gz"
case $qemu_rc in
124) say "the guest did not finish within ${timeout}s: QEMU was killed" ;;
125) say "the file system of $stage is full: QEMU was stopped" ;;
esac
step_done "QEMU exit status $qemu_rc"
progress guest-end "$qemu_rc" # issue 12

step "collect"
phase=collect
progress collect # issue 12
collect_args=(--staging "$stage" --runs "$runs" --trigger "$trigger"
	--meta "trigger_args=$args" --meta "mem=$mem" --meta "smp=$smp"
	--meta "crashkernel=$crashkernel" --meta "accel=$accel" --meta "destructive_sysctl=$sysctl"
	--meta "panic_on_oops=$panic_on_oops" --meta "panic_on_warn=$panic_on_warn"
	--meta "workload=${workload_meta:-$(basename "$workload")}" --meta "kernel=$(basename "$(readlink -f "$kernel")")"
	--meta "vmlinux=$(readlink -f "$kernel/vmlinux")" --meta "qemu_exit=$qemu_rc"
	--meta "qemu_wall_s=$((qemu_ms / 1000)).$(printf '%03d' $((qemu_ms % 1000)))")
((dry == 0)) || collect_args+=(--dry-run)
[[ -z $interrupted ]] || collect_args+=(--interrupted "$interrupted")
collect_args+=("${field_meta[@]}") # issue 11: kernel flavor and package, host_fs, shares
collect_args+=("${campaign_meta[@]}") # issue 13: attempt, restored_from, restore_s
collect_rc=0
rundir=$("$collect" "${collect_args[@]}") || collect_rc=$?
if ((collect_rc != 0 && collect_rc != 1)) || [[ -z $rundir || ! -d $rundir ]]; then
	# 3: an I/O error filing it (named by the collector); 2 would be a
	# check this script missed. Either way, after the guest ran: keep it.
	step_done "not filed (bpk-collect exit $collect_rc)"
	keep_unfiled
	exit 3
fi
stage=''
step_done "$rundir"
progress filed "$rundir" # issue 12

if ((dry)); then
	grep -E '^(BPK-STATE|bpk:|[a-z_]+ (matches|record))' "$rundir/guest.log" 2>/dev/null || true
fi

# The report, whenever there is a vmcore to read (a run can fail and still
# hold a verified dump, e.g. when only vmcore-dmesg failed).
report_rc=0
if ((report)) && [[ -z $interrupted && -r $rundir/vmcore ]]; then
	step "analysis"
	phase=report
	progress report # issue 12
	"$top/analysis/report.sh" "$rundir" 2>"$work/report.err" || report_rc=$?
	cat "$work/report.err" >&2
	report_err=$(grep -m1 '^report.sh: error:' "$work/report.err" || tail -1 "$work/report.err")
	if ((report_rc != 0)); then
		# run.meta must not say success for a run that exits 1
		why="the report failed: ${report_err#*error: }"
		if [[ $(sed -n 's/^status=//p' "$rundir/run.meta") == success ]]; then
			meta_set "$rundir" status failed
			meta_set "$rundir" reason "$why (the vmcore itself is complete and verified)"
		else
			meta_set "$rundir" reason "$(sed -n 's/^reason=//p' "$rundir/run.meta"); $why"
		fi
		step_done "failed: $why"
	else
		step_done "$rundir/report.txt"
	fi
	progress report-end "$report_rc" # issue 12
fi

if [[ -n $interrupted ]]; then
	if [[ $(sed -n 's/^status=//p' "$rundir/run.meta") != interrupted ]]; then
		meta_set "$rundir" status interrupted
		meta_set "$rundir" interrupted "$interrupted"
		meta_set "$rundir" reason "interrupted by $interrupted after the guest ended ($phase)"
	fi
fi
# A run the report did not cover (no vmcore, interrupted, a report that
# stopped early) still gets its report.json: the run's own facts, status,
# reason and timings, so scripts read every run the same way. One the
# report wrote gets run.meta's final status (a failed report changed it).
if ((report)) && [[ ! -e $rundir/report.json ]]; then
	"$top/analysis/report-merge.py" --run "$rundir" --json "$rundir/report.json" ||
		say "could not write $rundir/report.json"
elif ((report)); then
	"$top/analysis/report-merge.py" --run "$rundir" --refresh ||
		say "could not bring $rundir/report.json up to date with run.meta"
fi

if [[ -n $interrupted ]]; then
	say "error: interrupted by $interrupted: run filed as interrupted in $rundir"
	exit $((128 + signum))
fi
if ((report_rc != 0)); then
	say "error: run filed as failed in $rundir: $(sed -n 's/^reason=//p' "$rundir/run.meta")"
fi
# bpk-collect has said why a run failed
((collect_rc == 0 && report_rc == 0)) || exit 1
say "run filed: $rundir"
# At a terminal, the report is followed by crash itself on the new vmcore.
if ((report)) && ((dry == 0)) && ((open_crash)) && [[ -t 0 && -t 1 ]]; then
	rm -rf "$work" # exec runs no EXIT trap
	exec "$top/analysis/open-crash.sh" --no-report "$rundir"
fi
