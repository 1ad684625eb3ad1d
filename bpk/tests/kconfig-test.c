// SPDX-License-Identifier: GPL-2.0
/*
 * bpk/kconfig.c: what the appliance needs of a kernel's config, read from
 * configs as Kconfig writes them (=y, =m, "is not set", absent).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpk.h"
#include "check.h"
#include "kconfig.h"

/* util.c's messages read these (bpk's main.c defines them) */
bool json_output;
json_writer_t *json_wtr;
const char *bin_name = "kconfig-test";

/* every option the appliance needs, built in */
static const char full[] =
	"#\n# Automatically generated file; DO NOT EDIT.\n#\n"
	"CONFIG_BLK_DEV_INITRD=y\nCONFIG_RD_GZIP=y\n"
	"CONFIG_DEVTMPFS=y\nCONFIG_TMPFS=y\n"
	"CONFIG_SERIAL_8250_CONSOLE=y\nCONFIG_VIRTIO_PCI=y\n"
	"CONFIG_VIRTIO_CONSOLE=y\nCONFIG_KEXEC=y\n"
	"CONFIG_CRASH_DUMP=y\nCONFIG_PROC_VMCORE=y\n"
	"CONFIG_RELOCATABLE=y\nCONFIG_BPF_SYSCALL=y\n"
	"CONFIG_DEBUG_INFO_BTF=y\nCONFIG_BPF_EVENTS=y\n"
	"CONFIG_KPROBES=y\nCONFIG_FUNCTION_TRACER=y\n"
	"CONFIG_DEBUG_FS=y\nCONFIG_LOCALVERSION=\"-x\"\n";

/* @config with the line starting @from replaced by @to */
static char *edit(const char *config, const char *from, const char *to)
{
	const char *at = strstr(config, from), *eol;
	char *out;

	if (!at)
		return strdup(config);
	eol = strchr(at, '\n');
	if (asprintf(&out, "%.*s%s%s", (int)(at - config), config, to,
		     eol ? eol : "") < 0)
		abort();
	return out;
}

/* the missing lines of @config, joined, and how many */
static int missing(const char *config, bool modules, char **text)
{
	struct strv s = { 0 };
	int n = kconfig_missing(config, modules, &s);

	*text = strv_join(&s, " | ");
	strv_free(&s);
	return n;
}

int main(void)
{
	struct kconfig_item items[KCONFIG_NEEDS];
	char *cfg, *cfg2, *text, *v;
	int n;

	/* values as Kconfig writes them */
	v = kconfig_value(full, "CONFIG_KEXEC");
	check("value.y", v && !strcmp(v, "y"), "CONFIG_KEXEC=%s", vis(v));
	free(v);
	v = kconfig_value(full, "CONFIG_LOCALVERSION");
	check("value.string", v && !strcmp(v, "\"-x\""),
	      "CONFIG_LOCALVERSION=%s", vis(v));
	free(v);
	v = kconfig_value(full, "CONFIG_KEXEC_FILE");
	check("value.absent", !v, "CONFIG_KEXEC_FILE: %s", vis(v));
	free(v);
	/* a prefix of another option is not that option */
	v = kconfig_value("CONFIG_KPROBES_ON_FTRACE=y\n", "CONFIG_KPROBES");
	check("value.prefix", !v,
	      "CONFIG_KPROBES in a config of KPROBES_ON_FTRACE only: %s",
	      vis(v));
	free(v);
	v = kconfig_value(NULL, "CONFIG_KEXEC");
	check("value.no_config", !v, "no config: %s", vis(v));
	free(v);

	n = missing(full, false, &text);
	check("full.nothing_missing", n == 0, "%d missing: %s", n, text);
	free(text);
	n = kconfig_check(full, false, items);
	{
		int yes = 0;

		for (int i = 0; i < n; i++)
			yes += items[i].ok;
		check("full.every_item_yes",
		      n > 10 && n <= KCONFIG_NEEDS && yes == n,
		      "%d of %d items yes", yes, n);
	}

	/* kexec off: both of its options named, with what the config says */
	cfg = edit(full, "CONFIG_KEXEC=y", "# CONFIG_KEXEC is not set");
	n = missing(cfg, false, &text);
	check("kexec_off.named",
	      n == 1 &&
		      strstr(text,
			     "CONFIG_KEXEC=y or CONFIG_KEXEC_FILE=y: kexec -p loads the capture kernel") &&
		      strstr(text,
			     "CONFIG_KEXEC is not set, CONFIG_KEXEC_FILE is not set"),
	      "%d: %s", n, text);
	free(text);
	/* ... and KEXEC_FILE alone will do */
	cfg2 = edit(cfg, "# CONFIG_KEXEC is not set", "CONFIG_KEXEC_FILE=y");
	n = missing(cfg2, false, &text);
	check("kexec_file.enough", n == 0, "%d: %s", n, text);
	free(text);
	free(cfg2);
	free(cfg);

	/* a driver as a module: enough when the modules come along */
	cfg = edit(full, "CONFIG_VIRTIO_CONSOLE=y", "CONFIG_VIRTIO_CONSOLE=m");
	n = missing(cfg, false, &text);
	check("module.refused_alone",
	      n == 1 && strstr(text, "CONFIG_VIRTIO_CONSOLE=y: ") &&
		      strstr(text, "(the config: CONFIG_VIRTIO_CONSOLE=m)"),
	      "%d: %s", n, text);
	free(text);
	n = missing(cfg, true, &text);
	check("module.with_modules", n == 0, "%d: %s", n, text);
	free(text);
	free(cfg);
	/* not a driver: =m is not enough even with modules */
	cfg = edit(full, "CONFIG_CRASH_DUMP=y", "CONFIG_CRASH_DUMP=m");
	n = missing(cfg, true, &text);
	check("module.not_a_driver",
	      n == 1 && strstr(text, "CONFIG_CRASH_DUMP=y: "), "%d: %s", n,
	      text);
	free(text);
	free(cfg);

	/* an empty config lacks every option, each on its line */
	n = missing("", false, &text);
	check("empty.all_missing", n == kconfig_check("", false, items),
	      "%d missing of %d", n, kconfig_check("", false, items));
	free(text);
	return checks_done("kconfig-test");
}
