// SPDX-License-Identifier: GPL-2.0
/* warn: a WARN() fired, optionally only one from a source file (file=). */
#include <bpk/trigger.bpf.h>

#define FILE_LEN 128

/* a suffix of the WARN's file name, "" = any: "net/core/dev.c", "dev.c" */
const volatile char cfg_file[FILE_LEN] = {};

static __always_inline bool file_matches(const char *file)
{
	char buf[FILE_LEN];
	long len, want = 0, start;
	int i;

	if (!cfg_file[0])
		return true;
	len = bpf_probe_read_kernel_str(buf, sizeof(buf), file) -
	      1; /* no NUL */
	for (i = 0; i < FILE_LEN && cfg_file[i]; i++)
		want++;
	if (len < want)
		return false;
	start = len - want;
	/* The masks keep the verifier sure of the bounds; start + i < FILE_LEN. */
	for (i = 0; i < FILE_LEN && i < want; i++)
		if (buf[(start + i) & (FILE_LEN - 1)] != cfg_file[i])
			return false;
	/* a whole path component: "dev.c" must not match "netdev.c" */
	return start == 0 || buf[(start - 1) & (FILE_LEN - 1)] == '/';
}

SEC("fentry/__warn")
int BPF_PROG(warn, const char *file, int line, void *caller, unsigned int taint)
{
	if (!file_matches(file) || !trigger_task_selected())
		return 0;
	trigger_match("warn", "file=%s line=%d caller=%pS", file, line, caller);
	return 0;
}
