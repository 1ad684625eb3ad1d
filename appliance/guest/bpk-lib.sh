# shellcheck shell=sh
# bpk-lib.sh: the guest side of the appliance's protocol with the host,
# defined once. Sourced (never run) by every guest script that speaks it:
#
#   root initramfs  /init (appliance/guest/init), /etc/bpk/preinit,
#                   /etc/bpk/jobs/appliance and the test jobs
#   kdump image     /init (bpk-init.sh), which sources bpk-capture.sh
#
# It lands at /usr/lib/bpk/bpk-lib.sh in both images (appliance/mkinitramfs.sh
# puts it in every root initramfs, 99bpkdump/module-setup.sh in the kdump
# image). POSIX sh, run by busybox ash (dash works too). It starts no
# process of its own unless stated: under TCG every process costs 20-40 ms,
# and the kdump image has no tools but busybox's sh, mount, sleep, sync.
# Source it once /proc is mounted: it reads the kernel command line then.
#
# The whole protocol, for a newcomer: docs/guest-protocol.md. In short:
#
# Kernel command line (the host writes it; read with bpk_param): bpk.job
# bpk.trigger bpk.args bpk.repeat bpk.dry bpk.sysctl bpk.reservation_check
# bpk.capture_append bpk.kexec_checks bpk.control bpk.attempt (bpk.loads: a
# test job's own). In bpk.args and bpk.capture_append a comma stands for a
# space.
#
# Progress lines, on the results port (bpk_state):
#   BPK-STATE <state> t=<uptime seconds>[ k=v ...]
# one space between words, t= always second; the host (collector/guestlog.c)
# keys on the state and on " t=", " action=", " reason=" (the rest of the
# line, spaces and all). The states:
#   booted               the job started
#   crash-kernel-loaded  crash_size=<bytes> [restored=1]
#   host-dump-ready      pvpanic=<device> [restored=1]: no crash kernel, the
#                        host dumps the guest (bpk.dump=host)
#   idle                 port=/dev/vportNpM: waiting on the control port
#   restored             the control header arrived
#   armed                trigger=<name> action=<fire action|none> [restored=1]
#   refused              reason=<text to the end of the line>: nothing armed
#   dry-run-done         runs=<n>: a dry run's workload ran to the end
#   not-fired            runs=<n>: the workload ended, the trigger never fired
# /init ends the job's output with "JOB-EXIT <status>" (bpk_job_exit).
#
# Virtio-serial ports, found by name (bpk_find_port): results (the job's
# output), dmesg (vmcore-dmesg), dump (makedumpfile -F), status (the capture
# step's key=value record, last line "end"), control (a snapshot's attempt:
# "BPK-CONTROL k=v ..." and size= bytes of workload, bpk_control_receive).
#
# Names: functions bpk_*, their results in lowercase bpk_* variables,
# constants BPK_*, scratch variables _bpk_* (no "local": POSIX sh has none).

# shellcheck disable=SC2034 # for the scripts that source this
{
	bpk_lib_loaded=1 # sourced already: bpk-capture.sh does not again
	# where the kernel lists the virtio-serial ports, each with its name
	BPK_PORTS_DIR=/sys/class/virtio-ports
	# the port names QEMU gives (bpk/protocol.h, set by bpk/qemu.c)
	BPK_PORT_RESULTS=results
	BPK_PORT_DMESG=dmesg
	BPK_PORT_DUMP=dump
	BPK_PORT_STATUS=status
	BPK_PORT_CONTROL=control
	BPK_PORT_WORKLOAD=workload
	# where a run's own program is (triggers/userprog.h USERPROG_DIR)
	BPK_USERPROG_DIR=/etc/bpk/prog
	# every state bpk_state is called with (see above)
	BPK_STATES="booted crash-kernel-loaded host-dump-ready idle restored armed refused dry-run-done not-fired"
}

