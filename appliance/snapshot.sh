#!/usr/bin/env bash
# The armed snapshot of a campaign (issue 13): a guest booted once to the
# point where the crash kernel is loaded, checked and the system is idle,
# waiting on the virtio-serial port "control"; saved with QEMU migration.
# Prints its directory (made on first use, then answered from the cache).
#
#   snapshot.sh [--mem SIZE] [--smp N] [--trigger NAME [--args "k=v ..."]]
#               [--quiet] [--print-dir]
#
# With --trigger, the snapshot is taken ARMED: the guest arms the trigger
# (triggerctl check + arm, as a run does) before it goes idle, so a restore
# has nothing left to do but read the workload. Without, it serves any
# trigger, and each restore arms.
#
# --print-dir: print the directory the key leads to, made or not, and make
# nothing (a test sees that another memory size is another snapshot).
#
# RAM is a memory-backend-file (share=on while the snapshot boots, so the
# guest's memory is that file) and the migration leaves it out
# (x-ignore-shared): the state file is about 1 MB, and a restore maps the
# RAM file privately (share=off, copy on write), so no attempt copies or
# changes it. Kept in $BPK_CACHE/snapshot/<key>/, outside the clone; the key
# hashes everything a restore must match: the kernel, the root image (guest
# init, jobs, kdump image, triggerctl), memory, CPUs, the crashkernel=
# reservation, the QEMU version and accelerator, this script and qmp.py.
#
# In the directory: ram, state, initrd (the root image it booted), append
# (its kernel command line), kernel (the path of the bzImage), console.log
# and results.txt (the boot until idle), meta (key=value: boot_to_idle_s,
# save_s, state_bytes, ram_bytes as allocated, ...), ok (written last).
# Exit: 0, 1 the boot or the save failed (its console named), 2 bad input.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=../lib/log.sh
. "$top/lib/log.sh"

build=${BUILD:-$top/build}
cache=${BPK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpf-panic-kdump}
mem=1G smp=2 quiet=0 print_dir=0 trigger='' targs='' crashkernel=192M accel=${BPK_ACCEL:-tcg}
while (($#)); do
	case $1 in
	--mem) mem=${2:?--mem needs a size} && shift ;;
	--smp) smp=${2:?--smp needs a number} && shift ;;
	--quiet) quiet=1 ;;
	--print-dir) print_dir=1 ;;
	--trigger) trigger=${2:?--trigger needs a name} && shift ;;
	--args) targs=${2?--args needs a string} && shift ;;
	*) bad_input "unknown argument '$1' (see the header of $0)" ;;
	esac
	shift
