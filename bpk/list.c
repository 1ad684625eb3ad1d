// SPDX-License-Identifier: GPL-2.0
/*
 * bpk list and bpk check: the trigger table (the one triggerctl is built
 * from) and what a kernel offers, read from its BTF (libbpf), symbol table
 * (libelf) and config, nothing booted.
 */
#define _GNU_SOURCE
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpk.h"
#include "describe.h"
#include "kernels.h"
#include "params.h"
#include "prog.h"
#include "table.h"

static void usage_list(void)
{
	printf("usage: bpk [-j] list [TRIGGER | --prog FILE] | bpk list --names | bpk list --params TRIGGER\n"
	       "\n"
	       "The triggers: each one's parameters with type, default and meaning, an\n"
	       "example and its example workload, then the parameters every trigger\n"
	       "takes. --prog FILE: your own program's (a .bpf.c is compiled first),\n"
	       "read from its BTF. --names: trigger names only; --params: one\n"
	       "trigger's parameter names, common ones included, one a line (for\n"
	       "completion). -j: the table as JSON.\n");
}

static void json_params(const struct param_def *d)
{
	jw_start_array(json_wtr);
	for (; d->key; d++) {
		jw_start_object(json_wtr);
		jw_string_field(json_wtr, "name", d->key);
		jw_string_field(json_wtr, "type", param_type_name(d->type));
		jw_string_field(json_wtr, "default", d->def);
		jw_bool_field(json_wtr, "required", !d->def);
		jw_string_field(json_wtr, "help", d->help);
		jw_end_object(json_wtr);
	}
	jw_end_array(json_wtr);
}

static void json_trigger(const struct trigger_def *t)
{
	jw_start_object(json_wtr);
	jw_string_field(json_wtr, "name", t->name);
	jw_string_field(json_wtr, "summary", t->summary);
	jw_name(json_wtr, "params");
	json_params(t->params);
	jw_string_field(json_wtr, "example", t->example);
	jw_string_field(json_wtr, "example_workload", t->workload);
	jw_bool_field(json_wtr, "kfunc_ok", t->kfunc_ok);
	jw_end_object(json_wtr);
}

static const struct trigger_def *need_trigger(const char *name)
{
	const struct trigger_def *t = trigger_find(name);

	if (!t)
		usage_error("list: unknown trigger '%s' (bpk list)", name);
	return t;
}

int do_list(int argc, char **argv)
{
	const struct trigger_def *only = NULL;

	if (argc && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		usage_list();
		return 0;
	}
	if (argc && !strcmp(argv[0], "--names")) {
		if (argc != 1)
			usage_error("list --names takes nothing more");
		for (const struct trigger_def *t = triggers; t->name; t++)
			printf("%s\n", t->name);
		return 0;
	}
	if (argc && !strcmp(argv[0], "--params")) {
		if (argc != 2)
			usage_error("list --params needs one trigger");
		only = need_trigger(argv[1]);
		for (const struct param_def *d = only->params; d->key; d++)
			printf("%s\n", d->key);
		for (const struct param_def *d = common_params; d->key; d++)
			printf("%s\n", d->key);
		return 0;
	}
	if (argc && !strcmp(argv[0], "--prog")) {
		char *name;

		if (argc != 2)
			usage_error("list --prog needs one FILE");
		free(prog_prepare(argv[1], &name, NULL));
		only = trigger_find(name);
		argc = 0;
	}
	if (argc && argv[0][0] == '-')
		usage_error("list: unknown option '%s' (bpk list --help)",
			    argv[0]);
	if (argc > 1)
		usage_error("list: one trigger at a time");
	if (argc)
		only = need_trigger(argv[0]);
	if (json_output) {
		jw_start_object(json_wtr);
		jw_name(json_wtr, "triggers");
		jw_start_array(json_wtr);
		if (only)
			json_trigger(only);
		for (const struct trigger_def *t = triggers; !only && t->name;
		     t++)
			json_trigger(t);
		jw_end_array(json_wtr);
		jw_name(json_wtr, "common_params");
		json_params(common_params);
		jw_end_object(json_wtr);
		return 0;
	}
	if (only) {
		describe_trigger(stdout, only);
		describe_common(stdout);
	} else {
		describe_table(stdout);
	}
	return 0;
}

/* --- bpk check */

static void usage_check(void)
{
	printf("usage: bpk [-j] check [--kernel ours|debian]\n"
	       "\n"
	       "What the built kernel offers, read from its vmlinux (BTF and symbols)\n"
	       "and config on the host, nothing booted: the bpf_panic() helper\n"
	       "(BPF_FUNC_panic), the crash_kexec kfunc, the\n"
	       "kernel.destructive_bpf_enabled sysctl, kexec and crash dump support,\n"
	       "BTF. Exit 1 if the kernel is not built or bpf_panic() and crash_kexec\n"
	       "are both missing.\n");
}

struct item {
	const char *name;
	bool yes;
	char detail[256];
};

