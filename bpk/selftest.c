// SPDX-License-Identifier: GPL-2.0
/*
 * bpk selftest: the appliance's kdumpctl test. A known trigger is armed,
 * its example workload fires it, the dump is collected and reported, and
 * each stage is judged from what the run filed, one line each, with a
 * distinct exit status for the first stage that did not work.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bpk.h"
#include "escape.h"
#include "proc.h"
#include "protocol.h"
#include "record.h"
#include "run.h"

enum {
	ST_OK = 0,
	ST_COULD_NOT_RUN = 1,
	ST_BAD_INPUT = 2,
	ST_NO_FIRE = 3,
	ST_NO_VMCORE = 4,
	ST_REPORT = 5,
};

static void usage_selftest(void)
{
	printf("usage: bpk selftest [--kernel ours|debian|debian:RELEASE|PATH] [--timeout S] [--runs DIR]\n"
	       "       bpk selftest --run RUN\n"
	       "\n"
	       "The appliance's kdumpctl test: boots the guest, arms a known trigger\n"
	       "(syscall_errno syscall=openat errno=ENOENT comm=bpk-demo), lets its example\n"
	       "workload fire it, collects the dump and writes the report, then says in one\n"
	       "line per stage (boot, arm, fire, vmcore, report) what worked, each read back\n"
	       "from the filed run. The run is kept (bpk runs). --run RUN judges a run\n"
	       "filed before the same way (any trigger), nothing booted.\n"
	       "\n"
	       "Exit status:\n"
	       "  0  every stage worked\n"
	       "  1  the appliance could not run (not built, did not boot or arm, not filed)\n"
	       "  2  bad input\n"
	       "  3  no trigger fire: the guest armed the trigger but it did not fire\n"
	       "  4  no vmcore: the trigger fired but no verified dump was collected\n"
	       "  5  report failed: the vmcore is there but its report is not complete\n");
}

/* The first line of @dir/@file starting with @prefix (escaped), or NULL. */
static char *first_line(const char *dir, const char *file, const char *prefix,
			bool anywhere)
{
	char *path = path_join(dir, file);
	char *text = read_file(path, 256 << 20, NULL), *found = NULL;

	free(path);
	for (char *l = text ? strtok(text, "\n") : NULL; l && !found;
	     l = strtok(NULL, "\n")) {
		char *at = anywhere ? strstr(l, prefix) :
			   strncmp(l, prefix, strlen(prefix)) ? NULL :
								l;

		if (at) {
			size_t n = strcspn(at, "\r");

			found = escape_text(at, n);
		}
	}
	free(text);
	return found;
}

static bool report_valid(const char *dir, char **why)
{
	char *script = path_join(paths.top, "analysis/report-check.py");
	char *json = path_join(dir, "report.json"), *out = NULL;
	const char *argv[] = { "/usr/bin/python3", script, json, NULL };
	int rc = proc_capture(argv, &out, NULL);

	out[strcspn(out, "\n")] = '\0';
	*why = out;
	free(script);
	free(json);
	return rc == 0;
}

static int judge(const char *dir, int run_rc)
{
	struct run_record r;
	char err[1024], *line, *want, *why = NULL;
	char *report;
	struct stat st;

	if (record_read(dir, &r, err, sizeof(err))) {
		print_line(stdout, "FAIL boot: %s", err);
		return ST_COULD_NOT_RUN;
	}
	line = first_line(dir, "guest.log", STATE_PREFIX STATE_BOOTED, false);
	if (!line) {
		print_line(stdout, "FAIL boot: no '%s' in %s/guest.log (%s)",
			   STATE_PREFIX STATE_BOOTED, dir, r.reason);
		return ST_COULD_NOT_RUN;
	}
	print_line(stdout, "ok   boot: %s", line + strlen(STATE_PREFIX));
	free(line);
	line = first_line(dir, "guest.log", STATE_PREFIX STATE_ARMED, false);
	if (!line) {
		char *refused = first_line(dir, "guest.log",
					   STATE_PREFIX STATE_REFUSED, false);

		print_line(stdout,
			   "FAIL arm: the guest did not arm the trigger (%s)",
			   refused ? refused : r.reason);
		return ST_COULD_NOT_RUN;
	}
	print_line(stdout, "ok   arm: %s", line + strlen(STATE_PREFIX));
	free(line);
	/* the trigger's own panic message; through the crash_kexec kfunc
	 * there is none, and the run-level cause says it fired
	 */
	want = xasprintf("bpf_panic trigger %s fired: ", r.trigger.name);
	line = first_line(dir, "console.log", want, true);
	if (r.cause.run != CAUSE_TRIGGER) {
		print_line(stdout, "FAIL fire: no trigger fire (cause=%s: %s)",
			   cause_name(r.cause.run), r.reason);
		return ST_NO_FIRE;
	}
	if (line)
		print_line(stdout, "ok   fire: %s", line);
	else
		print_line(stdout, "ok   fire: cause=trigger (%s)",
			   r.cause.detail);
	free(line);
	{
		char *vmcore = path_join(dir, "vmcore");

		if (stat(vmcore, &st) || !st.st_size ||
		    r.dump.state != DUMP_COMPLETE) {
			print_line(
				stdout,
				"FAIL vmcore: no verified vmcore (dump=%s: %s)",
				dump_state_name(r.dump.state), r.reason);
			return ST_NO_VMCORE;
		}
		print_line(stdout, "ok   vmcore: %lld bytes, dump=complete",
			   (long long)st.st_size);
		free(vmcore);
	}
	report = path_join(dir, "report.txt");
	{
		char *needle = xasprintf("\n   trigger=%s\n", r.trigger.name);
		char *text = read_file(report, 1 << 26, NULL);
		bool fire_in_report = text && strstr(text, needle);
		bool valid = report_valid(dir, &why);

		if (run_rc != 0 || r.status != RUN_SUCCESS || !text ||
		    !fire_in_report || !valid) {
			print_line(
				stdout,
				"FAIL report: status=%s, %s (report.txt: %s, fire record %s, report.json: %s)",
				run_status_name(r.status), r.reason,
				text ? "there" : "missing",
				fire_in_report ? "read from the vmcore" :
						 "not in it",
				why);
			return ST_REPORT;
		}
		print_line(
			stdout,
			"ok   report: %s (fire record trigger=%s read from the vmcore), report.json valid",
			report, r.trigger.name);
		free(text);
		free(needle);
	}
	free(why);
	record_free(&r);
	return ST_OK;
}

