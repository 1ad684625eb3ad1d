// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "names.h"

const struct name_num signal_names[] = {
	{ "SIGHUP", SIGHUP },	    { "SIGINT", SIGINT },
	{ "SIGQUIT", SIGQUIT },	    { "SIGILL", SIGILL },
	{ "SIGTRAP", SIGTRAP },	    { "SIGABRT", SIGABRT },
	{ "SIGBUS", SIGBUS },	    { "SIGFPE", SIGFPE },
	{ "SIGKILL", SIGKILL },	    { "SIGUSR1", SIGUSR1 },
	{ "SIGSEGV", SIGSEGV },	    { "SIGUSR2", SIGUSR2 },
	{ "SIGPIPE", SIGPIPE },	    { "SIGALRM", SIGALRM },
	{ "SIGTERM", SIGTERM },	    { "SIGCHLD", SIGCHLD },
	{ "SIGCONT", SIGCONT },	    { "SIGSTOP", SIGSTOP },
	{ "SIGTSTP", SIGTSTP },	    { "SIGXCPU", SIGXCPU },
	{ "SIGXFSZ", SIGXFSZ },	    { "SIGSYS", SIGSYS },
	{ "SIGVTALRM", SIGVTALRM }, { 0, 0 },
};

int name_lookup(const struct name_num *table, const char *text, long *num)
{
	const struct name_num *e;
	char *end;
	long n;

	if (!*text)
		return -1;
	for (e = table; e->name; e++) {
		if (!strcasecmp(e->name, text) ||
		    (table == signal_names && !strcasecmp(e->name + 3, text))) {
			*num = e->num;
			return 0;
		}
	}
	n = strtol(text, &end, 10);
	if (*end || !name_of(table, n))
		return -1;
	*num = n;
	return 0;
}

const char *name_of(const struct name_num *table, long num)
{
	for (const struct name_num *e = table; e->name; e++)
		if (e->num == num)
			return e->name;
	return NULL;
}