# bpk_cmdline_load: (re)read /proc/cmdline into $bpk_cmdline. Done once when
# the library is sourced with /proc mounted; bpk_param does it when not.
bpk_cmdline_load() {
	bpk_cmdline=
	[ -r /proc/cmdline ] || return 1
	read -r bpk_cmdline </proc/cmdline
	bpk_cmdline_loaded=1
}

# bpk_param NAME [DEFAULT]: print the value of the first NAME=value word of
# the kernel command line, or DEFAULT (empty if not given). The command line
# is split into words and never globbed.
bpk_param() {
	[ -n "${bpk_cmdline_loaded:-}" ] || bpk_cmdline_load
	_bpk_v=${2-}
	case $- in *f*) _bpk_param_f=1 ;; *) _bpk_param_f=0 ;; esac
	set -f
	# shellcheck disable=SC2086 # split into words on purpose
	for _bpk_w in $bpk_cmdline; do
		case $_bpk_w in "$1="*)
			_bpk_v=${_bpk_w#"$1="}
			break
			;;
		esac
	done
	[ "$_bpk_param_f" = 1 ] || set +f
	printf '%s\n' "$_bpk_v"
}

# bpk_uptime: $bpk_uptime, the seconds since boot (the first field of
# /proc/uptime as the kernel prints it, e.g. 2.37). There is no RTC in the
# guest: this is its only clock.
bpk_uptime() {
	read -r _bpk_l </proc/uptime
	bpk_uptime=${_bpk_l%% *}
}

# bpk_state STATE [k=v ...]: the progress line
#   BPK-STATE <STATE> t=<uptime>[ k=v ...]
# on stdout, which /init sends to the results port (and the console). Each
# non-empty argument becomes one more space-separated word; an argument may
# hold spaces itself (reason=, last on its line).
bpk_state() {
	bpk_uptime
	_bpk_line="BPK-STATE $1 t=$bpk_uptime"
	shift
	for _bpk_a in "$@"; do
		[ -z "$_bpk_a" ] || _bpk_line="$_bpk_line $_bpk_a"
	done
	printf '%s\n' "$_bpk_line"
}

# bpk_workload_start RUNS: "BPK-WORKLOAD t=<uptime> runs=<RUNS>", on stdout
# as bpk_state: the workload starts now. From here on the job says only
# not-fired or dry-run-done; the host takes any other state as the guest's
# user space claiming it.
bpk_workload_start() {
	bpk_uptime
	printf 'BPK-WORKLOAD t=%s runs=%s\n' "$bpk_uptime" "$1"
}

# bpk_job_exit STATUS: "JOB-EXIT <status>", which /init writes to the
# results port after the job's output when the job ends
bpk_job_exit() {
	printf 'JOB-EXIT %s\n' "$1"
}

# bpk_find_port NAME: print /dev/vportNpM of the virtio-serial port QEMU
# named NAME and leave it in $bpk_port (call it as "bpk_find_port NAME
# >/dev/null" to save the fork of a $(...)); 1 if there is none. Reads each
# port's name with the builtin read: no process per port.
bpk_find_port() {
	bpk_port=
	_bpk_want=$1
	case $- in *f*) _bpk_port_f=1 ;; *) _bpk_port_f=0 ;; esac
	set +f # the one glob
	set -- "$BPK_PORTS_DIR"/*
	[ "$_bpk_port_f" = 0 ] || set -f
	for _bpk_p in "$@"; do
		_bpk_n=
		[ -r "$_bpk_p/name" ] && read -r _bpk_n <"$_bpk_p/name"
		if [ "$_bpk_n" = "$_bpk_want" ]; then
			bpk_port=/dev/${_bpk_p##*/}
			printf '%s\n' "$bpk_port"
			return 0
		fi
	done
	return 1
}

