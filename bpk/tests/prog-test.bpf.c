// SPDX-License-Identifier: GPL-2.0
/* prog-test's object: one parameter of each kind, two SEC()s */
#include <bpk/trigger.bpf.h>

const volatile __u8 cfg_u8 = 200;
const volatile __s16 cfg_s16 = -5;
const volatile __u32 cfg_u32 = 7;
const volatile __s64 cfg_s64 = -9;
const volatile __u64 cfg_u64 = 11;
const volatile bool cfg_flag = true;
const volatile char cfg_text[8] = "abc";

SEC("fentry/pipe_write")
int BPF_PROG(enter)
{
	if (cfg_flag && cfg_u8 > 3)
		bpk_fire("u8=%u s16=%d", cfg_u8, cfg_s16);
	return 0;
}

SEC("tp/sched/sched_process_fork")
int fork(void *ctx)
{
	if (cfg_u32 == cfg_s64 + cfg_u64)
		bpk_fire("text=%s", cfg_text);
	return 0;
}
