// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal test_progs for one selftest: the series' own
 * prog_tests/bpf_panic.c (or, built with -DTEST=NAME, the tree's
 * prog_tests/NAME.c), compiled from the patched kernel tree with the
 * selftest's headers and linked with this, runs in the guest without the
 * rest of tools/testing/selftests/bpf.
 *
 *   bpf-panic-selftest SUBTEST[,SUBTEST...] | all
 *
 * runs the subtests named (the others are not run, said so) and prints one
 * "RESULT PASS|FAIL|SKIP TEST/NAME" line each, then "SELFTEST-DONE n".
 * A subtest that panics the guest prints nothing more: its missing result
 * is the failure the host sees.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST
#define TEST bpf_panic
#define TEST_FUNC serial_test_bpf_panic
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

void TEST_FUNC(void);

static const char *wanted;
static char current[64];
static bool running, failed, skipped;
static int done, failures;

static bool is_wanted(const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(wanted, "all"))
		return true;
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
	printf("RESULT %s %s/%s\n",
	       failed  ? "FAIL" :
	       skipped ? "SKIP" :
			 "PASS",
	       STR(TEST), current);
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

/* what the subtest needs is not there (or must not be touched here) */
void test__skip(void)
{
	skipped = true;
}

bool test__start_subtest(const char *name)
{
	end_subtest();
	if (!is_wanted(name)) {
		printf("skip %s/%s (not asked for)\n", STR(TEST), name);
		return false;
	}
	snprintf(current, sizeof(current), "%s", name);
	printf("run %s/%s\n", STR(TEST), name);
	fflush(stdout);
	running = true;
	failed = skipped = false;
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
	TEST_FUNC();
	/* a failure outside any subtest (set-up, the sysctl's restore) */
	if (!running && failed)
		failures++;
	end_subtest();
	printf("SELFTEST-DONE %d\n", done);
	return failures ? 1 : 0;
}