# bpk_count_ports: $bpk_nports, the virtio-serial ports there are, and
# $bpk_nnamed, how many of them QEMU has named yet (names arrive after the
# driver is up, asynchronously).
bpk_count_ports() {
	bpk_nports=0 bpk_nnamed=0
	case $- in *f*) _bpk_count_f=1 ;; *) _bpk_count_f=0 ;; esac
	set +f # the one glob
	set -- "$BPK_PORTS_DIR"/*
	[ "$_bpk_count_f" = 0 ] || set -f
	for _bpk_p in "$@"; do
		[ -e "$_bpk_p" ] || continue
		bpk_nports=$((bpk_nports + 1))
		[ -s "$_bpk_p/name" ] && bpk_nnamed=$((bpk_nnamed + 1))
	done
}

# bpk_control_receive HANDLER FILE: take one message from the host on the
# "control" port (a snapshot's attempt, bpk.control=1):
#
#   BPK-CONTROL k=v k=v ...\n      one header line, words split on spaces
#   <size= bytes>                  the workload, exactly that many
#
# Says "idle port=..." once the port is open and waits for the host (it
# writes only after restoring the snapshot); says "restored" when the
# header arrives; calls "HANDLER KEY VALUE" for every k=v word of it, in
# order (size= included); writes the size= bytes that follow to FILE.
# One open of the port for both, on fd 3: closing it would discard what the
# port has buffered. The header is read by the builtin read, a byte at a
# time, so the workload's bytes are left to head -c (a process: this runs
# in the root image only). Sets $bpk_control_port, $bpk_control_hdr,
# $bpk_control_size and $bpk_control_got (the bytes written to FILE).
# Status: 0 received; 1 no port named control; 2 the port cannot be opened;
# 3 the line is not a BPK-CONTROL header; 4 no size= (or not a number);
# 5 fewer than size= bytes followed.
bpk_control_receive() {
	_bpk_handler=$1 _bpk_file=$2
	bpk_control_hdr='' bpk_control_size='' bpk_control_got=''
	bpk_control_prog_size='' bpk_control_trigger=''
	bpk_control_port=''
	bpk_find_port "$BPK_PORT_CONTROL" >/dev/null || return 1
	bpk_control_port=$bpk_port
	command exec 3<"$bpk_control_port" || return 2
	bpk_state idle "port=$bpk_control_port"
	while [ -z "$bpk_control_hdr" ]; do
		# EOF while the host side is not connected: wait for it
		read -r bpk_control_hdr <&3 || sleep 0.05
	done
	bpk_state restored
	case $bpk_control_hdr in
	"BPK-CONTROL "* | BPK-CONTROL) ;;
	*)
		exec 3<&-
		return 3
		;;
	esac
	case $- in *f*) _bpk_ctl_f=1 ;; *) _bpk_ctl_f=0 ;; esac
	set -f
	# shellcheck disable=SC2086 # split into words on purpose
	for _bpk_w in $bpk_control_hdr; do
		case $_bpk_w in
		?*=*)
			case ${_bpk_w%%=*} in
			size) bpk_control_size=${_bpk_w#*=} ;;
			prog_size) bpk_control_prog_size=${_bpk_w#*=} ;;
			trigger) bpk_control_trigger=${_bpk_w#*=} ;;
			esac
			"$_bpk_handler" "${_bpk_w%%=*}" "${_bpk_w#*=}"
			;;
		esac
	done
	[ "$_bpk_ctl_f" = 1 ] || set +f
	case $bpk_control_size in
	'' | *[!0-9]*)
		exec 3<&-
		return 4
		;;
	esac
	case $bpk_control_prog_size$bpk_control_trigger in
	*[!0-9A-Za-z_]*)
		exec 3<&-
		return 6
		;;
	esac
	# the workload, then a program of the run's own (the trigger of that
	# name) when prog_size= says so: read whole as one file, split after
	# (busybox's head may read a device beyond its count)
	_bpk_all=$((bpk_control_size + ${bpk_control_prog_size:-0}))
	head -c "$_bpk_all" <&3 >"$_bpk_file.all"
	exec 3<&-
	bpk_control_got=$(stat -c %s "$_bpk_file.all")
	if [ "$bpk_control_got" != "$_bpk_all" ]; then
		rm -f "$_bpk_file.all"
		return 5
	fi
	if [ -n "$bpk_control_prog_size" ]; then
		mkdir -p "$BPK_USERPROG_DIR"
		tail -c "$bpk_control_prog_size" "$_bpk_file.all" >"$BPK_USERPROG_DIR/$bpk_control_trigger.bpf.o"
		head -c "$bpk_control_size" "$_bpk_file.all" >"$_bpk_file"
		rm -f "$_bpk_file.all"
	else
		mv "$_bpk_file.all" "$_bpk_file"
	fi
	bpk_control_got=$(stat -c %s "$_bpk_file")
	[ "$bpk_control_got" = "$bpk_control_size" ] || return 5
}

[ ! -r /proc/cmdline ] || bpk_cmdline_load

# bpk_host_view WHO: build the host's view of the file system under /host,
# where the workload runs (chroot), from /etc/bpk/hostfs: the host's /usr
# and the shares over virtio 9p, read-only unless the host marked a share
# rw; /bin, /lib* as the host has them (symlinks into /usr on a merged-/usr
# system, in the image); the few /etc files the host copied in; /proc,
# /sys, /dev, /tmp; and /etc/bpk (the workload) bound from the appliance.
# /host/.ready says it worked, /host/.error why not; WHO prefixes the
# console lines. Read-only shares are cached (the host's /usr does not
# change under a run), the writable one is not.
bpk_host_view() {
	_bpk_who=$1
	bpk_uptime
	_bpk_t0=$bpk_uptime
	if ! grep -qw 9p /proc/filesystems; then
		_bpk_hv_fail "this kernel has no 9p file system (CONFIG_9P_FS, or the 9p module)"
		return
	fi
	# each line: TAG MODE PATH (the path last: it may hold spaces)
	while read -r _bpk_tag _bpk_mode _bpk_path; do
		if [ "$_bpk_mode" = rw ]; then
			_bpk_opts=trans=virtio,version=9p2000.L,msize=512000,rw
		else
			_bpk_opts=trans=virtio,version=9p2000.L,msize=512000,ro,cache=loose
		fi
		mkdir -p "/host$_bpk_path" 2>/dev/null
		if ! mount -t 9p -o "$_bpk_opts" "$_bpk_tag" "/host$_bpk_path"; then
			_bpk_hv_fail "mounting 9p share $_bpk_tag at $_bpk_path failed"
			return
		fi
	done </etc/bpk/hostfs
	for _bpk_d in proc sys dev tmp run root var/tmp etc/bpk; do mkdir -p "/host/$_bpk_d"; done
	chmod 1777 /host/tmp /host/var/tmp
	if ! { mount -t proc proc /host/proc && mount -t sysfs sysfs /host/sys &&
		mount -t devtmpfs devtmpfs /host/dev && mount --bind /etc/bpk /host/etc/bpk; }; then
		_bpk_hv_fail "mounting /proc, /sys, /dev or /etc/bpk in /host failed"
		return
	fi
	mount -t debugfs debugfs /host/sys/kernel/debug 2>/dev/null
	mount -t tracefs tracefs /host/sys/kernel/tracing 2>/dev/null
	mkdir -p /host/dev/pts && mount -t devpts devpts /host/dev/pts 2>/dev/null
	if [ ! -x /host/usr/bin/env ]; then
		_bpk_hv_fail "the host's /usr is mounted but has no usr/bin/env"
		return
	fi
	: >/host/.ready
	bpk_uptime
	echo "$_bpk_who: host view ready: $(grep -c . /etc/bpk/hostfs) 9p shares (from ${_bpk_t0}s to ${bpk_uptime}s)" >/dev/console
}
_bpk_hv_fail() {
	echo "$*" >/host/.error
	echo "$_bpk_who: host view: $*" >/dev/console
}
