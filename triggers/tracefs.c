// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"

/* tracefs' own mount point, or where debugfs mounts it on first use */
static const char *const events_dirs[] = {
	"/sys/kernel/tracing/events",
	"/sys/kernel/debug/tracing/events",
};

int tracefs_event_check(const char *cat, const char *name, char *err,
			size_t errlen)
{
	const char *events = NULL;
	char path[512];

	for (size_t i = 0; i < sizeof(events_dirs) / sizeof(*events_dirs); i++)
		if (!access(events_dirs[i], X_OK)) {
			events = events_dirs[i];
			break;
		}
	if (!events) {
		snprintf(
			err, errlen,
			"cannot check %s:%s: tracefs is not mounted (%s or %s)",
			cat, name, events_dirs[0], events_dirs[1]);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", events, cat);
	if (access(path, F_OK)) {
		snprintf(err, errlen,
			 "no event category %s in this kernel (%s)", cat,
			 events);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", events, cat, name);
	if (access(path, F_OK)) {
		snprintf(err, errlen, "no tracepoint %s:%s in this kernel", cat,
			 name);
		return -1;
	}
	return 0;
}
