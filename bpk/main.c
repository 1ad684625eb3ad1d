// SPDX-License-Identifier: GPL-2.0
/*
 * bpk: the appliance as one command with verbs. Catch a kernel bug in the
 * act: a BPF trigger calls bpf_panic(), the guest kexecs into a crash
 * kernel, the dump is collected and reported, all in QEMU.
 *
 * One table of verbs, one file per verb family, one JSON writer for -j.
 * bpk(1) is the full reference; --help is the short form of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "argsfile.h"
#include "bpk.h"

bool json_output;
bool pretty_output;
json_writer_t *json_wtr;
const char *bin_name = "bpk";
mode_t user_umask = 022;

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *args;
	const char *summary;
	bool hidden; /* in bpk(1), not in the short list */
};

#define VERB(n, f, a, s)                                      \
	{                                                     \
		.name = n, .func = f, .args = a, .summary = s \
	}
#define HIDDEN(n, f, a, s)                                                    \
	{                                                                     \
		.name = n, .func = f, .args = a, .summary = s, .hidden = true \
	}

static int do_help(int argc, char **argv);

static const struct cmd cmds[] = {
	VERB("run", do_run, "TRIGGER [k=v ...] [--workload FILE | -- CMD ...]",
	     "boot, arm, fire, dump, report: one run"),
	VERB("demo", do_demo, "", "the demo run (syscall_errno)"),
	VERB("selftest", do_selftest, "[--run RUN]",
	     "boot, arm, fire, capture, report: a line per stage"),
	VERB("list", do_list, "[TRIGGER | --prog FILE]",
	     "triggers and their parameters"),
	VERB("new-trigger", do_new_trigger, "NAME",
	     "write NAME.bpf.c: a trigger program of your own to start from"),
	VERB("sdk", do_sdk, "--cflags",
	     "compiler flags for your own trigger programs"),
	VERB("check", do_check, "[--kernel ours|debian|debian:RELEASE|PATH]",
	     "what a kernel offers the appliance, what it lacks"),
	VERB("kernels", do_kernels, "[--cached]",
	     "the Debian kernels a run can boot, and the cached ones"),
	VERB("cache", do_cache, "prune [--dry-run]",
	     "remove the cached kernels no run needs"),
	VERB("runs", do_runs, "", "a table of the filed runs"),
	VERB("show", do_show, "RUN [--json|--record|--field PATH|--graph]",
	     "a run's report, record or one field"),
	VERB("crash", do_crash, "[RUN]",
	     "the report, then crash on the vmcore"),
	VERB("drgn", do_drgn, "[RUN]", "drgn on the vmcore, with our helpers"),
	VERB("dump", do_dump, "[DIR]",
	     "a dump of a running guest; its run goes on"),
	VERB("campaign", do_campaign, "TRIGGER [k=v ...] --attempts N --jobs J",
	     "many attempts for a flaky bug"),
	VERB("matrix", do_matrix, "TRIGGER [k=v ...] --kernels K1,K2,...",
	     "does it fire on each of these kernels?"),
	VERB("bisect", do_bisect, "TRIGGER [k=v ...] --kernels GOOD,...,BAD",
	     "the first kernel of a list where it fires (or stops)"),
	HIDDEN("snapshot", do_snapshot, "[--mem SIZE] [--trigger NAME ...]",
	       "make (or find) an armed snapshot"),
	HIDDEN("collect", do_collect, "--staging DIR --trigger NAME",
	       "file a staging dir as a run"),
	HIDDEN("boot", do_boot, "--initrd CPIO --out DIR",
	       "boot an image under supervision (tests, bench)"),
	VERB("help", do_help, "", "this text"),
	{ 0 },
};

