// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal test_progs for one selftest: the series' own
 * prog_tests/bpf_panic.c, compiled from the patched kernel tree with the
 * selftest's headers and linked with this, runs in the guest without the
 * rest of tools/testing/selftests/bpf.
 *
 *   bpf-panic-selftest SUBTEST[,SUBTEST...]
 *
 * runs the subtests named (the others are skipped, said so) and prints one
 * "RESULT PASS|FAIL bpf_panic/NAME" line each, then "SELFTEST-DONE n".
 * A subtest that panics the guest prints nothing more: its missing result
 * is the failure the host sees.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void serial_test_bpf_panic(void);

static const char *wanted;
static char current[64];
static bool running, failed;
static int done, failures;

static bool is_wanted(const char *name)
{
	size_t n = strlen(name);

	for (const char *p = wanted; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

static void end_subtest(void)
{
	if (!running)
		return;
	printf("RESULT %s bpf_panic/%s\n", failed ? "FAIL" : "PASS", current);
	fflush(stdout);
	failures += failed;
	done++;
	running = false;
}

/* the test_progs API the selftest calls */
void test__fail(void)
{
	failed = true;
}

bool test__start_subtest(const char *name)
{
	end_subtest();
	if (!is_wanted(name)) {
		printf("skip bpf_panic/%s (not asked for)\n", name);
		return false;
	}
	snprintf(current, sizeof(current), "%s", name);
	printf("run bpf_panic/%s\n", name);
	fflush(stdout);
	running = true;
	failed = false;
	return true;
}

int main(int argc, char **argv)
{
	if (argc != 2 || !*argv[1]) {
		fprintf(stderr,
			"usage: bpf-panic-selftest SUBTEST[,SUBTEST...]\n");
		return 2;
	}
	wanted = argv[1];
	serial_test_bpf_panic();
	/* a failure outside any subtest (set-up, the sysctl's restore) */
	if (!running && failed)
		failures++;
	end_subtest();
	printf("SELFTEST-DONE %d\n", done);
	return failures ? 1 : 0;
}
