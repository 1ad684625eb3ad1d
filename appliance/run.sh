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
#   --runs DIR           where runs are filed (runs/)
#   --accel MODE         auto | tcg | kvm (auto)
#   --dry-run            arm with dry_run, report the trigger status, no dump
#   --sysctl-off         leave kernel.destructive_bpf_enabled at 0: bpf_panic()
#                        is unavailable and triggers fire with crash_kexec
#   --no-report          collect only (no report.txt, no report.json)
#   --qemu-arg ARG       pass ARG to QEMU (repeatable), e.g. a QMP socket
#   --trigger none       arm nothing: the workload itself crashes the guest
#                        (the sysrq baseline of the benchmarks)
#
# At a terminal, an interactive crash session on the vmcore follows the
# report. Paths of the built pieces come from the environment (BUILD, default
# build/): the kernel, build/appliance/root.cpio.gz (or BPK_ROOT_IMG),
# triggerctl, the collector and fire-decode. Exit 0 when a verified vmcore and its report
# exist; 1 when the run failed (it is still filed); 2 on bad input.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=../lib/log.sh
. "$top/lib/log.sh"

build=${BUILD:-$top/build}
trigger='' args='' workload=$top/triggers/examples/syscall_errno.sh repeat=1 timeout=300 mem=1G smp=2
crashkernel=192M runs=$top/runs accel=${BPK_ACCEL:-auto} dry=0 report=1 sysctl=1
qemu_args=()
while (($#)); do
	case $1 in
	--trigger) trigger=${2:?--trigger needs a name} && shift ;;
	--args) args=${2?--args needs a string} && shift ;;
	--workload) workload=${2:?--workload needs a file} && shift ;;
	--repeat) repeat=${2:?--repeat needs a number} && shift ;;
	--timeout) timeout=${2:?--timeout needs seconds} && shift ;;
	--mem) mem=${2:?--mem needs a size} && shift ;;
	--smp) smp=${2:?--smp needs a number} && shift ;;
	--crashkernel) crashkernel=${2:?--crashkernel needs a size or none} && shift ;;
	--runs) runs=${2:?--runs needs a directory} && shift ;;
	--accel) accel=${2:?--accel needs a mode} && shift ;;
	--dry-run) dry=1 ;;
	--sysctl-off) sysctl=0 ;;
	--no-report) report=0 ;;
	--qemu-arg) qemu_args+=("${2:?--qemu-arg needs an argument}") && shift ;;
	*) bad_input "unknown argument '$1' (see the header of $0)" ;;
	esac
	shift
done

kernel=$build/kernel
root_img=${BPK_ROOT_IMG:-$build/appliance/root.cpio.gz}
triggerctl=$build/triggers/triggerctl
collect=$build/collector/bpk-collect
[[ -n $trigger ]] || bad_input "--trigger is required (triggerctl list shows them)"
[[ -r $kernel/bzImage ]] || bad_input "$kernel/bzImage: kernel not built (make kernel)"
[[ -r $root_img ]] || bad_input "$root_img: guest image not built (make appliance)"
[[ -x $triggerctl && -x $collect ]] || bad_input "triggerctl or bpk-collect not built (make all)"
[[ -f $workload && -r $workload ]] || bad_input "$workload: workload not found or not readable"
[[ $repeat =~ ^[0-9]+$ ]] || bad_input "--repeat '$repeat' is not a number"
[[ $crashkernel == none || $crashkernel =~ ^[0-9]+[MG]$ ]] || bad_input "--crashkernel '$crashkernel' is not a size like 192M, or none"
[[ $args != *,* ]] || bad_input "--args '$args': commas are not allowed (they separate arguments on the kernel command line)"
# Check the trigger and its arguments here, before anything boots: the same
# parser the guest will use, run on the host.
parse_args=()
read -r -a parse_args <<<"$args"
((dry == 0)) || parse_args+=(dry_run)
if [[ $trigger == none ]]; then
	[[ -z $args ]] || bad_input "--trigger none takes no --args"
else
	"$triggerctl" parse "$trigger" "${parse_args[@]}" >/dev/null || exit 2
fi

