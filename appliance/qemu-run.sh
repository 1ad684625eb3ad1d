#!/usr/bin/env bash
# Boot the appliance kernel in QEMU with a hard timeout.
#
#   qemu-run.sh --kernel BZIMAGE --initrd CPIO --console FILE [options] [-- QEMU-ARGS]
#
#   --append STR      extra kernel command line (console=ttyS0 panic=-1 is always set)
#   --mem SIZE        guest memory (default 1G)
#   --smp N           guest CPUs (default 2)
#   --accel MODE      auto | tcg | kvm (default auto, or $BPK_ACCEL): auto uses KVM
#                     only if a probe boot under KVM reaches the kernel banner
#   --timeout SEC     kill QEMU after SEC seconds (default 300)
#   --port NAME=FILE  a virtio-serial port NAME whose guest output lands in FILE
#   --quiet           no progress lines
#   --probe-accel     print what --accel auto picks (kvm or tcg) for --kernel, exit
#
# Exit: QEMU's status when the guest ended by itself (power off, or reboot after
# a panic: -no-reboot); 124 when the timeout killed it; 125 when it was
# stopped because the file system of its output files is full (QEMU drops
# what it cannot write, and a guest writing to a port then waits for ever);
# 128+N when this script got signal N (SIGINT, SIGTERM, SIGHUP); 2 on bad
# arguments. However it ends, QEMU is stopped first: SIGTERM, then SIGKILL
# if it is still there after a grace period (5 s).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

kernel='' initrd='' console='' append='' mem=1G smp=2 accel=${BPK_ACCEL:-auto} timeout=300 quiet=0 probe=0
ports=()
grace=5
# KVM is only used where it was seen to work: on some hosts /dev/kvm exists
# but a guest hangs during decompression (nested virtualisation). The probe
# result is cached per QEMU version and kernel image.
kvm_works() {
	[[ -w /dev/kvm ]] || return 1
	local cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}
	local key
	key=$({ qemu-system-x86_64 --version | head -1; sha256sum <"$kernel"; } | sha256sum | cut -c1-16)
	local verdict=$cache/kvm-probe-$key
	if [[ ! -e $verdict ]]; then
		mkdir -p "$cache"
		local log
		log=$(mktemp)
		timeout 15 qemu-system-x86_64 -accel kvm -cpu host -m 256M -smp 1 -nodefaults \
			-display none -no-reboot -serial "file:$log" -kernel "$kernel" \
			-append "console=ttyS0 panic=-1 rdinit=/nonexistent" >/dev/null 2>&1 || true
		if grep -q 'Linux version' "$log"; then echo yes >"$verdict"; else echo no >"$verdict"; fi
		rm -f "$log"
	fi
	[[ $(cat "$verdict") == yes ]]
}

while (($#)); do
	case $1 in
	--kernel) kernel=${2:?--kernel needs a file} && shift ;;
	--initrd) initrd=${2:?--initrd needs a file} && shift ;;
	--console) console=${2:?--console needs a file} && shift ;;
	--append) append=${2?--append needs a string} && shift ;;
	--mem) mem=${2:?--mem needs a size} && shift ;;
	--smp) smp=${2:?--smp needs a number} && shift ;;
	--accel) accel=${2:?--accel needs auto, tcg or kvm} && shift ;;
	--timeout) timeout=${2:?--timeout needs seconds} && shift ;;
	--port) ports+=("${2:?--port needs NAME=FILE}") && shift ;;
	--quiet) quiet=1 ;;
	--probe-accel) probe=1 ;;
	--) shift && break ;;
	*) bad_input "unknown argument '$1' (see the header of $0)" ;;
	esac
	shift
done
extra=("$@")

[[ -n $kernel ]] || bad_input "--kernel is required"
[[ -r $kernel ]] || bad_input "$kernel: kernel image not found"
if ((probe)); then # --probe-accel: print what --accel auto picks (make bench)
	if kvm_works; then echo kvm; else echo tcg; fi
	exit 0
fi
[[ -n $initrd ]] || bad_input "--initrd is required"
[[ -r $initrd ]] || bad_input "$initrd: initramfs not found"
[[ -n $console ]] || bad_input "--console is required"
[[ $timeout =~ ^[0-9]+$ && $timeout -gt 0 ]] || bad_input "--timeout '$timeout' is not a positive number of seconds"
[[ $smp =~ ^[0-9]+$ && $smp -gt 0 ]] || bad_input "--smp '$smp' is not a positive number"
[[ $mem =~ ^[0-9]+[MG]$ ]] || bad_input "--mem '$mem' is not a size like 512M or 1G"
need_cmd qemu-system-x86_64 qemu-system-x86

case $accel in
tcg) accel_args=(-accel tcg -cpu max) ;;
kvm) accel_args=(-accel kvm -cpu host) ;;
auto)
	if kvm_works; then
		accel=kvm accel_args=(-accel kvm -cpu host)
	else
		accel=tcg accel_args=(-accel tcg -cpu max)
	fi
	;;
*) bad_input "--accel '$accel' must be auto, tcg or kvm" ;;
esac

