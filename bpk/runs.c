// SPDX-License-Identifier: GPL-2.0
/*
 * bpk runs, bpk show and bpk collect: the filed runs, read through the one
 * reader of their record (record.c); report.json only for what the report
 * alone knows (the fire record's time).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpk.h"
#include "collect.h"
#include "kernels.h"
#include "record.h"
#include "run.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int run_ids(const char *runs, char ***ids)
{
	DIR *d = opendir(runs);
	struct dirent *de;
	int n = 0, cap = 0;

	*ids = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *p;

		/* ids start with their UTC time; an .unfiled dir is not a
		 * run, nor is a campaign's dir
		 */
		if (de->d_name[0] != '2' ||
		    (len > 8 && !strcmp(de->d_name + len - 8, ".unfiled")))
			continue;
		p = path_join(runs, de->d_name);
		if (is_dir(p)) {
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				*ids = xrealloc(*ids,
						(size_t)cap * sizeof(char *));
			}
			(*ids)[n++] = xstrdup(de->d_name);
		}
		free(p);
	}
	closedir(d);
	if (n)
		qsort(*ids, (size_t)n, sizeof(char *), cmp_str);
	return n;
}

static void free_ids(char **ids, int n)
{
	for (int i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

char *run_resolve(const char *want)
{
	char **ids, *found = NULL;
	int n, matches = 0;
	const char *m[3] = { 0 };

	if (has_control(want))
		usage_error("RUN: a control character in '%s'", "...");
	if (strchr(want, '/')) {
		char *rec = path_join(want, RECORD_FILE);

		if (!is_dir(want))
			usage_error(
				"%s: not a run directory (no such directory)",
				want);
		if (!file_exists(rec))
			usage_error("%s: not a run directory (no %s)", want,
				    RECORD_FILE);
		free(rec);
		return abs_path(want);
	}
	n = run_ids(paths.runs, &ids);
	if (!strcmp(want, "last")) {
		if (!n)
			usage_error("RUN 'last': no runs under %s", paths.runs);
		found = path_join(paths.runs, ids[n - 1]);
		free_ids(ids, n);
		return found;
	}
	for (int i = 0; i < n; i++) {
		if (!strcmp(ids[i], want)) {
			found = path_join(paths.runs, ids[i]);
			free_ids(ids, n);
			return found;
		}
		if (!strncmp(ids[i], want, strlen(want))) {
			if (matches < 3)
				m[matches] = ids[i];
			matches++;
		}
	}
	if (!matches)
		usage_error("RUN '%s' matches no run under %s (bpk runs)", want,
			    paths.runs);
	if (matches > 1)
		usage_error(
			"RUN '%s' matches %d runs (%s, %s%s): give more of the id",
			want, matches, m[0], m[1], matches > 2 ? ", ..." : "");
	found = path_join(paths.runs, m[0]);
	free_ids(ids, n);
	return found;
}

/* --- bpk runs */

static void usage_runs(void)
{
	printf("usage: bpk [-j] runs\n"
	       "\n"
	       "A table of the filed runs under RUNS, oldest first: id, trigger, status,\n"
	       "cause (run-level), vmcore size, fire time (the fire record's time,\n"
	       "seconds since the guest booted, from report.json). With -j: a JSON\n"
	       "array of the same.\n");
}

static void size_text(unsigned long long n, char *buf, size_t len)
{
	static const char units[] = "BKMG";
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%lluB", n);
	else
		snprintf(buf, len, "%.1f%c", v, units[u]);
}

/* The fire record's time (ns) from report.json, -1 if there is none. */
static long long fire_time_ns(const char *dir)
{
	json_t *j = report_json_load(dir), *t;
	long long ns = -1;

	if (!j)
		return -1;
	t = json_object_get(json_object_get(json_object_get(j, "fire"),
					    "fields"),
			    "time_ns");
	if (json_is_number(t))
		ns = (long long)json_number_value(t);
	json_decref(j);
	return ns;
}

struct row {
	char *cols[6];
};

int do_runs(int argc, char **argv)
{
	char **ids;
	int n;
	struct row *rows;
	size_t w[6] = { 0 };
	static const char *const head[6] = { "ID",    "TRIGGER", "STATUS",
					     "CAUSE", "VMCORE",	 "FIRE" };

	if (argc && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		usage_runs();
		return 0;
	}
	if (argc)
		usage_error("runs: unknown argument '%s' (bpk runs --help)",
			    argv[0]);
	n = run_ids(paths.runs, &ids);
	if (json_output)
		jw_start_array(json_wtr);
	else if (!n)
		fprintf(stderr, "no runs under %s (bpk demo, bpk run)\n",
			paths.runs);
	rows = xcalloc((size_t)n + 1, sizeof(*rows));
	for (int c = 0; c < 6; c++)
		rows[0].cols[c] = xstrdup(head[c]);
	for (int i = 0; i < n; i++) {
		char *dir = path_join(paths.runs, ids[i]);
		struct run_record r;
		char err[1024], size[32] = "-", fire[32] = "-";
		long long ns;
		bool ok = !record_read(dir, &r, err, sizeof(err));

		ns = ok ? fire_time_ns(dir) : -1;
		if (ok && r.dump.vmcore_bytes)
			size_text(r.dump.vmcore_bytes, size, sizeof(size));
		if (ns >= 0)
			snprintf(fire, sizeof(fire), "%.3fs", (double)ns / 1e9);
		if (json_output) {
			jw_start_object(json_wtr);
			jw_string_field(json_wtr, "id", ids[i]);
			jw_string_field(json_wtr, "dir", dir);
			if (ok) {
				jw_string_field(json_wtr, "trigger",
						r.trigger.name);
				jw_string_field(json_wtr, "status",
						run_status_name(r.status));
				jw_string_field(json_wtr, "cause",
						cause_name(r.cause.run));
				jw_string_field(
					json_wtr, "cause_dump",
					r.cause.dump_known ?
						cause_name(r.cause.dump) :
						NULL);
				jw_string_field(json_wtr, "dump",
						dump_state_name(r.dump.state));
				jw_uint_field(json_wtr, "vmcore_bytes",
					      r.dump.vmcore_bytes);
				if (ns >= 0)
					jw_int_field(json_wtr, "fire_time_ns",
						     ns);
				else
					jw_null_field(json_wtr, "fire_time_ns");
			} else {
				jw_string_field(json_wtr, "error", err);
			}
			jw_end_object(json_wtr);
		} else {
			struct row *row = &rows[i + 1];

			row->cols[0] = xstrdup(ids[i]);
			row->cols[1] = xstrdup(ok ? r.trigger.name : "?");
			row->cols[2] = xstrdup(ok ? run_status_name(r.status) :
						    "unreadable");
			/* the dump's cause once the report read it: it
			 * decides; else the console's
			 */
			row->cols[3] = xstrdup(!ok ? "-" :
					       r.cause.dump_known ?
						     cause_name(r.cause.dump) :
						     cause_name(r.cause.run));
			row->cols[4] = xstrdup(size);
			row->cols[5] = xstrdup(fire);
		}
		if (ok)
			record_free(&r);
		free(dir);
	}
	if (json_output) {
		jw_end_array(json_wtr);
	} else if (n) {
		for (int i = 0; i <= n; i++)
			for (int c = 0; c < 6; c++)
				if (strlen(rows[i].cols[c]) > w[c])
					w[c] = strlen(rows[i].cols[c]);
		for (int i = 0; i <= n; i++) {
			char line[1024];
			size_t len = 0;

			for (int c = 0; c < 6; c++)
				len += (size_t)snprintf(line + len,
							sizeof(line) - len,
							"%s%-*s", c ? "  " : "",
							(int)w[c],
							rows[i].cols[c]);
			while (len && line[len - 1] == ' ')
				line[--len] = '\0';
			print_line(stdout, "%s", line);
		}
	}
	for (int i = 0; i <= n; i++)
		for (int c = 0; c < 6; c++)
			free(rows[i].cols[c]);
	free(rows);
	free_ids(ids, n);
	return 0;
}

/* --- bpk show */

static void usage_show(void)
{
	printf("usage: bpk show RUN [--json | --record | --field PATH | --graph]\n"
	       "\n"
	       "The run's report (report.txt); --json (or bpk -j show): its report.json\n"
	       "(schema analysis/report.schema.json); --record: its run record\n"
	       "(run.json, schema analysis/run.schema.json); --field PATH: one field\n"
	       "of the record by its dotted path (status, cause.run, dump.state,\n"
	       "timings.boot_to_armed_s ...); --graph: the file of the wait-for graph\n"
	       "(waits.svg: who blocked whom). RUN: id, unique prefix, directory or last.\n");
}

static int cat_file(const char *path)
{
	char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)))
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

