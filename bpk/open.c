// SPDX-License-Identifier: GPL-2.0
/*
 * bpk crash and bpk drgn: a run's vmcore opened in the analyzers, its
 * report first (written if it is not there yet).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpk.h"
#include "kernels.h"
#include "proc.h"
#include "record.h"

static void usage_crash(void)
{
	printf("usage: bpk crash [--no-report] [--stdin] [RUN]\n"
	       "\n"
	       "The run's report (written first if it is not there), then, at a\n"
	       "terminal, an interactive crash session on its vmcore (--stdin: crash\n"
	       "commands from stdin without one). crash is the analysis toolbox's\n"
	       "(bpk --analyzers). Without RUN: the newest run that has a vmcore.\n");
}

static void usage_drgn(void)
{
	printf("usage: bpk drgn [RUN]\n"
	       "\n"
	       "drgn on the run's vmcore with the project's helpers (fire(),\n"
	       "tasks(state=\"D\"), ps(), bt(pid), bpf(), panic(), files(pid), mm(pid));\n"
	       "Python lines on stdin when not at a terminal. Without RUN: the newest\n"
	       "run that has a vmcore.\n");
}

static bool has_vmcore(const char *dir)
{
	char *p = path_join(dir, "vmcore");
	bool yes = file_exists(p);

	free(p);
	return yes;
}

/* The newest run (with a vmcore, when @need_vmcore); exits 1 naming why
 * there is none.
 */
static char *newest_run(bool need_vmcore)
{
	char **ids, *dir = NULL;
	int n = run_ids(paths.runs, &ids);

	if (!n)
		die("no runs under %s (bpk demo, bpk run)", paths.runs);
	for (int i = n - 1; i >= 0 && !dir; i--) {
		char *d = path_join(paths.runs, ids[i]);

		if (!need_vmcore || has_vmcore(d))
			dir = d;
		else
			free(d);
	}
	if (!dir) {
		char *newest = path_join(paths.runs, ids[n - 1]);
		struct run_record r;
		char err[1024];

		if (record_read(newest, &r, err, sizeof(err)))
			die("none of the %d run(s) under %s has a vmcore; the newest, %s: %s",
			    n, paths.runs, ids[n - 1], err);
		die("none of the %d run(s) under %s has a vmcore; the newest, %s, is %s: %s",
		    n, paths.runs, ids[n - 1], run_status_name(r.status),
		    r.reason);
	}
	if (need_vmcore && strcmp(strrchr(dir, '/') + 1, ids[n - 1])) {
		char *newest = path_join(paths.runs, ids[n - 1]), err[1024];
		struct run_record r;

		if (record_read(newest, &r, err, sizeof(err)))
			p_info("the newest run, %s, has no vmcore (%s): opening %s, the newest that has one",
			       ids[n - 1], err, strrchr(dir, '/') + 1);
		else
			p_info("the newest run, %s, has no vmcore (%s: %s): opening %s, the newest that has one",
			       ids[n - 1], run_status_name(r.status), r.reason,
			       strrchr(dir, '/') + 1);
		free(newest);
	}
	for (int i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return dir;
}

/* The run's vmlinux from its record; exits 1 when it is gone. */
static char *run_vmlinux(const char *dir, struct run_record *r)
{
	char err[1024];

	if (record_read(dir, r, err, sizeof(err)))
		die("%s", err);
	if (!has_vmcore(dir))
		die("%s: no vmcore (run status %s: %s)", dir,
		    run_status_name(r->status), r->reason);
	/* a Debian kernel's comes from its debug package, on first use */
	if (!file_exists(r->guest.vmlinux) &&
	    kernel_fetch_vmlinux(r->guest.vmlinux, err, sizeof(err)))
		die("%s: the run's vmlinux is gone (rebuild the kernel: make kernel): %s",
		    r->guest.vmlinux, err);
	return r->guest.vmlinux;
}

/* analysis/open.py: the same crash or drgn the report read (the toolbox's,
 * or Debian 12's own with --analyzers system), started there.
 */
static __attribute__((noreturn)) void
exec_open(const char *analyzer, const char *dir, const char *vmlinux, bool tty)
{
	char *script = path_join(paths.top, "analysis/open.py");

	fflush(stdout);
	if (tty)
		execl("/usr/bin/python3", "python3", script, analyzer, dir,
		      vmlinux, "--tty", (char *)NULL);
	else
		execl("/usr/bin/python3", "python3", script, analyzer, dir,
		      vmlinux, (char *)NULL);
	die("/usr/bin/python3: %s", strerror(errno));
}

int do_crash(int argc, char **argv)
{
	bool show_report = true, from_stdin = false;
	const char *want = NULL;
	char *dir, *vmlinux, *report;
	struct run_record r;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_crash();
			return 0;
		} else if (!strcmp(argv[i], "--no-report")) {
			show_report = false;
		} else if (!strcmp(argv[i], "--stdin")) {
			from_stdin = true;
		} else if (argv[i][0] == '-') {
			usage_error(
				"crash: unknown option '%s' (bpk crash --help)",
				argv[i]);
		} else if (want) {
			usage_error("crash: one RUN at a time");
		} else {
			want = argv[i];
		}
	}
	dir = want ? run_resolve(want) : newest_run(true);
	vmlinux = run_vmlinux(dir, &r);
	report = path_join(dir, "report.txt");
	if (!file_exists(report)) {
		char *script = path_join(paths.top, "analysis/report.py");
		const char *pargv[] = { "/usr/bin/python3", script, dir, NULL };
		struct spawn s = {
			.argv = pargv, .in = -1, .out = -1, .err = 2
		};

		if (proc_wait(proc_spawn(&s)))
			p_info("the report of %s is incomplete (the error above); crash itself may still read the vmcore",
			       dir);
		free(script);
	}
	if (show_report) {
		char *text = read_file(report, 1 << 26, NULL);

		if (text)
			fputs(text, stdout);
		free(text);
	}
	if (isatty(0) && isatty(1)) {
		p_info("opening %s/vmcore in crash (quit with 'q')", dir);
		exec_open("crash", dir, vmlinux, true);
	}
	if (from_stdin)
		exec_open("crash", dir, vmlinux, false);
	p_info("not a terminal: no interactive crash session (bpk crash --stdin reads crash commands from stdin)");
	return 0;
}

int do_drgn(int argc, char **argv)
{
	const char *want = NULL;
	char *dir, *vmlinux;
	struct run_record r;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_drgn();
			return 0;
		} else if (argv[i][0] == '-') {
			usage_error(
				"drgn: unknown option '%s' (bpk drgn --help)",
				argv[i]);
		} else if (want) {
			usage_error("drgn: one RUN at a time");
		} else {
			want = argv[i];
		}
	}
	dir = want ? run_resolve(want) : newest_run(true);
	vmlinux = run_vmlinux(dir, &r);
	if (isatty(0))
		p_info("opening %s/vmcore in drgn (quit with Ctrl-D)", dir);
	exec_open("drgn", dir, vmlinux, isatty(0));
}
