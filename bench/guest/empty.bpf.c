// SPDX-License-Identifier: GPL-2.0
/* Empty programs on the hooks the measured triggers use: the baseline cost
 * of having any BPF program there at all.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("tp_btf/sys_enter")
int BPF_PROG(empty_sys_enter)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(empty_sys_exit)
{
	return 0;
}

SEC("fentry/__x64_sys_getpgid")
int BPF_PROG(empty_fentry_getpgid)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