static void item(struct item *it, const char *name, bool yes, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

static void item(struct item *it, const char *name, bool yes, const char *fmt,
		 ...)
{
	va_list ap;

	it->name = name;
	it->yes = yes;
	va_start(ap, fmt);
	vsnprintf(it->detail, sizeof(it->detail), fmt, ap);
	va_end(ap);
}

/* The value of BPF_FUNC_panic in enum bpf_func_id, -1 if none. */
static long long panic_helper_id(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, (unsigned int)id);
	e = btf_enum(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off),
			    "BPF_FUNC_panic"))
			return e->val;
	return -1;
}

/* "CONFIG_X=y" in @config's text, or what the line says instead. */
static bool config_yes(const char *config, const char *opt, char *say,
		       size_t len)
{
	char want[128], *line;

	snprintf(want, sizeof(want), "\n%s=", opt);
	line = config ? strstr(config, want) : NULL;
	if (line && line[strlen(want)] == 'y') {
		say[0] = '\0';
		return true;
	}
	if (line) {
		line++;
		snprintf(say, len, " (%.*s)", (int)strcspn(line, "\n"), line);
	} else {
		snprintf(say, len, " (not set in the config)");
	}
	return false;
}

int do_check(int argc, char **argv)
{
	const char *flavor = "ours";
	struct kernel_info k;
	struct item items[8];
	struct btf *btf;
	char *config, say[256], err[512];
	long long helper;
	bool kfunc, sysctl, ok;
	int n = 0;
	static const char *const opts[] = { "CONFIG_KEXEC", "CONFIG_CRASH_DUMP",
					    "CONFIG_DEBUG_INFO_BTF",
					    "CONFIG_BPF_SYSCALL", NULL };

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_check();
			return 0;
		} else if (!strcmp(argv[i], "--kernel")) {
			if (i + 1 >= argc || (strcmp(argv[i + 1], "ours") &&
					      strcmp(argv[i + 1], "debian")))
				usage_error("--kernel must be ours or debian");
			flavor = argv[++i];
		} else {
			usage_error(
				"check: unknown argument '%s' (bpk check --help)",
				argv[i]);
		}
	}
	kernel_resolve(flavor, &k);
	if (!file_exists(k.vmlinux))
		die("%s: not built (make %s in %s)", k.vmlinux,
		    !strcmp(flavor, "ours") ? "kernel" : "debian-kernel",
		    paths.top);
	btf = btf__parse(k.vmlinux, NULL);
	if (!btf)
		die("%s: no BTF could be read: %s", k.vmlinux, strerror(errno));
	helper = panic_helper_id(btf);
	kfunc = btf__find_by_name_kind(btf, "crash_kexec", BTF_KIND_FUNC) >= 0;
	btf__free(btf);
	if (elf_has_symbol(k.vmlinux, "sysctl_destructive_bpf_enabled", &sysctl,
			   err, sizeof(err)))
		die("%s", err);
	if (helper >= 0)
		item(&items[n++], "bpf_panic() helper", true,
		     "BPF_FUNC_panic val=%lld", helper);
	else
		item(&items[n++], "bpf_panic() helper", false,
		     "no BPF_FUNC_panic in the kernel's BTF (triggers fire through crash_kexec)");
	item(&items[n++], "crash_kexec kfunc", kfunc, "%s",
	     kfunc ? "in the kernel's BTF (tracing programs)" :
		     "not in the kernel's BTF");
	item(&items[n++], "kernel.destructive_bpf_enabled sysctl", sysctl, "%s",
	     sysctl ? "sysctl_destructive_bpf_enabled" :
		      "no sysctl_destructive_bpf_enabled symbol");
	config = read_file(k.config, 1 << 24, NULL);
	for (int i = 0; opts[i]; i++) {
		bool y = config_yes(config, opts[i], say, sizeof(say));

		item(&items[n++], opts[i], y, "%s",
		     config ? say : " (no config file)");
	}
	free(config);
	ok = helper >= 0 || kfunc;
	if (json_output) {
		char *real = abs_path(k.dir);

		jw_start_object(json_wtr);
		jw_string_field(json_wtr, "kernel", real ? real : k.dir);
		jw_string_field(json_wtr, "flavor", flavor);
		jw_name(json_wtr, "offers");
		jw_start_array(json_wtr);
		for (int i = 0; i < n; i++) {
			jw_start_object(json_wtr);
			jw_string_field(json_wtr, "name", items[i].name);
			jw_bool_field(json_wtr, "yes", items[i].yes);
			jw_string_field(json_wtr, "detail", items[i].detail);
			jw_end_object(json_wtr);
		}
		jw_end_array(json_wtr);
		jw_bool_field(json_wtr, "can_fire", ok);
		jw_end_object(json_wtr);
		free(real);
		return ok ? 0 : 1;
	}
	{
		char *real = abs_path(k.dir);

		printf("kernel: %s (%s)\n", real ? real : k.dir, flavor);
		free(real);
	}
	for (int i = 0; i < n; i++) {
		/* the config options' detail is a parenthesis or nothing */
		if (!strncmp(items[i].name, "CONFIG_", 7))
			printf("%-4s %s%s\n", items[i].yes ? "yes" : "no",
			       items[i].name, items[i].detail);
		else
			printf("%-4s %s: %s\n", items[i].yes ? "yes" : "no",
			       items[i].name, items[i].detail);
	}
	if (!ok)
		die("this kernel offers neither bpf_panic() nor the crash_kexec kfunc: no trigger can fire");
	return 0;
}