mkdir -p "$runs"
stage=$(mktemp -d "$runs/.staging-XXXXXX")
trap 'rm -rf "$stage"' EXIT

# The run's own piece of the initramfs: the workload. The kernel unpacks
# concatenated cpio archives in order, so it is appended to the shared image.
step "image"
mkdir -p "$stage/wl/etc/bpk"
cp "$workload" "$stage/wl/etc/bpk/workload"
chmod 755 "$stage/wl/etc/bpk/workload"
(cd "$stage/wl" && find . | LC_ALL=C sort | cpio -o -H newc --owner 0:0 --quiet) | gzip -1 >"$stage/wl.cpio.gz"
cat "$root_img" "$stage/wl.cpio.gz" >"$stage/initrd.cpio.gz"
rm -rf "$stage/wl" "$stage/wl.cpio.gz"
step_done

cmdline="bpk.job=appliance bpk.trigger=$trigger bpk.repeat=$repeat"
[[ -z $args ]] || cmdline+=" bpk.args=$(tr ' ' ',' <<<"$args")"
((dry == 0)) || cmdline+=" bpk.dry=1"
((sysctl == 1)) || cmdline+=" bpk.sysctl=0"
[[ $crashkernel == none ]] || cmdline+=" crashkernel=$crashkernel"

step "guest (trigger $trigger${args:+ $args})"
t_boot=$(now_ms)
qemu_rc=0
"$here/qemu-run.sh" --kernel "$kernel/bzImage" --initrd "$stage/initrd.cpio.gz" \
	--append "$cmdline" --mem "$mem" --smp "$smp" --accel "$accel" --timeout "$timeout" \
	--console "$stage/console.log" --port "results=$stage/results.txt" \
	--port "dmesg=$stage/dmesg.txt" --port "dump=$stage/dump.flat" \
	--port "status=$stage/status.txt" --quiet -- "${qemu_args[@]}" || qemu_rc=$?
qemu_ms=$(($(now_ms) - t_boot))
rm -f "$stage/initrd.cpio.gz"
if ((qemu_rc == 124)); then
	say "the guest did not finish within ${timeout}s: QEMU was killed"
fi
step_done "QEMU exit status $qemu_rc"

if ((dry)); then
	grep -E '^(BPK-STATE|bpk:|[a-z_]+ (matches|record))' "$stage/results.txt" || true
	grep -q '^BPK-STATE dry-run-done' "$stage/results.txt" ||
		die "dry run did not complete (last state: $(grep -o 'BPK-STATE [a-z-]*' "$stage/results.txt" | tail -1))"
	exit 0
fi

step "collect"
collect_rc=0
rundir=$("$collect" --staging "$stage" --runs "$runs" --trigger "$trigger" \
	--meta "trigger_args=$args" --meta "mem=$mem" --meta "smp=$smp" \
	--meta "crashkernel=$crashkernel" --meta "accel=$accel" --meta "destructive_sysctl=$sysctl" \
	--meta "workload=$(basename "$workload")" --meta "kernel=$(basename "$(readlink -f "$kernel")")" \
	--meta "vmlinux=$(readlink -f "$kernel/vmlinux")" --meta "qemu_exit=$qemu_rc" \
	--meta "qemu_wall_s=$((qemu_ms / 1000)).$(printf '%03d' $((qemu_ms % 1000)))") || collect_rc=$?
step_done "$rundir"
[[ -n $rundir ]] || exit 2
if ((collect_rc != 0)); then
	# issue 10: a failed run gets its report.json too (the run's own facts:
	# status, reason, timings; no analysis without a vmcore)
	"$top/analysis/report-merge.py" --run "$rundir" --json "$rundir/report.json" ||
		say "could not write $rundir/report.json"
	exit 1
fi

if ((report)); then
	step "analysis"
	"$top/analysis/report.sh" "$rundir"
	step_done "$rundir/report.txt"
fi
say "run filed: $rundir"
# At a terminal, the report is followed by crash itself on the new vmcore.
if ((report)) && [[ -t 0 && -t 1 ]]; then
	exec "$top/analysis/open-crash.sh" --no-report "$rundir"
fi
