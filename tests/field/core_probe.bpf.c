// SPDX-License-Identifier: GPL-2.0
/*
 * tests/73-core-failure: a CO-RE program built against DEBIAN's BTF that
 * reads task_struct.cgroups. Debian's kernel has the field (CONFIG_CGROUPS);
 * ours (tinyconfig) does not: there the relocation cannot be satisfied, and
 * the loader must say which field.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

long cgroups_seen = 0;

SEC("tp_btf/sys_enter")
int BPF_PROG(core_probe, struct pt_regs *regs, long id)
{
	struct task_struct *t = bpf_get_current_task_btf();

	cgroups_seen = (long)BPF_CORE_READ(t, cgroups);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
