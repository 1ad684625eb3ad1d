// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "loadfail.h"

/* The rest of the line of @log after the first @marker, or NULL. */
static const char *after(const char *log, const char *marker, int *n)
{
	const char *p = strstr(log, marker);

	if (!p)
		return NULL;
	p += strlen(marker);
	*n = (int)strcspn(p, "\n");
	return p;
}

int load_failure_reason(const char *log, char *buf, size_t len)
{
	const char *p;
	int n;

	/*
	 * libbpf (1.1) poisons an instruction whose relocation found no match
	 * in the kernel's BTF; when the verifier reaches it, libbpf rewrites
	 * that verifier log line as "failed to resolve CO-RE relocation <spec>",
	 * the spec being "<byte_off> [6] struct task_struct.cgroups (0:170 @
	 * offset 3600)" as in the BTF it was built against: the field is named.
	 */
	p = after(log, "failed to resolve CO-RE relocation ", &n);
	if (p) {
		const char *name = memchr(p, ']', (size_t)n), *paren;

		if (name && name + 2 < p + n) {
			n -= (int)(name + 2 - p);
			p = name + 2;
		}
		/* "(0:170 @ offset 3600)" is where it was in the BTF built against */
		paren = memchr(p, '(', (size_t)n);
		if (paren && paren > p && paren[-1] == ' ')
			n = (int)(paren - 1 - p);
		snprintf(
			buf, len,
			"this kernel has no %.*s (a CO-RE relocation it cannot satisfy)",
			n, p);
		return 1;
	}
	/* a kfunc that is not weak: "extern (func ksym) 'name': not found ..." */
	p = after(log, "extern (func ksym) '", &n);
	if (p && strstr(p, "not found")) {
		snprintf(
			buf, len,
			"this kernel has no function %.*s (a kfunc the program calls)",
			(int)strcspn(p, "'"), p);
		return 1;
	}
	return 0;
}
