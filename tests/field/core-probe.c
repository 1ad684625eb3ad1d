// SPDX-License-Identifier: GPL-2.0
/*
 * tests/73-core-failure, in the guest: load a BPF object (only load: no
 * attach) and print one line, "CORE-PROBE loaded" or "CORE-PROBE refused:
 * <reason>", the reason as triggerctl arm gives it (loadfail.c).
 *
 *   core-probe OBJECT.bpf.o
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "loadfail.h"

static char log_buf[64 * 1024];
static size_t log_len;

/* libbpf's warnings and the verifier log, as triggerctl keeps them */
static int keep_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int n;

	if (level == LIBBPF_DEBUG || log_len >= sizeof(log_buf) - 1)
		return 0;
	n = vsnprintf(log_buf + log_len, sizeof(log_buf) - log_len, fmt, ap);
	if (n > 0)
		log_len += (size_t)n;
	if (log_len >= sizeof(log_buf))
		log_len = sizeof(log_buf) - 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	char why[256];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: core-probe OBJECT.bpf.o\n");
		return 2;
	}
	libbpf_set_print(keep_log);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "core-probe: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	rc = bpf_object__load(obj);
	bpf_object__close(obj);
	if (!rc) {
		printf("CORE-PROBE loaded\n");
		return 0;
	}
	fputs(log_buf, stdout);
	if (load_failure_reason(log_buf, why, sizeof(why)))
		printf("CORE-PROBE refused: %s\n", why);
	else
		printf("CORE-PROBE refused: %s (no reason in libbpf's log)\n",
		       strerror(-rc));
	return 1;
}