static void usage_main(FILE *f)
{
	fprintf(f,
		"usage: bpk [-j|--json] [-p|--pretty] [--runs DIR] [--analyzers A] VERB [ARGS]\n"
		"       bpk ... --args-file FILE ...\n"
		"       bpk VERB --help    bpk --version    man bpk\n"
		"\n"
		"Catch a kernel bug in the act: a BPF trigger calls bpf_panic(), the\n"
		"guest kexecs into a crash kernel, the dump is collected and\n"
		"reported, all in QEMU.\n"
		"\n"
		"verbs:\n");
	for (const struct cmd *c = cmds; c->name; c++) {
		char head[80];

		if (c->hidden)
			continue;
		snprintf(head, sizeof(head), "%s %s", c->name, c->args);
		if (strlen(head) > 30)
			fprintf(f, "  %s\n  %-30s %s\n", head, "", c->summary);
		else
			fprintf(f, "  %-30s %s\n", head, c->summary);
	}
	fprintf(f,
		"\n"
		"RUN is a run id (RUNS/<id>), a unique prefix of one, a run\n"
		"directory, or \"last\".\n"
		"\n"
		"options:\n"
		"  -j, --json      JSON output (list, check, runs, show)\n"
		"  -p, --pretty    indented JSON (implies --json)\n"
		"  --runs DIR      where runs are filed (BPK_RUNS; default: the clone's runs/)\n"
		"  --analyzers A   toolbox (default: a current crash and drgn, made once\n"
		"                  with mmdebstrap) or system (Debian 12's own); BPK_ANALYZERS\n"
		"  --version       bpk's version\n"
		"  --args-file F   F's words (each ended by a NUL byte) in its place, anywhere\n"
		"                  before a --: how a campaign hands its attempts the user's\n"
		"                  words, never through GNU parallel's template\n"
		"Exit status: 0 success, 1 the task failed (named on stderr), 2 bad input\n"
		"(one line, nothing booted), 3 a run could not be filed, 128+N stopped by\n"
		"signal N.\n");
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage_main(stdout);
	return 0;
}

static const char *verb_names(void)
{
	static char buf[256];
	size_t n = 0;

	for (const struct cmd *c = cmds; c->name; c++) {
		if (c->hidden)
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      n ? ", " : "", c->name);
		if (n >= sizeof(buf))
			break;
	}
	return buf;
}

int main(int argc, char **argv)
{
	const char *runs = NULL;
	int i, rc;

	/* what bpk makes holds the guest's memory and words (runs,
	 * snapshots, staging): its owner's alone, from creation; a file QEMU's
	 * user must read is opened up on purpose (run.c, snapshot.c)
	 */
	user_umask = umask(077);
	/* a campaign's attempts get the user's words from a file, never
	 * through GNU parallel's template (argsfile.h)
	 */
	{
		static struct strv expanded;
		char err[1024];

		if (args_file_expand(argc, argv, &expanded, err, sizeof(err)))
			usage_error("%s", err);
		argc = expanded.n;
		argv = strv_argv(&expanded);
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage_main(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			config_load(NULL);
			printf("bpk %s\n", bpk_version());
			return 0;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			json_output = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pretty")) {
			json_output = pretty_output = true;
		} else if (!strcmp(a, "--runs")) {
			if (i + 1 >= argc || !*argv[i + 1])
				usage_error("--runs needs a directory");
			runs = argv[++i];
		} else if (!strcmp(a, "--analyzers")) {
			const char *v = i + 1 < argc ? argv[++i] : "";

			if (strcmp(v, "toolbox") && strcmp(v, "system"))
				usage_error(
					"--analyzers '%s': toolbox or system",
					v);
			/* the report, crash and drgn are started by
			 * analysis/, which reads the choice from here
			 */
			if (setenv("BPK_ANALYZERS", v, 1))
				die("setenv: out of memory");
		} else if (a[0] == '-') {
			usage_error("unknown option '%s' (bpk --help)", a);
		} else {
			break;
		}
	}
	if (json_output) {
		json_wtr = jw_new(stdout);
		if (!json_wtr)
			die("out of memory");
		jw_pretty(json_wtr, pretty_output);
	}
	if (i >= argc)
		usage_error("no verb given (bpk --help: %s)", verb_names());
	if (runs && has_control(runs))
		usage_error("--runs: a control character in the path");
	for (const struct cmd *c = cmds; c->name; c++) {
		if (strcmp(c->name, argv[i]))
			continue;
		config_load(runs);
		rc = c->func(argc - i - 1, argv + i + 1);
		if (json_wtr)
			jw_destroy(&json_wtr);
		return rc;
	}
	usage_error("unknown verb '%s' (bpk --help: %s)", argv[i],
		    verb_names());
}