/* "status failed: reason" of a run, for the messages below */
static char *status_line(const char *dir)
{
	struct run_record r;
	char err[1024], *s;

	if (record_read(dir, &r, err, sizeof(err)))
		return xstrdup(err);
	s = xasprintf("status %s: %s", run_status_name(r.status), r.reason);
	record_free(&r);
	return s;
}

int do_show(int argc, char **argv)
{
	const char *want = NULL, *field = NULL;
	bool as_json = json_output, record = false, graph = false;
	char *dir, *path;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_show();
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			as_json = true;
		} else if (!strcmp(argv[i], "--record")) {
			record = true;
		} else if (!strcmp(argv[i], "--graph")) {
			graph = true;
		} else if (!strcmp(argv[i], "--field")) {
			if (i + 1 >= argc || !*argv[i + 1])
				usage_error(
					"--field needs a PATH (bpk show --help)");
			field = argv[++i];
		} else if (argv[i][0] == '-') {
			usage_error(
				"show: unknown option '%s' (bpk show --help)",
				argv[i]);
		} else if (want) {
			usage_error("show: one RUN at a time");
		} else {
			want = argv[i];
		}
	}
	if (!want)
		usage_error(
			"show: no RUN given (an id, a unique prefix or last; bpk runs)");
	dir = run_resolve(want);
	if (graph) {
		/* the report draws it with Graphviz when tasks were blocked;
		 * the .dot alone when dot could not draw it
		 */
		char *svg = path_join(dir, "waits.svg");
		char *dot = path_join(dir, "waits.dot");

		if (file_exists(svg))
			printf("%s\n", svg);
		else if (file_exists(dot))
			printf("%s\n", dot);
		else if (!file_exists(path_join(dir, "report.json")))
			die("%s: no report yet, so no wait-for graph (%s)", dir,
			    status_line(dir));
		else
			die("%s: no wait-for graph: no task was blocked in the dump",
			    dir);
		free(svg);
		free(dot);
		return 0;
	}
	if (field) {
		char *out, err[1024];
		int rc = record_field(dir, field, &out, err, sizeof(err));

		if (rc < 0)
			die("%s", err);
		if (rc > 0)
			die("%s/%s: no field %s", dir, RECORD_FILE, field);
		/* an array's items one a line; each line escaped, should the
		 * record have been written by something other than bpk
		 */
		for (char *l = out, *nl; l; l = nl) {
			nl = strchr(l, '\n');
			if (nl)
				*nl++ = '\0';
			print_line(stdout, "%s", l);
		}
		free(out);
		return 0;
	}
	/* the JSON forms are printed as files: the global writer stays out */
	if (json_wtr)
		jw_destroy(&json_wtr);
	path = path_join(dir, record  ? RECORD_FILE :
			      as_json ? "report.json" :
					"report.txt");
	if (cat_file(path)) {
		char *st = status_line(dir);

		json_output = false;
		die("%s: no %s (%s)", dir, strrchr(path, '/') + 1, st);
	}
	free(path);
	free(dir);
	return 0;
}

