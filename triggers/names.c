// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "names.h"

/*
 * Every signal of x86_64 Linux by name, aliases after the name they stand
 * for (name_of() gives the first). Real-time signals are named as libc and
 * bash's `kill -l` name them: SIGRTMIN is 34, since glibc keeps 32 and 33
 * for itself (they are accepted by number).
 */
#define RTMIN(n)                         \
	{                                \
		"SIGRTMIN+" #n, 34 + (n) \
	}
#define RTMAX(n)                         \
	{                                \
		"SIGRTMAX-" #n, 64 - (n) \
	}
const struct name_num signal_names[] = {
	{ "SIGHUP", SIGHUP },
	{ "SIGINT", SIGINT },
	{ "SIGQUIT", SIGQUIT },
	{ "SIGILL", SIGILL },
	{ "SIGTRAP", SIGTRAP },
	{ "SIGABRT", SIGABRT },
	{ "SIGIOT", SIGIOT },
	{ "SIGBUS", SIGBUS },
	{ "SIGFPE", SIGFPE },
	{ "SIGKILL", SIGKILL },
	{ "SIGUSR1", SIGUSR1 },
	{ "SIGSEGV", SIGSEGV },
	{ "SIGUSR2", SIGUSR2 },
	{ "SIGPIPE", SIGPIPE },
	{ "SIGALRM", SIGALRM },
	{ "SIGTERM", SIGTERM },
	{ "SIGSTKFLT", SIGSTKFLT },
	{ "SIGCHLD", SIGCHLD },
	{ "SIGCONT", SIGCONT },
	{ "SIGSTOP", SIGSTOP },
	{ "SIGTSTP", SIGTSTP },
	{ "SIGTTIN", SIGTTIN },
	{ "SIGTTOU", SIGTTOU },
	{ "SIGURG", SIGURG },
	{ "SIGXCPU", SIGXCPU },
	{ "SIGXFSZ", SIGXFSZ },
	{ "SIGVTALRM", SIGVTALRM },
	{ "SIGPROF", SIGPROF },
	{ "SIGWINCH", SIGWINCH },
	{ "SIGIO", SIGIO },
	{ "SIGPOLL", SIGPOLL },
	{ "SIGPWR", SIGPWR },
	{ "SIGSYS", SIGSYS },
	{ "SIGRTMIN", 34 },
	RTMIN(1),
	RTMIN(2),
	RTMIN(3),
	RTMIN(4),
	RTMIN(5),
	RTMIN(6),
	RTMIN(7),
	RTMIN(8),
	RTMIN(9),
	RTMIN(10),
	RTMIN(11),
	RTMIN(12),
	RTMIN(13),
	RTMIN(14),
	RTMIN(15),
	RTMAX(14),
	RTMAX(13),
	RTMAX(12),
	RTMAX(11),
	RTMAX(10),
	RTMAX(9),
	RTMAX(8),
	RTMAX(7),
	RTMAX(6),
	RTMAX(5),
	RTMAX(4),
	RTMAX(3),
	RTMAX(2),
	RTMAX(1),
	{ "SIGRTMAX", 64 },
	{ 0, 0 },
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
