// SPDX-License-Identifier: GPL-2.0
/*
 * Provokes uprobe target=/etc/bpk/workload:app_assert_failed: an
 * application whose assertion handler dumps the kernel when a uprobe on it
 * is armed. It checks a few values and calls the handler on the bad one.
 */
#include <stdio.h>

/* The application's assertion hook: what the uprobe trigger watches. */
__attribute__((noinline)) void app_assert_failed(long value)
{
	/* keep the call: an empty function could be folded away */
	__asm__ volatile("" : : "r"(value) : "memory");
	fprintf(stderr, "app: assertion failed on value %ld\n", value);
}

/* A second hook, for errors this run never has: a uprobe on it must stay
 * silent (the trigger tests' "unrelated" case).
 */
__attribute__((noinline)) void app_fatal_error(int code)
{
	__asm__ volatile("" : : "r"(code) : "memory");
	fprintf(stderr, "app: fatal error %d\n", code);
}

int main(int argc, char **argv)
{
	long values[] = { 1, 2, 3, 42, 5 };

	(void)argv;
	for (unsigned int i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		if (values[i] == 42)
			app_assert_failed(values[i]);
	/* never with the example's no arguments; kept so the hook exists */
	if (argc > 1)
		app_fatal_error(argc);
	return 0;
}
