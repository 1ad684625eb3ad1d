// SPDX-License-Identifier: GPL-2.0
/*
 * write_beyond: vfs_write() is entered for a file whose position
 * (struct file's f_pos) is beyond max_pos=, on a file named name=: a
 * struct field out of its valid range at a function's entry, the shape
 * of "the index file grew past its format's limit" or "a seek with a
 * corrupted offset" bugs. Each process's last position on the file is
 * kept in a map of its own, which the report reads from the dump.
 *
 *   bpk run --prog docs/own-triggers/write_beyond.bpf.c max_pos=1048576 \
 *       name=data.bin --workload docs/own-triggers/write_beyond.sh
 */
#include <bpk/trigger.bpf.h>

const volatile __s64 cfg_max_pos = 1 << 20; /* max_pos=: bytes */
const volatile char cfg_name[32] = ""; /* name=: the file's name, "" = any */

/* the position each process last wrote the file at */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32); /* tgid */
	__type(value, __s64); /* f_pos */
} last_pos SEC(".maps");

static __always_inline bool name_matches(struct file *file)
{
	char have[32] = {};

	if (!cfg_name[0])
		return true;
	bpf_probe_read_kernel_str(have, sizeof(have),
				  BPF_CORE_READ(file, f_path.dentry,
						d_name.name));
	for (int i = 0; i < (int)sizeof(have); i++) {
		if (have[i] != cfg_name[i])
			return false;
		if (!have[i])
			break;
	}
	return true;
}

SEC("fentry/vfs_write")
int BPF_PROG(vfs_write_enter, struct file *file, const char *buf, size_t count,
	     loff_t *pos)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	loff_t at = file->f_pos;

	if (!bpk_task_selected() || !name_matches(file))
		return 0;
	bpf_map_update_elem(&last_pos, &tgid, &at, BPF_ANY);
	if (at <= cfg_max_pos)
		return 0;
	/* the text parameter too: the record says what was asked */
	bpk_fire("f_pos=%lld max_pos=%lld count=%lu name=%s", at, cfg_max_pos,
		 count, (const char *)cfg_name);
	return 0;
}