int do_selftest(int argc, char **argv)
{
	struct run_opts o;
	struct kernel_info k;
	const char *judge_run = NULL;
	char *dir = NULL;
	int rc;
	time_t t0 = time(NULL);

	run_opts_init(&o);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage_selftest();
			return 0;
		} else if (!strcmp(a, "--kernel") || !strcmp(a, "--timeout") ||
			   !strcmp(a, "--runs") || !strcmp(a, "--run")) {
			if (i + 1 >= argc || !*argv[i + 1])
				usage_error(
					"%s needs a value (bpk selftest --help)",
					a);
			if (!strcmp(a, "--kernel")) {
				o.kernel = argv[++i];
			} else if (!strcmp(a, "--timeout")) {
				o.timeout =
					(int)parse_num(argv[++i], 1, 1 << 30);
				if (o.timeout < 1)
					usage_error(
						"--timeout '%s' is not a positive number of seconds",
						argv[i]);
			} else if (!strcmp(a, "--runs")) {
				free(paths.runs);
				paths.runs = xstrdup(argv[++i]);
			} else {
				judge_run = argv[++i];
			}
		} else {
			usage_error(
				"selftest: unknown argument '%s' (bpk selftest --help)",
				a);
		}
	}
	if (judge_run) {
		/* a run filed before: its stages judged again, nothing booted */
		dir = run_resolve(judge_run);
		print_line(stdout, "run: %s (judged as filed)", dir);
		rc = judge(dir, 0);
		if (!rc)
			print_line(stdout, "selftest passed");
		return rc;
	}
	o.trigger = "syscall_errno";
	strv_add(&o.targs, "syscall=openat");
	strv_add(&o.targs, "errno=ENOENT");
	strv_add(&o.targs, "comm=bpk-demo");
	o.workload = path_join(paths.top, "triggers/examples/syscall_errno.sh");
	o.display = isatty(1) ? DISPLAY_TERM : DISPLAY_QUIET;
	if (!o.build) {
		/* not built, and not to be built: "could not run" (1), not
		 * bad input as bpk run says
		 */
		char *missing;

		kernel_resolve(o.kernel, &k);
		missing = kernel_missing(&k);
		if (*missing) {
			print_line(stdout, "FAIL build: %s", missing);
			return ST_COULD_NOT_RUN;
		}
		free(missing);
	}
	run_validate(&o, &k);
	run_build(&o, &k);
	print_line(
		stdout,
		"selftest: syscall_errno syscall=openat errno=ENOENT comm=bpk-demo, runs under %s",
		paths.runs);
	fflush(stdout);
	{
		int saved = -1;

		/* quiet: the run prints its directory, which is ours to say */
		if (o.display == DISPLAY_QUIET) {
			fflush(stdout);
			saved = dup(1);
			freopen("/dev/null", "w", stdout);
		}
		rc = run_execute(&o, &k, &dir);
		if (saved >= 0) {
			fflush(stdout);
			dup2(saved, 1);
			close(saved);
		}
	}
	if (rc == EXIT_BAD_INPUT)
		return ST_BAD_INPUT;
	if (!dir) {
		print_line(stdout, "FAIL run: not filed (bpk run exit %d)", rc);
		return ST_COULD_NOT_RUN;
	}
	print_line(stdout, "run: %s (bpk run exit %d, %lld s)", dir, rc,
		   (long long)(time(NULL) - t0));
	rc = judge(dir, rc);
	if (!rc)
		print_line(stdout, "selftest passed in %lld s",
			   (long long)(time(NULL) - t0));
	return rc;
}