port_args=()
outputs=("$console")
if ((${#ports[@]})); then
	port_args=(-device virtio-serial-pci)
	i=0
	for p in "${ports[@]}"; do
		[[ $p == ?*=?* ]] || bad_input "--port '$p' is not NAME=FILE"
		[[ ${p%%=*} =~ ^[A-Za-z0-9_.-]+$ ]] || bad_input "--port '$p': a port name is letters, digits, '.', '_' or '-'"
		path=${p#*=}
		: >"$path" || die "$path: cannot create"
		# QEMU's option syntax: a comma inside a value is written twice
		port_args+=(-chardev "file,id=port$i,path=${path//,/,,}"
			-device "virtserialport,chardev=port$i,name=${p%%=*}")
		outputs+=("$path")
		i=$((i + 1))
	done
fi

: >"$console" || die "$console: cannot create"
cmd=(qemu-system-x86_64 "${accel_args[@]}" -m "$mem" -smp "$smp" -nodefaults
	-display none -no-reboot -serial "file:$console"
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 $append"
	"${port_args[@]}" "${extra[@]}")

# alive PID: the process exists and is not a zombie
alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != Z ]]
}

# stop_qemu: SIGTERM, then SIGKILL after the grace period; reaps it.
stop_qemu() {
	local until
	[[ -n ${qemu_pid:-} ]] || return 0
	if alive "$qemu_pid"; then
		kill -TERM "$qemu_pid" 2>/dev/null || true
		until=$(($(now_ms) + grace * 1000))
		while alive "$qemu_pid" && (($(now_ms) < until)); do sleep 0.1; done
		if alive "$qemu_pid"; then
			say "QEMU (pid $qemu_pid) still running ${grace}s after SIGTERM: SIGKILL"
			kill -KILL "$qemu_pid" 2>/dev/null || true
		fi
	fi
	wait "$qemu_pid" 2>/dev/null || true
	qemu_pid=''
}

# shellcheck disable=SC2317 # called from the traps below
on_signal() { # on_signal NAME NUMBER
	trap '' INT TERM HUP
	stop_qemu
	say "error: interrupted by SIG$1: stopped QEMU; console: $console"
	exit $((128 + $2))
}

# full_and_stalled: an output file's file system has (next to) no room left
# and the outputs stopped growing for 5 s: what the guest sends now is lost,
# and a guest writing to a port waits for ever. Sets full_dir. Free blocks
# as QEMU sees them: root may use the blocks reserved for it.
last_bytes=-1 stalled_since=0 full_dir=''
free_fmt='%a %S'
((EUID != 0)) || free_fmt='%f %S'
full_and_stalled() {
	local f avail bsize bytes=0 full=''
	for f in "${outputs[@]}"; do
		read -r avail bsize < <(stat -f -c "$free_fmt" "$f" 2>/dev/null || echo 1 65536)
		((avail * bsize >= 65536)) || full=$(dirname "$f")
		bytes=$((bytes + $(stat -c %s "$f" 2>/dev/null || echo 0)))
	done
	if [[ -z $full ]] || ((bytes != last_bytes)); then
		last_bytes=$bytes stalled_since=$(now_ms)
		return 1
	fi
	(($(now_ms) - stalled_since >= 5000)) || return 1
	full_dir=$full
}

((quiet)) || say "booting ($accel, $mem, $smp cpus, timeout ${timeout}s), console: $console"
t0=$(now_ms)
"${cmd[@]}" </dev/null &
qemu_pid=$!
# Never leave QEMU behind, whatever stops this script.
trap stop_qemu EXIT
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP

deadline=$((t0 + timeout * 1000))
n=0 rc=''
# Checks every 0.2 s, but QEMU's exit is seen at once: wait -n returns on
# whichever ends first, the check's sleep or QEMU (with QEMU's status).
while [[ -z $rc ]]; do
	if (($(now_ms) >= deadline)); then
		stop_qemu
		say "error: guest did not finish within ${timeout}s: killed QEMU; console: $console"
		exit 124
	fi
	if ((++n % 5 == 0)) && full_and_stalled; then
		stop_qemu
		say "error: $full_dir: No space left on device: the file system is full and the guest's output stopped growing: stopped QEMU; console: $console"
		exit 125
	fi
	sleep 0.2 &
	tick=$!
	ended='' st=0
	# (bash 5.2 says "wait_for: No record of process" when QEMU and the
	# tick ended together and the previous wait -n reaped both; QEMU's
	# status is then taken by the plain wait below)
	wait -n -p ended "$qemu_pid" "$tick" 2>/dev/null || st=$?
	if [[ $ended == "$qemu_pid" ]]; then
		rc=$st
		kill "$tick" 2>/dev/null || true
		wait "$tick" 2>/dev/null || true
	elif [[ $ended != "$tick" ]] && ! alive "$qemu_pid"; then
		# a trapped signal ended the wait; its handler has run
		rc=0
		wait "$qemu_pid" || rc=$?
	fi
done
qemu_pid=''
trap - EXIT INT TERM HUP
((quiet)) || say "QEMU exited with status $rc after $(fmt_ms $(($(now_ms) - t0)))"
exit "$rc"
