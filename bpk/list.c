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
#include "kconfig.h"
#include "kernels.h"
#include "params.h"
#include "proc.h"
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
	printf("usage: bpk [-j] check [--kernel ours|debian|debian:RELEASE|PATH] [--built]\n"
	       "\n"
	       "What a kernel offers the appliance, read on the host, nothing booted:\n"
	       "the bpf_panic() helper (BPF_FUNC_panic), the crash_kexec kfunc, the\n"
	       "kernel.destructive_bpf_enabled sysctl (from its vmlinux's BTF and\n"
	       "symbols), and every config option the guest needs (kexec, crash dump\n"
	       "and /proc/vmcore, BPF and BTF, kprobes and ftrace, the virtio and\n"
	       "serial consoles, initramfs), each with what needs it. A Debian\n"
	       "release is fetched first if it is not cached. Exit 1 if a needed\n"
	       "option is missing (bpk run refuses such a kernel) or neither\n"
	       "bpf_panic() nor crash_kexec is there.\n"
	       "\n"
	       "--built: also that the appliance is built here for the kernel (its\n"
	       "image and guest image: what a run with --no-build boots); nothing is\n"
	       "fetched or built, exit 1 naming what is missing. A campaign, matrix\n"
	       "or bisection asks this of every machine of --sshlogin, for every\n"
	       "kernel, before the first attempt.\n");
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

/* A Debian release not fetched yet: fetched now (no guest image built). */
static void fetch_debian(const struct kernel_info *k)
{
	char *script = debian_kernel_script();
	const char *argv[] = { script, "fetch", k->dir, k->release, NULL };
	int rc;

	p_info("%s is not cached: fetching it", k->spec);
	rc = proc_run_shown(argv);
	if (rc)
		die("%s fetch %s %s failed (exit %d)", script, k->dir,
		    k->release, rc);
	free(script);
}

int do_check(int argc, char **argv)
{
	const char *spec = "ours";
	struct kernel_info k;
	struct item items[6 + KCONFIG_NEEDS];
	struct kconfig_item conf[KCONFIG_NEEDS];
	char *config, err[512];
	long long helper = -1;
	bool kfunc = false, sysctl = false, ok, conf_ok = true, built = false;
	int n = 0, nconf;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_check();
			return 0;
		} else if (!strcmp(argv[i], "--kernel")) {
			if (i + 1 >= argc || !*argv[i + 1])
				usage_error(
					"--kernel needs a value: ours, debian, debian:RELEASE or a kernel's path");
			spec = argv[++i];
		} else if (!strcmp(argv[i], "--built")) {
			built = true;
		} else {
			usage_error(
				"check: unknown argument '%s' (bpk check --help)",
				argv[i]);
		}
	}
	kernel_resolve(spec, &k);
	if (built) {
		char *missing = kernel_missing(&k);

		if (*missing)
			die("the appliance is not built here for %s: %s",
			    k.spec, missing);
		free(missing);
		item(&items[n++], "built here", true,
		     "%s and its guest image %s", k.image, k.root_img);
	}
	if (!strcmp(k.flavor, "debian") && !file_exists(k.config)) {
		if (strcmp(spec, "debian"))
			fetch_debian(&k);
		else
			die("%s: not fetched (make debian-kernel in %s)",
			    k.config, paths.top);
	}
	if (!strcmp(k.flavor, "ours") && !file_exists(k.vmlinux))
		die("%s: not built (make kernel in %s)", k.vmlinux, paths.top);
	if (file_exists(k.vmlinux)) {
		struct btf *btf = btf__parse(k.vmlinux, NULL);

		if (!btf)
			die("%s: no BTF could be read: %s", k.vmlinux,
			    strerror(errno));
		helper = btf_panic_helper_id(btf);
		kfunc = btf__find_by_name_kind(btf, "crash_kexec",
					       BTF_KIND_FUNC) >= 0;
		btf__free(btf);
		if (elf_has_symbol(k.vmlinux, "sysctl_destructive_bpf_enabled",
				   &sysctl, err, sizeof(err)))
			die("%s", err);
	} else {
		/* a Debian kernel before its debug package: the names of
		 * its BTF; a stock kernel has neither helper nor sysctl
		 */
		const char *names[] = { "crash_kexec", NULL };

		if (kernel_has_symbols(&k, names, &kfunc, err, sizeof(err)))
			die("%s", err);
	}
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
	/* not needed to run, needed for host programs in the guest */
	item(&items[n++], "host programs in the guest (9p)", !k.no_hostfs, "%s",
	     k.no_hostfs ? k.no_hostfs :
			   "its guest can mount the host's /usr (--host-fs)");
	config = read_file(k.config, 1 << 24, NULL);
	if (!config)
		die("%s: %s (the kernel's config)", k.config, strerror(errno));
	nconf = kconfig_check(config, k.modules != NULL, conf);
	free(config);
	for (int i = 0; i < nconf; i++) {
		item(&items[n++], conf[i].want, conf[i].ok, "%s (%s)",
		     conf[i].why, conf[i].says);
		conf_ok = conf_ok && conf[i].ok;
	}
	ok = (helper >= 0 || kfunc) && conf_ok;
	if (json_output) {
		char *real = abs_path(k.dir);

		jw_start_object(json_wtr);
		jw_string_field(json_wtr, "kernel", k.spec);
		jw_string_field(json_wtr, "dir", real ? real : k.dir);
		jw_string_field(json_wtr, "flavor", k.flavor);
		if (k.release)
			jw_string_field(json_wtr, "release", k.release);
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
		jw_bool_field(json_wtr, "can_fire", helper >= 0 || kfunc);
		jw_bool_field(json_wtr, "config_ok", conf_ok);
		jw_end_object(json_wtr);
		free(real);
		return ok ? 0 : 1;
	}
	{
		char *real = abs_path(k.dir);

		/* a path names its dir already */
		if (strcmp(k.flavor, "path"))
			printf("kernel: %s (%s)", k.spec, real ? real : k.dir);
		else
			printf("kernel: %s", k.spec);
		printf(", release %s\n", k.release ? k.release : "unknown");
		free(real);
	}
	for (int i = 0; i < n; i++)
		print_line(stdout, "%-4s %s: %s", items[i].yes ? "yes" : "no",
			   items[i].name, items[i].detail);
	if (!(helper >= 0 || kfunc))
		die("this kernel offers neither bpf_panic() nor the crash_kexec kfunc: no trigger can fire");
	if (!conf_ok)
		die("this kernel lacks what the appliance needs (the lines with no): bpk run refuses it");
	return 0;
}
