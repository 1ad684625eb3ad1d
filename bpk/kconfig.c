// SPDX-License-Identifier: GPL-2.0
/*
 * What the appliance needs of a kernel's configuration, checked before a
 * kernel of the user's own (or any Debian one) boots: a kernel without
 * kexec or /proc/vmcore boots, runs the trigger and then has no way to
 * dump, which the user would learn only at the timeout.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kconfig.h"

struct need {
	const char *opt;
	const char *alt; /* another option that does as well, or NULL */
	const char *why;
	bool driver; /* =m does when the kernel's modules come with it */
};

static const struct need needs[] = {
	{ "CONFIG_BLK_DEV_INITRD", NULL, "the guest's root is an initramfs",
	  false },
	{ "CONFIG_RD_GZIP", NULL, "the root initramfs is gzip-compressed",
	  false },
	{ "CONFIG_DEVTMPFS", NULL, "the guest's /init mounts /dev as devtmpfs",
	  false },
	{ "CONFIG_TMPFS", NULL, "the guest's /init mounts /tmp as tmpfs",
	  false },
	{ "CONFIG_SERIAL_8250_CONSOLE", NULL,
	  "the console the host reads is ttyS0", false },
	{ "CONFIG_VIRTIO_PCI", NULL,
	  "the result and dump ports are virtio devices", true },
	{ "CONFIG_VIRTIO_CONSOLE", NULL,
	  "the result and dump ports are virtio consoles", true },
	{ "CONFIG_KEXEC", "CONFIG_KEXEC_FILE",
	  "kexec -p loads the capture kernel", false },
	{ "CONFIG_CRASH_DUMP", NULL, "the capture kernel's dump support",
	  false },
	{ "CONFIG_PROC_VMCORE", NULL,
	  "/proc/vmcore, which makedumpfile reads in the capture kernel",
	  false },
	{ "CONFIG_RELOCATABLE", NULL,
	  "the same image is the capture kernel, run at the reservation",
	  false },
	{ "CONFIG_BPF_SYSCALL", NULL, "the trigger programs", false },
	{ "CONFIG_DEBUG_INFO_BTF", NULL,
	  "the trigger programs are CO-RE: they need the kernel's BTF", false },
	{ "CONFIG_BPF_EVENTS", NULL,
	  "kprobe, tracepoint and perf_event trigger programs", false },
	{ "CONFIG_KPROBES", NULL, "the kprobe triggers", false },
	{ "CONFIG_FUNCTION_TRACER", NULL,
	  "the fentry/fexit triggers (BPF trampolines)", false },
	{ "CONFIG_DEBUG_FS", NULL, "the guest's /init mounts debugfs", false },
};

_Static_assert(sizeof(needs) / sizeof(needs[0]) <= KCONFIG_NEEDS,
	       "KCONFIG_NEEDS holds every need");

char *kconfig_value(const char *config, const char *opt)
{
	size_t n = strlen(opt);
	const char *p = config;

	if (!config)
		return NULL;
	while (p && *p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > n && !strncmp(p, opt, n) && p[n] == '=')
			return strndup(p + n + 1, len - n - 1);
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

/* Is @opt =y (or =m, when @m_ok)? @say: what the config says instead. */
static bool has(const char *config, const char *opt, bool m_ok, char *say,
		size_t len)
{
	char *v = kconfig_value(config, opt);
	bool ok = v && (!strcmp(v, "y") || (m_ok && !strcmp(v, "m")));

	if (!v)
		snprintf(say, len, "%s is not set", opt);
	else
		snprintf(say, len, "%s=%s", opt, v);
	free(v);
	return ok;
}

int kconfig_check(const char *config, bool modules, struct kconfig_item *items)
{
	size_t count = sizeof(needs) / sizeof(needs[0]);

	for (size_t i = 0; i < count; i++) {
		const struct need *nd = &needs[i];
		struct kconfig_item *it = &items[i];
		bool m_ok = nd->driver && modules;
		const char *want = m_ok ? "y or m" : "y";
		char say[160], alt_say[160] = "";

		it->ok = has(config, nd->opt, m_ok, say, sizeof(say)) ||
			 (nd->alt &&
			  has(config, nd->alt, m_ok, alt_say, sizeof(alt_say)));
		it->why = nd->why;
		if (nd->alt)
			snprintf(it->want, sizeof(it->want), "%s=%s or %s=%s",
				 nd->opt, want, nd->alt, want);
		else
			snprintf(it->want, sizeof(it->want), "%s=%s", nd->opt,
				 want);
		if (nd->alt)
			snprintf(it->says, sizeof(it->says), "%s, %s", say,
				 alt_say);
		else
			snprintf(it->says, sizeof(it->says), "%s", say);
	}
	return (int)count;
}

int kconfig_missing(const char *config, bool modules, struct strv *out)
{
	struct kconfig_item items[KCONFIG_NEEDS];
	int n = kconfig_check(config, modules, items), added = 0;

	for (int i = 0; i < n; i++) {
		if (items[i].ok)
			continue;
		strv_addf(out, "%s: %s (the config: %s)", items[i].want,
			  items[i].why, items[i].says);
		added++;
	}
	return added;
}
