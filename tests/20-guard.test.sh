#!/usr/bin/env bash
# Guard tests a-g, j-q, booted: tests/guard/main.c runs as PID 1's job in the
# patched guest and reports one RESULT line per check over a virtio port.
# The checks whose failure would panic or kexec the guest
# (j.rearm_needs_reload, j.kfunc_rearm_needs_reload) run last: then the
# crash on the console and their missing results are the failure.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fresh_out

initrd=$build/guard-initramfs.cpio.gz
[[ -r $initrd ]] || { fail guard.initramfs "$initrd missing: run make guard"; exit 1; }

# Every check main.c must report; a missing one is a failure, not a skip.
expected=(sysctl_default_off l.fdinfo_destructive m.load_warning l.fdinfo_not_destructive
	a.needs_flag b.loads.fentry b.loads.fexit b.loads.tp_btf b.loads.kprobe
	b.loads.tracepoint b.loads.raw_tracepoint b.loads.perf_event
	c.needs_cap_sys_boot c.refused_load_leaves_no_warning
	d.needs_sysctl e.sysctl_write_needs_cap_sys_admin e.sysctl_rejects_2
	e.sysctl_rejects_minus_1 e.sysctl_read_by_anyone)
for k in socket_filter xdp syscall_prog iter fmod_ret lsm; do
	expected+=("f.no_helper.$k" "f.flag_refused.$k")
done
expected+=(f.flag_refused_leaves_no_warning g.crash_kexec_needs_cap_sys_boot g.crash_kexec_loads_destructive g.crash_kexec_refused_switch_off
	k.test_run_needs_cap_sys_boot k.attach_needs_cap_sys_boot k.link_needs_cap_sys_boot
	k.prog_array_needs_cap_sys_boot k.perf_ioctl_needs_cap_sys_boot k.inherited_fd_needs_cap_sys_boot
	k.prog_array_with_cap_sys_boot k.tail_call_from_non_destructive_refused
	n.ext_link_needs_cap_sys_boot n.ext_load_needs_cap_sys_boot n.ext_did_not_reach_panic
	n.ext_of_destructive_is_destructive o.iter_crash_kexec_refused
	p.test_kfunc_loads_with_cap_sys_boot p.test_kfunc_caller_gated p.test_kfunc_needs_cap_sys_boot
	q.off_waits_for_running_programs
	j.disarm_refuses_test_run j.disarm_refuses_attach j.rearm_needs_reload j.kfunc_rearm_needs_reload
	j.kfunc_armed_reaches_crash_kexec)

rc=0
boot_job "$initrd" guard-checks 180 || rc=$?
if ((rc != 0)); then
	fail guard.boot "bpk boot exited $rc; console tail: $(tail -3 "$out/console.log" | tr '\n' ' ')"
	exit 1
fi
guest_results "$out/results.txt" guard "${expected[@]}"
unexpected=$(grep '^RESULT ' "$out/results.txt" | awk '{print $3}' | tr -d : |
	grep -vxF -f <(printf '%s\n' "${expected[@]}") || true)
n=$(grep -c '^RESULT ' "$out/results.txt" 2>/dev/null || true)
check guard.no_unknown_results "${n:-0} results; unexpected: ${unexpected:-none}" test "${n:-0}" -gt 0 -a -z "$unexpected"
done_line=$(grep '^GUARD-DONE' "$out/results.txt" || true)
check guard.ran_to_the_end "${done_line:-no GUARD-DONE line}; $(grep '^JOB-EXIT' "$out/results.txt" || echo 'no JOB-EXIT')" \
	test "$done_line" = "GUARD-DONE ${#expected[@]}"
