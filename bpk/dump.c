// SPDX-License-Identifier: GPL-2.0
/*
 * bpk dump [RUN-DIR]: a dump of a run's guest while the run goes on. The
 * run in progress takes it (livedump.h) and files it as a run of its own;
 * this verb finds the run, asks, shows the progress and the pause, and
 * writes the report of the dump.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpk.h"
#include "livedump.h"
#include "run.h"

/* the dump is bounded by the run's own wait for QEMU (10 min), the
 * rest is slack
 */
#define LIVE_DUMP_WAIT_MS (11 * 60 * 1000)

static void usage_dump(void)
{
	printf("usage: bpk dump [DIR] [--no-report]\n"
	       "\n"
	       "A dump of a guest whose run is in progress (bpk run, a campaign's\n"
	       "attempt), taken by QEMU while the guest is paused for the copy;\n"
	       "the run goes on. Filed as a run of its own, RUNS/<time>-<trigger>-live,\n"
	       "and reported as any run.\n"
	       "\n"
	       "  DIR          the run in progress: its staging dir (RUNS/.staging-*), or\n"
	       "               a runs dir holding exactly one run in progress (RUNS)\n"
	       "  --no-report  file the dump, write no report\n");
}

/* Does @dir hold a run in progress: a staging dir with the socket? */
static bool in_progress(const char *dir)
{
	char *sock = path_join(dir, LIVE_DUMP_SOCK);
	struct stat st;
	bool yes = !lstat(sock, &st) && S_ISSOCK(st.st_mode);

	free(sock);
	return yes;
}

/* The runs in progress in @runs and in its campaign dirs, into @found. */
static void find_in_progress(const char *runs, int depth, struct strv *found)
{
	DIR *d = opendir(runs);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = path_join(runs, e->d_name);
		if (!strncmp(e->d_name, ".staging-", 9) && in_progress(sub))
			strv_add(found, sub);
		else if (depth > 0 && e->d_name[0] != '.' && is_dir(sub))
			find_in_progress(sub, depth - 1, found);
		free(sub);
	}
	closedir(d);
}

static char *pick_run(const char *want)
{
	struct strv found = { 0 };
	const char *where = want ? want : paths.runs;
	char *dir;

	if (want && !is_dir(want))
		usage_error(
			"dump: %s: not a directory (a run in progress: RUNS/.staging-*)",
			want);
	if (want && in_progress(want))
		return abs_path(want);
	/* a run's dir, a campaign's: each attempt in a dir of its own */
	find_in_progress(where, 1, &found);
	if (found.n == 0)
		usage_error(
			"dump: no run in progress in %s (a live dump is taken of a guest whose run is still going)",
			where);
	if (found.n > 1) {
		char *list = strv_join(&found, ", ");

		usage_error("dump: %d runs in progress in %s, name one: %s",
			    found.n, where, list);
	}
	dir = xstrdup(found.v[0]);
	strv_free(&found);
	return dir;
}

/* The next line from the run, at most LIVE_DUMP_LINE_MAX, into @line.
 * 1, 0 at its end, -1 with errno.
 */
static int read_line(int fd, char *buf, size_t *len, char *line, int64_t end)
{
	for (;;) {
		char *nl = memchr(buf, '\n', *len);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int64_t left = end - now_ms();

		if (nl) {
			size_t k = (size_t)(nl - buf);

			memcpy(line, buf, k);
			line[k] = '\0';
			memmove(buf, nl + 1, *len - k - 1);
			*len -= k + 1;
			return 1;
		}
		if (*len >= LIVE_DUMP_LINE_MAX) {
			errno = EMSGSIZE;
			return -1;
		}
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(&p, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		n = read(fd, buf + *len, LIVE_DUMP_LINE_MAX - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -1;
		if (n == 0)
			return 0;
		if (n > 0)
			*len += (size_t)n;
	}
}

int do_dump(int argc, char **argv)
{
	const char *want = NULL;
	bool report = true, done = false;
	char err[1024], buf[LIVE_DUMP_LINE_MAX], line[LIVE_DUMP_LINE_MAX + 1];
	char *dir, *filed = NULL;
	long long paused = -1;
	unsigned long long bytes = 0;
	size_t len = 0;
	int64_t t0 = now_ms(), end = t0 + LIVE_DUMP_WAIT_MS;
	int fd, rc, rrc = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_dump();
			return 0;
		} else if (!strcmp(argv[i], "--no-report")) {
			report = false;
		} else if (argv[i][0] == '-') {
			usage_error(
				"dump: unknown option '%s' (bpk dump --help)",
				argv[i]);
		} else if (want) {
			usage_error("dump: one run at a time");
		} else {
			want = argv[i];
		}
	}
	dir = pick_run(want);
	fd = livedump_connect(dir, err, sizeof(err));
	if (fd < 0)
		die("%s", err);
	if (send(fd, LIVE_DUMP_REQUEST "\n", strlen(LIVE_DUMP_REQUEST) + 1,
		 MSG_NOSIGNAL) != (ssize_t)strlen(LIVE_DUMP_REQUEST) + 1)
		die("%s: %s", dir, strerror(errno));
	p_info("asking the run in %s for a dump of its live guest", dir);
	while (!done) {
		char *sp;

		rc = read_line(fd, buf, &len, line, end);
		if (rc < 0)
			die("%s: the run's answer: %s", dir, strerror(errno));
		if (rc == 0)
			die("%s: the run ended the exchange without an answer (its own output says why)",
			    dir);
		sp = strchr(line, ' ');
		if (!sp)
			die("%s: the run answered '%s', not a line bpk knows",
			    dir, line);
		*sp++ = '\0';
		if (!strcmp(line, "info")) {
			p_info("%s", sp);
		} else if (!strcmp(line, "error")) {
			die("the run in %s took no dump: %s", dir, sp);
		} else if (!strcmp(line, "ok")) {
			char *p = strrchr(sp, ' '), *q;

			/* DIR PAUSED_MS BYTES, the dir the last to allow
			 * spaces in it
			 */
			if (!p)
				die("%s: the run answered 'ok %s'", dir, sp);
			*p = '\0';
			bytes = strtoull(p + 1, NULL, 10);
			q = strrchr(sp, ' ');
			if (!q)
				die("%s: the run answered 'ok %s'", dir, sp);
			*q = '\0';
			paused = strtoll(q + 1, NULL, 10);
			filed = xstrdup(sp);
			done = true;
		} else {
			die("%s: the run answered '%s', not a line bpk knows",
			    dir, line);
		}
	}
	close(fd);
	{
		char el[32], pel[32];

		p_info("a dump of the live guest filed in %s: %llu MiB, the guest paused %s (%s in all); the run goes on",
		       filed, bytes >> 20, fmt_ms(paused, pel, sizeof(pel)),
		       fmt_ms(now_ms() - t0, el, sizeof(el)));
	}
	if (report)
		rrc = run_report_filed(filed, json_output ? DISPLAY_QUIET :
							    DISPLAY_PLAIN);
	if (json_output) {
		jw_start_object(json_wtr);
		jw_string_field(json_wtr, "run", filed);
		jw_string_field(json_wtr, "of", dir);
		jw_seconds_field(json_wtr, "paused_s", ms_to_s(paused));
		jw_uint_field(json_wtr, "vmcore_bytes", bytes);
		jw_string_field(json_wtr, "report",
				!report ? "not run" :
				rrc	? "failed" :
					  "written");
		jw_end_object(json_wtr);
	}
	free(filed);
	free(dir);
	return rrc ? EXIT_FAILED : EXIT_OK;
}
