// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kprobe.h"
#include "sysctl.h"

#define TRACING "/sys/kernel/debug/tracing"

/* kprobe_events takes one definition per write, appended (no O_TRUNC) */
static int kprobe_events(const char *def)
{
	return sysctl_write(TRACING "/kprobe_events", def);
}

static int enable(const char *event, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "/events/kprobes/%s/enable",
		 event);
	return sysctl_write(path, val);
}

int kprobe_count_start(const char *event, const char *func)
{
	char def[256];
	int err;

	kprobe_count_stop(event);
	snprintf(def, sizeof(def), "p:%s %s", event, func);
	err = kprobe_events(def);
	return err ? err : enable(event, "1");
}

long kprobe_count(const char *event)
{
	char line[256], name[128];
	long hits = -ENOENT, h, m;
	FILE *f = fopen(TRACING "/kprobe_profile", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld %ld", name, &h, &m) == 3 &&
		    !strcmp(name, event))
			hits = h;
	fclose(f);
	return hits;
}

void kprobe_count_stop(const char *event)
{
	char def[256];

	/* errors ignored: there may be nothing to stop */
	enable(event, "0");
	snprintf(def, sizeof(def), "-:%s", event);
	kprobe_events(def);
}