done
[[ $mem =~ ^[0-9]+[MG]$ ]] || bad_input "--mem '$mem' is not a size like 512M or 1G"
[[ $smp =~ ^[0-9]+$ && $smp -gt 0 ]] || bad_input "--smp '$smp' is not a positive number"
[[ -z $targs || -n $trigger ]] || bad_input "--args needs --trigger"
[[ -z $trigger || $trigger =~ ^[a-z0-9_]+$ ]] || bad_input "unknown trigger '$trigger'"
[[ $targs != *[,\"]* && $targs != *[[:cntrl:]]* ]] || bad_input "--args '$targs': no commas, quotes or control characters"
append="bpk.job=appliance bpk.control=1 crashkernel=$crashkernel"
[[ -z $trigger ]] || append+=" bpk.trigger=$trigger"
[[ -z $targs ]] || append+=" bpk.args=$(tr ' ' ',' <<<"$targs")"
# auto would probe KVM per boot; a snapshot is made and restored with one
[[ $accel == tcg || $accel == kvm ]] || accel=tcg
kernel_image=$(readlink -f "$build/kernel/bzImage")
root_img=$build/appliance/root.cpio.gz
[[ -r $kernel_image ]] || bad_input "$build/kernel/bzImage: kernel not built (make kernel)"
[[ -r $root_img ]] || bad_input "$root_img: guest image not built (make appliance)"

# secs MS: seconds with three decimals
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

key=$({
	sha256sum <"$kernel_image"
	sha256sum <"$root_img"
	echo "mem=$mem smp=$smp crashkernel=$crashkernel accel=$accel append=$append"
	qemu-system-x86_64 --version | head -1
	cat "$here/snapshot.sh" "$here/qmp.py" "$here/qemu-run.sh"
} | sha256sum | cut -c1-16)
dir=$cache/snapshot/$key
if ((print_dir)); then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache/snapshot"
exec 9>"$dir.lock"
# Two campaigns that need the same snapshot: the second waits for the first
flock 9
if [[ -r $dir/ok ]]; then
	echo "$dir"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
((quiet)) || say "making the snapshot ($mem, $smp cpus${trigger:+, armed: $trigger $targs}) in $dir"
cp "$root_img" "$dir/initrd"
echo "$kernel_image" >"$dir/kernel"
echo "$append" >"$dir/append"
mkfifo "$dir/control.in" "$dir/control.out"
t0=$(now_ms)
# The same devices, in the same order, as run.sh --restore gives them
setsid "$here/qemu-run.sh" --kernel "$kernel_image" --initrd "$dir/initrd" --append "$append" \
	--mem "$mem" --smp "$smp" --accel "$accel" --timeout 120 --console "$dir/console.log" \
	--port "results=$dir/results.txt" --port "dmesg=$dir/dmesg.txt" --port "dump=$dir/dump.flat" \
	--port "status=$dir/status.txt" --quiet -- \
	-object "memory-backend-file,id=bpkmem,size=$mem,mem-path=${dir//,/,,}/ram,share=on" \
	-machine memory-backend=bpkmem -qmp "unix:${dir//,/,,}/qmp.sock,server=on,wait=off" \
	-chardev "pipe,id=bpkctl,path=${dir//,/,,}/control" -device virtserialport,chardev=bpkctl,name=control \
	</dev/null &
qrun=$!
trap 'kill -TERM "$qrun" 2>/dev/null || true; wait "$qrun" 2>/dev/null || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
until grep -q '^BPK-STATE idle' "$dir/results.txt" 2>/dev/null; do
	# an armed guest that matches its own trigger: no need to wait for its dump
	if grep -q -a -E 'Kernel panic - not syncing|Command line: .*reset_devices' "$dir/console.log" 2>/dev/null; then
		die "the trigger fired in the snapshot's own guest before it was idle (it matches what an idle guest does): console $dir/console.log"
	fi
	if ! kill -0 "$qrun" 2>/dev/null; then
		state=$(grep -a '^BPK-STATE' "$dir/results.txt" 2>/dev/null | tail -1)
		die "the snapshot's guest ended before it was idle (${state:-no state}): console $dir/console.log"
	fi
	sleep 0.05
done
t_idle=$(now_ms)
saved=$("$here/qmp.py" save "$dir/qmp.sock" "$dir/state") ||
	die "saving the snapshot failed: console $dir/console.log"
wait "$qrun" || true
trap - EXIT
# an armed guest that matched its own trigger while it was being saved
if grep -q -a -E 'Kernel panic - not syncing|Command line: .*reset_devices' "$dir/console.log"; then
	die "the trigger fired in the snapshot's own guest before it was saved (it matches what an idle guest does): console $dir/console.log"
fi
rm -f "$dir/qmp.sock"
{
	echo "key=$key"
	echo "mem=$mem"
	echo "smp=$smp"
	echo "crashkernel=$crashkernel"
	echo "accel=$accel"
	echo "trigger=$trigger"
	echo "args=$targs"
	echo "kernel=$kernel_image"
	echo "boot_to_idle_s=$(secs $((t_idle - t0)))"
	tr ' ' '\n' <<<"$saved"
	echo "ram_bytes=$(($(du -B1 "$dir/ram" | cut -f1)))"
	echo "made_s=$(secs $(($(now_ms) - t0)))"
} >"$dir/meta"
echo ok >"$dir/ok"
((quiet)) || say "snapshot made in $(fmt_ms $(($(now_ms) - t0))): $(tr '\n' ' ' <"$dir/meta")"
echo "$dir"
