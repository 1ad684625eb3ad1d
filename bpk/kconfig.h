/* SPDX-License-Identifier: GPL-2.0 */
/* What the appliance needs of a kernel's configuration. */
#ifndef BPK_KCONFIG_H
#define BPK_KCONFIG_H

#include <stdbool.h>

#include "bpk.h"

/* How many options the appliance checks. */
#define KCONFIG_NEEDS 24

struct kconfig_item {
	bool ok;
	char want[96]; /* "CONFIG_KEXEC=y or CONFIG_KEXEC_FILE=y" */
	const char *why; /* what in the appliance needs it */
	char says[200]; /* what the config has: "CONFIG_KEXEC is not set" */
};

/*
 * Every option the appliance needs, checked against @config (the text of a
 * kernel's .config; NULL reads as an empty one) into @items, which holds
 * KCONFIG_NEEDS. @modules: the kernel comes with its modules, so a driver
 * built as a module (=m) will do. Returns the number of items filled.
 */
int kconfig_check(const char *config, bool modules, struct kconfig_item *items);

/*
 * The options @config (the text of a kernel's .config) lacks for the
 * appliance, one line each into @out: "CONFIG_X: what needs it (the
 * config says ...)". @modules: the kernel comes with its modules, so a
 * driver built as a module (=m) will do. Returns the number of lines added.
 */
int kconfig_missing(const char *config, bool modules, struct strv *out);

/*
 * The value of @opt in @config: "y", "m", a string, or NULL when the option
 * is not set. malloc'd.
 */
char *kconfig_value(const char *config, const char *opt);

#endif
