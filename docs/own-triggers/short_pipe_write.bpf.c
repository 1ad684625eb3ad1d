// SPDX-License-Identifier: GPL-2.0
/*
 * short_pipe_write: a write(2) on a pipe returns fewer bytes than it was
 * asked to write. A writer that does not loop on short writes loses data
 * there: the field-bug pattern of a log shipper that drops the tail of a
 * large record when its reader is slow, and the pipe is non-blocking.
 *
 * State carried across two events: fentry saves how many bytes the call
 * asked for (per thread), fexit compares the return value with it.
 *
 *   bpk run --prog docs/own-triggers/short_pipe_write.bpf.c comm=python3 \
 *       -- python3 -c 'import os; r, w = os.pipe(); os.set_blocking(w, False); os.write(w, b"x" * 100000)'
 */
#include <bpk/trigger.bpf.h>

/* min_asked=: only writes of at least this many bytes */
const volatile __u32 cfg_min_asked = 1;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* thread id */
	__type(value, __u64); /* bytes asked */
} asked SEC(".maps");

SEC("fentry/pipe_write")
int BPF_PROG(pipe_write_enter, struct kiocb *iocb, struct iov_iter *from)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 n = from->count;

	if (n < cfg_min_asked || !bpk_task_selected())
		return 0;
	bpf_map_update_elem(&asked, &tid, &n, BPF_ANY);
	return 0;
}

SEC("fexit/pipe_write")
int BPF_PROG(pipe_write_exit, struct kiocb *iocb, struct iov_iter *from,
	     long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *n = bpf_map_lookup_elem(&asked, &tid), want;

	if (!n)
		return 0;
	want = *n;
	/* every call ends here: the map holds only calls in progress */
	bpf_map_delete_elem(&asked, &tid);
	if (ret < 0 || (__u64)ret >= want)
		return 0;
	bpk_fire("asked=%llu wrote=%ld", want, ret);
	return 0;
}
