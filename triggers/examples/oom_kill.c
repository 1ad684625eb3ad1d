// SPDX-License-Identifier: GPL-2.0
/*
 * Provokes oom_kill comm=memhog: allocates and touches memory until the OOM
 * killer chooses it. Run in the guest as a static binary; it renames itself
 * memhog so that the trigger can select it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#define CHUNK (16 << 20)

int main(void)
{
	unsigned long total = 0;

	if (prctl(PR_SET_NAME, "memhog", 0, 0, 0)) {
		perror("memhog: prctl");
		return 1;
	}
	for (;;) {
		char *p = malloc(CHUNK);

		if (!p) {
			fprintf(stderr, "memhog: malloc failed after %lu MiB\n",
				total >> 20);
			return 1;
		}
		memset(p, 0x5a, CHUNK); /* touch it: only used pages count */
		total += CHUNK;
	}
}
