/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fire record: what a trigger saw when it fired. Shared by the BPF side
 * (which fills it) and the host/guest tools (which read it back, from a live
 * map or from the vmcore). Include after vmlinux.h (BPF) or <linux/types.h>.
 *
 * It lives, with the match counter, in struct trigger_state, alone in the
 * ".data.fire" section: libbpf gives that its own array map named
 * ".data.fire" whose one value is the state, at a layout fixed here: easy to
 * find in a dump and to read from a pinned map.
 */
#ifndef BPK_FIRE_H
#define BPK_FIRE_H

#define FIRE_MAGIC "BPKFIRE1"
#define FIRE_NAME_LEN 32
#define FIRE_COMM_LEN 16
#define FIRE_DETAIL_LEN 128
#define FIRE_MSG_LEN 192

/* How a trigger fires (cfg_action) */
enum fire_action {
	FIRE_NONE = 0, /* dry run: record and count only */
	FIRE_BPF_PANIC = 1, /* the bpf_panic() helper (our kernel series) */
	FIRE_CRASH_KEXEC = 2, /* the upstream crash_kexec kfunc (6.1+) */
};

struct fire_record {
	char magic[8]; /* FIRE_MAGIC once the record is filled */
	char trigger[FIRE_NAME_LEN];
	__u64 time_ns; /* bpf_ktime_get_ns() at the match */
	__u64 hits; /* which match this was (the count= one) */
	__u32 pid; /* thread id */
	__u32 tgid; /* process id */
	__u32 cpu;
	__u32 action; /* enum fire_action */
	char comm[FIRE_COMM_LEN];
	char detail[FIRE_DETAIL_LEN]; /* the trigger's own values, "k=v k=v" */
};

struct trigger_state {
	__u64 matches; /* every match, fired or not */
	struct fire_record fire;
	/* Fire actions that came back instead of taking the machine down:
	 * bpf_panic() returns -EPERM when kernel.destructive_bpf_enabled was
	 * set to 0 after arming (the administrator's off switch); crash_kexec()
	 * returns when no crash kernel is loaded. The trigger then tries again
	 * on its next match, and the record describes the latest attempt.
	 */
	__u64 refused;
	__s64 refused_ret; /* what the last one returned (crash_kexec: 0) */
};

#endif
