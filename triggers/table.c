// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <linux/types.h>

#include "fire.h"
#include "table.h"
/* skeletons: their ELF bytes are what the loader opens */

#include "syscall_errno.skel.h"

/* Every trigger takes these; they set the variables of trigger.bpf.h. */
const struct param_def common_params[] = {
	{ "comm", PT_STRING, "cfg_comm", "",
	  "only tasks with this comm (\"\" = any)", 15 },
	{ "pid", PT_UINT, "cfg_pid", "0", "only this process (tgid; 0 = any)",
	  0 },
	{ "count", PT_COUNT, "cfg_count", "1", "fire on the Nth match", 0 },
	{ "dry_run", PT_FLAG, NULL, "0", "record and count matches, never fire",
	  0 },
	{ NULL },
};

static const struct param_def syscall_errno_params[] = {
	{ "syscall", PT_SYSCALL, "cfg_syscall", NULL,
	  "the syscall (name or number)", 0 },
	{ "errno", PT_ERRNO, "cfg_errno", "any",
	  "the error it returns (name, number or any)", 0 },
	{ NULL },
};

const struct trigger_def triggers[] = {
	{
		.name = "syscall_errno",
		.summary = "a syscall returned a given errno (or any error)",
		.elf_bytes = syscall_errno_bpf__elf_bytes,
		.params = syscall_errno_params,
		.attach = ATTACH_AUTO,
		.example = "syscall=openat errno=ENOSPC comm=myapp",
	},
	{ NULL },
};

const struct trigger_def *trigger_find(const char *name)
{
	for (const struct trigger_def *t = triggers; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}
