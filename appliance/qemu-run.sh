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
#
# Exit: QEMU's status when the guest ended by itself (power off, or reboot after
# a panic: -no-reboot); 124 when the timeout killed it; 2 on bad arguments.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/log.sh
. "$here/../lib/log.sh"

kernel='' initrd='' console='' append='' mem=1G smp=2 accel=${BPK_ACCEL:-auto} timeout=300 quiet=0
ports=()
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
	--) shift && break ;;
	*) bad_input "unknown argument '$1' (see the header of $0)" ;;
	esac
	shift
done
extra=("$@")

[[ -n $kernel ]] || bad_input "--kernel is required"
[[ -r $kernel ]] || bad_input "$kernel: kernel image not found"
[[ -n $initrd ]] || bad_input "--initrd is required"
[[ -r $initrd ]] || bad_input "$initrd: initramfs not found"
[[ -n $console ]] || bad_input "--console is required"
[[ $timeout =~ ^[0-9]+$ && $timeout -gt 0 ]] || bad_input "--timeout '$timeout' is not a positive number of seconds"
[[ $smp =~ ^[0-9]+$ && $smp -gt 0 ]] || bad_input "--smp '$smp' is not a positive number"
[[ $mem =~ ^[0-9]+[MG]$ ]] || bad_input "--mem '$mem' is not a size like 512M or 1G"
need_cmd qemu-system-x86_64 qemu-system-x86

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
if ((${#ports[@]})); then
	port_args=(-device virtio-serial-pci)
	i=0
	for p in "${ports[@]}"; do
		[[ $p == ?*=?* ]] || bad_input "--port '$p' is not NAME=FILE"
		: >"${p#*=}" || die "${p#*=}: cannot create"
		port_args+=(-chardev "file,id=port$i,path=${p#*=}"
			-device "virtserialport,chardev=port$i,name=${p%%=*}")
		i=$((i + 1))
	done
fi

: >"$console" || die "$console: cannot create"
cmd=(qemu-system-x86_64 "${accel_args[@]}" -m "$mem" -smp "$smp" -nodefaults
	-display none -no-reboot -serial "file:$console"
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 $append"
	"${port_args[@]}" "${extra[@]}")

((quiet)) || say "booting ($accel, $mem, $smp cpus, timeout ${timeout}s), console: $console"
t0=$(now_ms)
"${cmd[@]}" </dev/null &
qemu_pid=$!
# Never leave QEMU behind, whatever stops this script.
trap 'kill "$qemu_pid" 2>/dev/null || true' EXIT INT TERM

deadline=$((t0 + timeout * 1000))
while kill -0 "$qemu_pid" 2>/dev/null; do
	if (($(now_ms) >= deadline)); then
		kill "$qemu_pid" 2>/dev/null || true
		wait "$qemu_pid" 2>/dev/null || true
		say "error: guest did not finish within ${timeout}s: killed QEMU (pid $qemu_pid); console: $console"
		exit 124
	fi
	sleep 0.2
done
rc=0
wait "$qemu_pid" || rc=$?
trap - EXIT INT TERM
((quiet)) || say "QEMU exited with status $rc after $(fmt_ms $(($(now_ms) - t0)))"
exit "$rc"
