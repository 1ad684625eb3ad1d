// SPDX-License-Identifier: GPL-2.0
/* bpk-probe COMMAND [ARGS]: see probe.h and each command's file. */
#include <stdio.h>
#include <string.h>

#include "probe.h"

static const struct {
	const char *name, *args, *what;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "eintr", "", "read() interrupted by a handler: EINTR", probe_eintr },
	{ "restart", "", "read() interrupted and restarted (SA_RESTART)",
	  probe_restart },
	{ "negret", "", "lseek() succeeding with a value below -4095",
	  probe_negret },
	{ "spin", "NAME MS", "two CPU-bound NAME processes on CPU 0",
	  probe_spin },
	{ "stale", "N", "wakeups that come while the task is on its CPU",
	  probe_stale },
	{ "dstate", "MS", "bpk-dwait in D state for MS ms", probe_dstate },
	{ "rename", "", "a 600 ms sleep whose thread is renamed meanwhile",
	  probe_rename },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof(commands) / sizeof(*commands);
	     i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "usage: bpk-probe COMMAND [ARGS]\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		fprintf(stderr, "  %-8s %-8s %s\n", commands[i].name,
			commands[i].args, commands[i].what);
	return 2;
}