/* --- bpk collect */

static void usage_collect(void)
{
	printf("usage: bpk collect --staging DIR --trigger NAME [--dry-run] [--interrupted SIGNAME]\n"
	       "                   [--kernel ours|debian|debian:RELEASE|PATH] [--runs DIR] [--mem SIZE]\n"
	       "\n"
	       "File a staging dir (what QEMU left: console.log, results.txt, dmesg.txt,\n"
	       "dump.flat, status.txt) as a run under RUNS, as bpk run does after the\n"
	       "guest: for a run kept .unfiled, or a test. Prints the run directory.\n"
	       "--mem: the guest's memory (default 1G, bpk run's): a dump stream with a\n"
	       "record beyond it is kept as evidence, never rebuilt.\n"
	       "Exit 0 filed with a verified dump, 1 filed as failed, 2 bad input, 3 it\n"
	       "could not be filed (everything is still in DIR).\n");
}

int do_collect(int argc, char **argv)
{
	struct collect_in in = { 0 };
	struct run_record rec;
	struct kernel_info k;
	const char *kernel = "ours", *mem = "1G";
	char err[2048], *dir = NULL;
	enum collect_result rc;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage_collect();
			return 0;
		} else if (!strcmp(a, "--dry-run")) {
			in.dry_run = true;
		} else if (!strcmp(a, "--staging") || !strcmp(a, "--trigger") ||
			   !strcmp(a, "--interrupted") ||
			   !strcmp(a, "--kernel") || !strcmp(a, "--runs") ||
			   !strcmp(a, "--mem")) {
			if (i + 1 >= argc || !*argv[i + 1])
				usage_error(
					"%s needs a value (bpk collect --help)",
					a);
			if (!strcmp(a, "--staging"))
				in.staging = argv[++i];
			else if (!strcmp(a, "--trigger"))
				in.trigger = argv[++i];
			else if (!strcmp(a, "--interrupted"))
				in.interrupted = argv[++i];
			else if (!strcmp(a, "--kernel"))
				kernel = argv[++i];
			else if (!strcmp(a, "--mem"))
				mem = argv[++i];
			else {
				free(paths.runs);
				paths.runs = xstrdup(argv[++i]);
			}
		} else {
			usage_error(
				"collect: unknown argument '%s' (bpk collect --help)",
				a);
		}
	}
	if (!in.staging || !in.trigger)
		usage_error(
			"collect: --staging DIR and --trigger NAME are required");
	if (has_control(in.staging) || has_control(in.trigger) ||
	    has_control(paths.runs) ||
	    (in.interrupted && has_control(in.interrupted)))
		usage_error("collect: a control character in an argument");
	if (in.interrupted && (!*in.interrupted || strchr(in.interrupted, '/')))
		usage_error("--interrupted '%s': not a signal name",
			    in.interrupted);
	if (parse_size(mem) < (64LL << 20))
		usage_error("--mem '%s' is not a size like 512M or 1G", mem);
	in.max_dump = (unsigned long long)(parse_size(mem) + DUMP_SLACK);
	kernel_resolve(kernel, &k);
	in.runs = paths.runs;
	record_init(&rec);
	record_set(&rec.trigger.args, "");
	record_set(&rec.guest.kernel_flavor, k.flavor);
	record_set(&rec.guest.kernel, k.name);
	record_set(&rec.guest.kernel_package, k.package);
	record_set(&rec.guest.kernel_release, k.release);
	{
		char *v = kernel_vmlinux_path(&k);

		record_set(&rec.guest.vmlinux, v);
		free(v);
	}
	/* what this staging dir was run with is not known here: the
	 * defaults of bpk run
	 */
	record_set(&rec.guest.mem, mem);
	rec.guest.smp = 2;
	record_set(&rec.guest.crashkernel, k.default_crashkernel);
	record_set(&rec.guest.accel, "tcg");
	rec.guest.destructive_sysctl = rec.guest.panic_on_oops = true;
	record_set(&rec.guest.workload, "unknown (bpk collect)");
	record_set(&rec.guest.host_fs, "off");
	umask(077);
	rc = collect_run(&in, &rec, &dir, err, sizeof(err));
	record_free(&rec);
	if (rc == COLLECT_BAD_INPUT)
		usage_error("%s", err);
	if (rc == COLLECT_UNFILED) {
		p_err("%s; everything the guest sent is still in %s", err,
		      in.staging);
		return EXIT_UNFILED;
	}
	printf("%s\n", dir);
	if (err[0])
		p_err("%s", err);
	free(dir);
	return rc == COLLECT_SUCCESS ? 0 : 1;
}
