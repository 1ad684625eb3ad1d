// SPDX-License-Identifier: GPL-2.0
/*
 * bpk campaign: a flaky bug, attempted up to N times, J guests at a time,
 * through GNU parallel. Each attempt is `bpk run --attempt N --campaign
 * DIR`, restored from an armed snapshot (or booted fresh). The attempts
 * tell the campaign, over a FIFO, when they start and the moment they fire
 * (the panic line, or the capture kernel's boot); at the first fire the
 * campaign tells parallel to start nothing more (SIGHUP) and stops every
 * other running attempt (SIGTERM: each files its run as interrupted). Who
 * won is decided from the attempts' own records and their filed runs.
 *
 * The campaign dir, RUNS/campaign-<UTC time>-<trigger>[-N]/, holds
 * attempts/N/ (each attempt's runs/, run.out, run.err, attempt.json),
 * attempts.tsv (a line per attempt), campaign.json (the summary), joblog
 * (parallel's), campaign.log and the FIFO events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "argsfile.h"
#include "bpk.h"
#include "hostfs.h"
#include "kernels.h"
#include "proc.h"
#include "record.h"
#include "run.h"
#include "prog.h"
#include "snapshot.h"

#define MAX_ATTEMPTS 100000
#define MAX_JOBS 64

struct attempt_seen {
	pid_t pid;
	bool started, fired, ended;
};

struct campaign {
	const char *verb; /* campaign, matrix or bisect: its messages and dir */
	void (*usage)(void);
	const char *trigger;
	const char *prog; /* --prog FILE, as given */
	char *prog_obj; /* its object: what every attempt runs */
	struct strv targs, command;
	char *workload, *dir, *snapshot, *fresh_why, *not_armed_why;
	const char *mem, *sshlogin;
	int attempts, jobs, timeout, repeat;
	bool fresh, armed;
	FILE *log;
	struct attempt_seen *seen;
	int winner; /* the first attempt that fired, 0 if none */
	int64_t t_start, t_first_fire;
	char signame[16];
	int signum;
	pid_t parallel;
	bool stopping;
	/* the kernels, resolved (a campaign's: the one of --kernel, ours by
	 * default); attempts are @per a kernel, numbered kernel by kernel
	 */
	struct strv kernels;
	struct strv reservations; /* each kernel's crashkernel=, measured */
	const char *kernels_arg;
	int per;
	int *group_winner; /* per kernel, the first of its attempts to fire */
	int groups_won;
};

/* What one kernel's attempts came to. */
struct group_out {
	int made, fired, ran_out, failed, stopped;
	int first;
	long long first_at;
	char *first_run, *last_run, *release, *last_reason;
};

static void usage_campaign(void)
{
	printf("usage: bpk campaign TRIGGER [k=v ...] --attempts N --jobs J [--fresh]\n"
	       "       bpk campaign --prog FILE [k=v ...] --attempts N --jobs J ...\n"
	       "                    [--workload FILE | -- CMD ARGS...] [--runs DIR] [--timeout S]\n"
	       "                    [--mem SIZE] [--repeat N] [--sshlogin LIST]\n"
	       "\n"
	       "A campaign for a flaky bug: up to N attempts, J guests at a time,\n"
	       "through GNU parallel; the first attempt whose trigger fires wins and\n"
	       "the others are stopped (their runs filed as interrupted).\n"
	       "\n"
	       "  --attempts N     at most N attempts (1-100000)\n"
	       "  --jobs J         J attempts at a time (per machine of --sshlogin)\n"
	       "  --prog FILE      a trigger program of your own, as for bpk run (compiled\n"
	       "                   once); its attempts boot fresh\n"
	       "  --fresh          boot every attempt (default: restore the armed\n"
	       "                   snapshot, made once and cached: bpk snapshot)\n"
	       "  --workload FILE  the reproducer, run in each guest\n"
	       "  -- CMD ARGS...   a command line, as for bpk run: it runs in the host's\n"
	       "                   user space over 9p, so every attempt boots fresh\n"
	       "  --runs DIR       the campaign dir is made under DIR (runs/)\n"
	       "  --timeout S      per attempt (120); --mem SIZE guest memory (1G)\n"
	       "  --repeat N       workload runs per attempt (1; 0: until the timeout)\n"
	       "  --sshlogin LIST  GNU parallel's own option, passed on: attempts run\n"
	       "                   on those machines too (\":\" is this one); each needs\n"
	       "                   a built clone and its bpk on the login's PATH,\n"
	       "                   checked before the first attempt\n"
	       "\n"
	       "The workload sees BPK_ATTEMPT (the attempt number) and, restored,\n"
	       "BPK_SEED (host random bytes: restored guests share the snapshot's random\n"
	       "state). Exit: 0 an attempt fired and its run is filed with a vmcore and\n"
	       "report (its directory printed); 1 no attempt fired (attempts.tsv says\n"
	       "why); 2 bad input, nothing booted; 128+N interrupted by signal N: every\n"
	       "guest is stopped and what happened is filed.\n");
}

static void camp_log(struct campaign *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void camp_log(struct campaign *c, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	if (c->log) {
		print_line(c->log, "%s: %s", c->verb, msg);
		fflush(c->log);
	}
	print_line(stderr, "%s: %s", c->verb, msg);
	free(msg);
}

static void parse(struct campaign *c, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			c->usage();
			exit(0);
		} else if (!strcmp(a, "--fresh")) {
			c->fresh = true;
		} else if (!strcmp(a, "--")) {
			if (i + 1 >= argc)
				usage_error(
					"-- needs a command to run as the workload");
			for (int j = i + 1; j < argc; j++)
				strv_add(&c->command, argv[j]);
			break;
		} else if (a[0] == '-') {
			static const char *const with_value[] = {
				"--attempts", "--jobs",	    "--workload",
				"--runs",     "--timeout",  "--mem",
				"--repeat",   "--sshlogin", "--prog",
				"--kernel",   "--kernels",  NULL
			};
			bool known = false;

			for (int k = 0; with_value[k]; k++)
				known |= !strcmp(a, with_value[k]);
			/* a campaign runs on one kernel, a matrix or
			 * a bisection on several
			 */
			if (!strcmp(c->verb, "campaign") ?
				    !strcmp(a, "--kernels") :
				    !strcmp(a, "--kernel"))
				known = false;
			if (!known)
				usage_error(
					"%s: unknown option '%s' (bpk %s --help)",
					c->verb, a, c->verb);
			if (i + 1 >= argc)
				usage_error("%s needs a value (bpk %s --help)",
					    a, c->verb);
			v = argv[++i];
			if (!strcmp(a, "--kernel") || !strcmp(a, "--kernels")) {
				if (c->kernels_arg)
					usage_error("%s given twice", a);
				if (!*v || has_control(v))
					usage_error(
						"%s needs kernels: ours, debian, debian:RELEASE or a path, comma-separated",
						a);
				c->kernels_arg = v;
			} else if (!strcmp(a, "--attempts")) {
				c->attempts =
					(int)parse_num(v, 1, MAX_ATTEMPTS);
				if (c->attempts < 1)
					usage_error(
						"--attempts '%s' is not a number from 1 to %d",
						v, MAX_ATTEMPTS);
			} else if (!strcmp(a, "--jobs")) {
				c->jobs = (int)parse_num(v, 1, MAX_JOBS);
				if (c->jobs < 1)
					usage_error(
						"--jobs '%s' is not a number from 1 to %d",
						v, MAX_JOBS);
			} else if (!strcmp(a, "--workload")) {
				c->workload = xstrdup(v);
			} else if (!strcmp(a, "--prog")) {
				if (c->prog)
					usage_error("--prog given twice");
				if (c->trigger)
					usage_error(
						"--prog %s and trigger %s: a trigger's name and --prog FILE exclude each other",
						v, c->trigger);
				c->prog = v;
			} else if (!strcmp(a, "--runs")) {
				if (!*v || has_control(v))
					usage_error(
						"--runs needs a directory (one line)");
				free(paths.runs);
				paths.runs = xstrdup(v);
			} else if (!strcmp(a, "--timeout")) {
				c->timeout = (int)parse_num(v, 1, 1 << 30);
				if (c->timeout < 1)
					usage_error(
						"--timeout '%s' is not a positive number of seconds",
						v);
			} else if (!strcmp(a, "--mem")) {
				if (parse_size(v) < 0)
					usage_error(
						"--mem '%s' is not a size like 512M or 1G",
						v);
				c->mem = v;
			} else if (!strcmp(a, "--repeat")) {
				c->repeat = (int)parse_num(v, 0, 1 << 30);
				if (c->repeat < 0)
					usage_error(
						"--repeat '%s' is not a number",
						v);
			} else {
				if (has_control(v))
					usage_error(
						"--sshlogin: a control character");
				c->sshlogin = v;
			}
		} else if (strchr(a, '=')) {
			if (!c->trigger && !c->prog)
				usage_error(
					"'%s': the trigger's name comes first (bpk %s --help)",
					a, c->verb);
			strv_add(&c->targs, a);
		} else {
			if (c->trigger || c->prog)
				usage_error(
					"'%s': one trigger only (or --prog FILE), then its k=v arguments (bpk %s --help)",
					a, c->verb);
			c->trigger = a;
		}
	}
	if (!c->trigger && !c->prog)
		usage_error(
			"a trigger (or --prog FILE) is required (bpk %s --help)",
			c->verb);
	if (strcmp(c->verb, "campaign")) {
		/* a matrix tries each kernel once, one guest at a time,
		 * unless told otherwise
		 */
		if (!c->kernels_arg)
			usage_error(
				"--kernels K1,K2,... is required (bpk %s --help)",
				c->verb);
		if (!c->attempts)
			c->attempts = 1;
		if (!c->jobs)
			c->jobs = 1;
	}
	if (!c->attempts)
		usage_error("--attempts is required: a number from 1 to %d",
			    MAX_ATTEMPTS);
	if (!c->jobs)
		usage_error("--jobs is required: a number from 1 to %d",
			    MAX_JOBS);
	if (c->workload && c->command.n)
		usage_error("--workload and -- CMD: give one of them");
}

/*
 * The kernels, each resolved (bad input before anything is built or
 * booted), then brought up to date: the attempts run with --no-build. A
 * campaign on our kernel needs it built, as before; the other kernels are
 * built (or fetched) here.
 */
static void resolve_kernels(struct campaign *c, struct run_opts *o)
{
	char *list = xstrdup(c->kernels_arg ? c->kernels_arg : "ours");
	char *save = NULL;
	struct strv words = { 0 };
	struct kernel_info *ks;
	int n;

	for (char *w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save))
		strv_add(&words, w);
	free(list);
	n = words.n;
	if (!n)
		usage_error("--kernels '%s' names no kernel", c->kernels_arg);
	if (!strcmp(c->verb, "campaign") && n > 1)
		usage_error(
			"--kernel '%s': a campaign runs on one kernel (bpk matrix tries several)",
			c->kernels_arg);
	if (!strcmp(c->verb, "bisect") && n < 2)
		usage_error(
			"--kernels: a bisection needs at least two kernels, the known good one first and the known bad one last");
	ks = xcalloc((size_t)n, sizeof(*ks));
	for (int i = 0; i < n; i++) {
		kernel_resolve(words.v[i], &ks[i]);
		for (int j = 0; j < c->kernels.n; j++)
			if (!strcmp(c->kernels.v[j], ks[i].spec))
				usage_error("--kernels: %s given twice (as %s)",
					    ks[i].spec, words.v[i]);
		strv_add(&c->kernels, ks[i].spec);
		if (!strcmp(ks[i].flavor, "path"))
			kernel_refuse_unfit(&ks[i]);
	}
	strv_free(&words);
	if ((long long)c->attempts * n > MAX_ATTEMPTS)
		usage_error("%d kernels x %d attempts: more than %d attempts",
			    n, c->attempts, MAX_ATTEMPTS);
	for (int i = 0; i < n; i++) {
		char *missing;

		if (strcmp(ks[i].flavor, "ours") || strcmp(c->verb, "campaign"))
			run_build(o, &ks[i]);
		kernel_refresh(&ks[i]);
		missing = kernel_missing(&ks[i]);
		if (*missing)
			usage_error("the appliance is not built for %s: %s",
				    ks[i].spec, missing);
		free(missing);
		kernel_refuse_unfit(&ks[i]);
		/* here, once, not in every attempt (nor on every machine:
		 * the same kernel package needs the same reservation)
		 */
		kernel_measure_unmeasured(&ks[i]);
		strv_add(&c->reservations, ks[i].default_crashkernel);
	}
	c->per = c->attempts;
	c->attempts = c->per * n;
	free(ks);
}

static void validate(struct campaign *c)
{
	struct run_opts o;
	struct kernel_info k;
	char *args = strv_join(&c->targs, " "), *name;

	if (c->prog) {
		/* compiled and read once, here: every attempt runs the object */
		c->prog_obj = prog_prepare(c->prog, &name, NULL);
		c->trigger = name;
	}
	trigger_check(c->trigger, args);
	free(args);
	if (!c->workload && !c->command.n) {
		/* as bpk run: the trigger's example workload */
		c->workload = example_workload(c->trigger);
		if (!c->workload)
			usage_error(
				"%s has no example workload: give --workload FILE",
				c->trigger);
	}
	if (c->workload) {
		char *abs;

		if (has_control(c->workload))
			usage_error(
				"--workload: a control character in the path");
		if (c->workload[0] != '/' && access(c->workload, F_OK)) {
			/* README examples name files in the clone: they run
			 * from anywhere
			 */
			char *in_clone = path_join(paths.top, c->workload);

			if (!access(in_clone, F_OK)) {
				free(c->workload);
				c->workload = in_clone;
			} else {
				free(in_clone);
			}
		}
		if (!file_exists(c->workload) || access(c->workload, R_OK))
			usage_error("%s: workload not found or not readable",
				    c->workload);
		abs = abs_path(c->workload);
		free(c->workload);
		c->workload = abs;
	}
	if (!is_executable("/usr/bin/parallel") &&
	    proc_wait_quiet((const char *[]){ "parallel", "--version", NULL }))
		usage_error(
			"GNU parallel not found: install Debian package parallel (make deps)");
	if (c->sshlogin && strcmp(c->sshlogin, ":") &&
	    proc_wait_quiet((const char *[]){ "rsync", "--version", NULL }))
		usage_error(
			"--sshlogin %s: GNU parallel brings files back with rsync: install Debian package rsync",
			c->sshlogin);
	run_opts_init(&o);
	resolve_kernels(c, &o);
	(void)k;
}

static char *make_dir(struct campaign *c)
{
	char stamp[32], *base, *dir;
	time_t t = time(NULL);
	struct tm tm;
	int i = 1;

	if (mkdir_p(paths.runs, 0700))
		usage_error("cannot create the runs dir %s: %s", paths.runs,
			    strerror(errno));
	{
		char *abs = abs_path(paths.runs);

		free(paths.runs);
		paths.runs = abs;
	}
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	base = xasprintf("%s/%s-%s-%s", paths.runs,
			 !strcmp(c->verb, "bisect") ? "step" : c->verb, stamp,
			 c->trigger);
	dir = xstrdup(base);
	while (mkdir(dir, 0700)) {
		if (errno != EEXIST || ++i >= 100)
			die("cannot make a %s dir next to %s: %s", c->verb,
			    base, strerror(errno));
		free(dir);
		dir = xasprintf("%s-%d", base, i);
	}
	free(base);
	return dir;
}

static void choose_mode(struct campaign *c)
{
	struct snapshot_req req = { .mem = c->mem, .smp = 2 };
	char err[2048], *why;

	req.accel = config_accel();
	if (c->fresh) {
		c->fresh_why = xstrdup("asked for (--fresh)");
		return;
	}
	if (c->kernels.n != 1 || strcmp(c->kernels.v[0], "ours")) {
		c->fresh = true;
		c->fresh_why = xstrdup(
			"the attempts boot kernels other than ours: snapshots are made of our kernel");
		return;
	}
	if (c->prog) {
		c->fresh = true;
		c->fresh_why = xstrdup(
			"a program of your own (--prog) is armed at boot: snapshots are made with built-in triggers");
		return;
	}
	if (c->command.n) {
		c->fresh = true;
		c->fresh_why = xstrdup(
			"the workload is a command line: it runs in the host's user space over 9p, and QEMU cannot migrate a guest with a 9p share");
		return;
	}
	why = hostfs_needed(c->workload);
	if (why) {
		c->fresh = true;
		c->fresh_why = xasprintf(
			"the workload is %s: it runs from the host's /usr over 9p, and QEMU cannot migrate a guest with a 9p share",
			why);
		free(why);
		return;
	}
	/* the snapshot armed with this trigger; else one that arms after
	 * each restore (the trigger matched in the idle guest, say); else
	 * fresh boots
	 */
	req.trigger = c->trigger;
	req.args = strv_join(&c->targs, " ");
	camp_log(c, "the armed snapshot (%s, %s %s) ...", c->mem, c->trigger,
		 req.args);
	if (!snapshot_get(&req, &c->snapshot, err, sizeof(err))) {
		c->armed = true;
		return;
	}
	free(c->snapshot);
	c->not_armed_why = xstrdup(err);
	camp_log(c,
		 "no armed snapshot (%s): one that arms after each restore ...",
		 err);
	req.trigger = NULL;
	req.args = NULL;
	if (!snapshot_get(&req, &c->snapshot, err, sizeof(err)))
		return;
	free(c->snapshot);
	c->snapshot = NULL;
	c->fresh = true;
	c->fresh_why = xasprintf("the snapshot could not be made: %s", err);
}

static void stop_attempt(struct campaign *c, int n)
{
	struct attempt_seen *a = &c->seen[n];

	if (a->started && !a->ended && !a->fired && a->pid > 0)
		kill(a->pid, SIGTERM);
}

/* No attempt starts any more; every running one that has not fired is
 * stopped (one that fired too is being dumped: it goes on, filed whole).
 */
static void stop_all(struct campaign *c)
{
	if (c->stopping)
		return;
	c->stopping = true;
	if (c->parallel > 0)
		kill(c->parallel, SIGHUP);
	for (int n = 1; n <= c->attempts; n++)
		stop_attempt(c, n);
}

static void on_event(struct campaign *c, char *line)
{
	char what[16];
	int n, pid;

	if (sscanf(line, "%15s %d %d", what, &n, &pid) != 3 || n < 1 ||
	    n > c->attempts)
		return;
	if (!strcmp(what, "start")) {
		c->seen[n].started = true;
		c->seen[n].pid = pid;
		/* its kernel has fired already: it need not */
		if (c->stopping || c->group_winner[(n - 1) / c->per])
			stop_attempt(c, n);
	} else if (!strcmp(what, "fired")) {
		int g = (n - 1) / c->per;

		c->seen[n].fired = true;
		if (!c->winner) {
			c->winner = n;
			c->t_first_fire = now_ms();
		}
		if (!c->group_winner[g]) {
			c->group_winner[g] = n;
			c->groups_won++;
			if (c->groups_won == c->kernels.n) {
				camp_log(
					c,
					"attempt %d fired%s%s: stopping the others",
					n, c->kernels.n > 1 ? " on " : "",
					c->kernels.n > 1 ? c->kernels.v[g] :
							   "");
				stop_all(c);
			} else {
				camp_log(
					c,
					"attempt %d fired on %s: stopping that kernel's other attempts",
					n, c->kernels.v[g]);
				for (int m = g * c->per + 1;
				     m <= (g + 1) * c->per; m++)
					if (m != n)
						stop_attempt(c, m);
			}
		}
	} else if (!strcmp(what, "end")) {
		c->seen[n].ended = true;
	}
}

/* What the FIFO holds now, a line an event (each line is one write of
 * less than PIPE_BUF: never torn). False when there was nothing.
 */
static bool read_events(struct campaign *c, int fd, char *buf, size_t size,
			size_t *have)
{
	ssize_t r = read(fd, buf + *have, size - *have - 1);
	char *nl;

	if (r <= 0)
		return false;
	*have += (size_t)r;
	buf[*have] = '\0';
	while ((nl = strchr(buf, '\n'))) {
		*nl = '\0';
		on_event(c, buf);
		*have -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, *have + 1);
	}
	/* a line longer than any event: not ours, dropped */
	if (*have == size - 1)
		*have = 0;
	return true;
}

/* parallel runs the attempts; this loop hears them until it is done. */
static int supervise(struct campaign *c, const struct strv *argv,
		     const char *numbers, const char *cwd)
{
	char *fifo = path_join(c->dir, "events"), buf[4096];
	size_t have = 0;
	int efd, sfd, pfd, ep, in, st = 0;
	sigset_t mask;
	struct spawn s = { 0 };
	bool done = false;

	if (mkfifo(fifo, 0600))
		die("%s: %s", fifo, strerror(errno));
	/* read-write: the FIFO never reads as ended between attempts */
	efd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	in = open(numbers, O_RDONLY | O_CLOEXEC);
	if (efd < 0 || in < 0)
		die("%s: %s", efd < 0 ? fifo : numbers, strerror(errno));
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	s.argv = (const char *const *)argv->v;
	s.in = in;
	s.out = 2;
	s.err = 2;
	/* its own process group: a Ctrl-C reaches the campaign alone, which
	 * stops every attempt in order (parallel's own handling of a signal
	 * kills its jobs too soon for their runs to be filed)
	 */
	s.new_group = true;
	s.die_with_parent = true;
	s.cwd = cwd;
	c->parallel = proc_spawn(&s);
	close(in);
	if (c->parallel < 0)
		die("cannot start parallel: %s", strerror(errno));
	pfd = pidfd_open(c->parallel, 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || pfd < 0 || ep < 0)
		die("signalfd/pidfd/epoll: %s", strerror(errno));
	{
		struct epoll_event ev = { .events = EPOLLIN };

		ev.data.u32 = 0;
		epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
		ev.data.u32 = 1;
		epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
		ev.data.u32 = 2;
		epoll_ctl(ep, EPOLL_CTL_ADD, pfd, &ev);
	}
	while (!done) {
		struct epoll_event evs[4];
		int n = epoll_wait(ep, evs, 4, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("epoll_wait: %s", strerror(errno));
		for (int i = 0; i < n; i++) {
			if (evs[i].data.u32 == 0) {
				read_events(c, efd, buf, sizeof(buf), &have);
			} else if (evs[i].data.u32 == 1) {
				struct signalfd_siginfo si;

				while (read(sfd, &si, sizeof(si)) ==
				       sizeof(si)) {
					if (c->signum)
						continue;
					c->signum = (int)si.ssi_signo;
					snprintf(c->signame, sizeof(c->signame),
						 "SIG%s",
						 sigabbrev_np(c->signum));
					camp_log(
						c,
						"interrupted by %s: stopping every attempt",
						c->signame);
					stop_all(c);
				}
			} else {
				siginfo_t si = { 0 };

				if (!waitid(P_PIDFD, (id_t)pfd, &si,
					    WEXITED | WNOHANG) &&
				    si.si_pid) {
					st = si.si_code == CLD_EXITED ?
						     si.si_status :
						     128 + si.si_status;
					done = true;
				}
			}
		}
	}
	/* the last events of the last attempts */
	while (read_events(c, efd, buf, sizeof(buf), &have))
		;
	close(ep);
	close(pfd);
	close(sfd);
	close(efd);
	unlink(fifo);
	free(fifo);
	return st;
}

static const char *jget(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

/* The last "bpk: error: " line of an attempt's run.err, or NULL. */
static char *attempt_error(const char *adir)
{
	char *path = path_join(adir, "run.err");
	char *text = read_file(path, 1 << 20, NULL), *found = NULL;

	free(path);
	for (char *l = text ? strtok(text, "\n") : NULL; l;
	     l = strtok(NULL, "\n"))
		if (!strncmp(l, "bpk: error: ", 12)) {
			free(found);
			found = xstrdup(l + 12);
			found[strcspn(found, "\t")] = '\0';
		}
	free(text);
	return found;
}

struct outcome_count {
	int made, fired, ran_out, failed, stopped;
	double to_armed_sum;
	int to_armed_n;
	int first;
	long long first_at;
	char *first_run;
};

/* An attempt's run as it is here: one made on another machine names its
 * path there; parallel brought it back into the attempt's runs/.
 */
static char *local_run(const char *adir, const char *run)
{
	const char *base = strrchr(run, '/');
	char *here;

	if (!*run || !base)
		return xstrdup(run);
	/* under this attempt's dir here, wherever the record says it was
	 * made (another login on this very machine names a path that exists
	 * here too)
	 */
	here = xasprintf("%s/runs/%s", adir, base + 1);
	if (is_dir(here))
		return here;
	free(here);
	return xstrdup(run);
}

/* attempts.tsv from every attempt's record; an attempt that began (its
 * dir is there) and wrote none was killed before it could. Also what each
 * kernel's attempts came to, into @gs (one a kernel).
 */
static void tabulate(struct campaign *c, struct outcome_count *k,
		     struct group_out *gs)
{
	char *tsv = path_join(c->dir, "attempts.tsv");
	FILE *f = fopen(tsv, "w");

	if (!f)
		die("%s: %s", tsv, strerror(errno));
	fprintf(f,
		"attempt\thost\tmode\tstart\tend\tseconds\tto_armed_s\toutcome\tcause\trun\treason\tkernel\n");
	for (int n = 1; n <= c->attempts; n++) {
		char *adir = xasprintf("%s/attempts/%d", c->dir, n);
		char *rec = path_join(adir, "attempt.json"), armed[32], *run;
		struct group_out *g = &gs[(n - 1) / c->per];
		const char *kernel = c->kernels.v[(n - 1) / c->per];
		json_t *j;
		const char *out;

		if (!is_dir(adir)) {
			free(adir);
			free(rec);
			continue;
		}
		k->made++;
		g->made++;
		j = json_load_file(rec, 0, NULL);
		if (!j) {
			/* its own last error, if it said one (bad input, a
			 * build missing on a --sshlogin machine); else it was
			 * killed before it could write its record
			 */
			char *err = attempt_error(adir);

			fprintf(f, "%d\t\t%s\t\t\t\t\t%s\t\t\t%s\t%s\n", n,
				c->fresh ? "fresh" : "snapshot",
				err ? "failed" : "stopped",
				err ? err : "ended without a record (killed)",
				kernel);
			if (err) {
				k->failed++;
				g->failed++;
			} else {
				k->stopped++;
				g->stopped++;
			}
			free(g->last_reason);
			g->last_reason =
				xstrdup(err ? err : "ended without a record");
			free(err);
			free(adir);
			free(rec);
			continue;
		}
		out = jget(j, "outcome");
		if (!strcmp(out, "fired")) {
			k->fired++;
			g->fired++;
		} else if (!strcmp(out, "ran-out")) {
			k->ran_out++;
			g->ran_out++;
		} else if (!strcmp(out, "failed")) {
			k->failed++;
			g->failed++;
		} else {
			k->stopped++;
			g->stopped++;
		}
		if (*jget(j, "run")) {
			free(g->last_run);
			g->last_run = local_run(adir, jget(j, "run"));
		}
		if (*jget(j, "release") && !g->release)
			g->release = xstrdup(jget(j, "release"));
		free(g->last_reason);
		g->last_reason = xstrdup(jget(j, "reason"));
		if (json_is_number(json_object_get(j, "to_armed_s"))) {
			k->to_armed_sum += json_number_value(
				json_object_get(j, "to_armed_s"));
			k->to_armed_n++;
		}
		if (!strcmp(out, "fired")) {
			json_t *at = json_object_get(j, "fired_at_ms");
			long long ms = json_is_integer(at) ?
					       json_integer_value(at) :
					       LLONG_MAX;
			int gw = c->group_winner[(n - 1) / c->per];

			/* the attempt the campaign heard fire first, if its
			 * run holds the dump; else the earliest that does
			 */
			if (k->first != c->winner &&
			    (n == c->winner || !k->first || ms < k->first_at)) {
				k->first = n;
				k->first_at = ms;
				free(k->first_run);
				k->first_run = local_run(adir, jget(j, "run"));
			}
			/* the same within the kernel */
			if (g->first != gw &&
			    (n == gw || !g->first || ms < g->first_at)) {
				g->first = n;
				g->first_at = ms;
				free(g->first_run);
				g->first_run = local_run(adir, jget(j, "run"));
			}
		}
		if (json_is_number(json_object_get(j, "to_armed_s")))
			snprintf(armed, sizeof(armed), "%.3f",
				 json_number_value(
					 json_object_get(j, "to_armed_s")));
		else
			armed[0] = '\0';
		run = local_run(adir, jget(j, "run"));
		fprintf(f, "%d\t%s\t%s\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\t%s\t%s\n",
			n, jget(j, "host"), jget(j, "mode"), jget(j, "start"),
			jget(j, "end"),
			json_number_value(json_object_get(j, "seconds")), armed,
			out, jget(j, "cause"), run, jget(j, "reason"), kernel);
		free(run);
		json_decref(j);
		free(adir);
		free(rec);
	}
	if (fclose(f))
		die("%s: %s", tsv, strerror(errno));
	free(tsv);
}

/* A kernel's answer: fired, not fired (every attempt ran out, none
 * failed), or unknown (an attempt failed or was stopped before it could
 * tell).
 */
static const char *group_answer(const struct group_out *g)
{
	if (g->fired)
		return "fired";
	if (g->made && g->ran_out == g->made)
		return "not-fired";
	return "unknown";
}

static void group_json(json_writer_t *w, const char *kernel,
		       const struct group_out *g)
{
	jw_start_object(w);
	jw_string_field(w, "kernel", kernel);
	jw_string_field(w, "release", g->release);
	jw_string_field(w, "answer", group_answer(g));
	jw_int_field(w, "attempts", g->made);
	jw_int_field(w, "fired", g->fired);
	jw_int_field(w, "ran_out", g->ran_out);
	jw_int_field(w, "failed", g->failed);
	jw_int_field(w, "stopped", g->stopped);
	if (g->first)
		jw_int_field(w, "first_fire_attempt", g->first);
	else
		jw_null_field(w, "first_fire_attempt");
	jw_string_field(w, "run", g->first ? g->first_run : g->last_run);
	jw_string_field(w, "reason", g->last_reason);
	jw_end_object(w);
}

static void write_summary(struct campaign *c, const struct outcome_count *k,
			  const struct group_out *gs, int64_t wall_ms, int prc)
{
	char *path = path_join(c->dir, "campaign.json"), *args;
	FILE *f = fopen(path, "w");
	json_writer_t *w;
	int ended = k->fired + k->ran_out + k->failed;

	if (!f)
		die("%s: %s", path, strerror(errno));
	args = strv_join(&c->targs, " ");
	w = jw_new(f);
	jw_pretty(w, true);
	jw_start_object(w);
	jw_string_field(w, "trigger", c->trigger);
	jw_string_field(w, "args", args);
	jw_string_field(w, "workload", c->workload ? c->workload : "-- CMD");
	jw_string_field(w, "mode", c->fresh ? "fresh" : "snapshot");
	jw_string_field(w, "fresh_why", c->fresh_why);
	jw_string_field(w, "snapshot", c->snapshot);
	jw_bool_field(w, "restored", !c->fresh);
	jw_bool_field(w, "snapshot_armed", !c->fresh && c->armed);
	jw_string_field(w, "snapshot_not_armed_why", c->not_armed_why);
	jw_int_field(w, "attempts_planned", c->attempts);
	jw_int_field(w, "jobs", c->jobs);
	jw_int_field(w, "attempts_made", k->made);
	jw_int_field(w, "fired", k->fired);
	jw_int_field(w, "ran_out", k->ran_out);
	jw_int_field(w, "failed", k->failed);
	jw_int_field(w, "stopped", k->stopped);
	jw_seconds_field(w, "wall_s", ms_to_s(wall_ms));
	/* attempts that ran to their end, per minute of the campaign */
	jw_float_field(w, "attempts_per_minute",
		       wall_ms ? (double)ended * 60000.0 / (double)wall_ms : 0);
	if (k->to_armed_n)
		jw_seconds_field(w, "mean_to_armed_s",
				 k->to_armed_sum / k->to_armed_n);
	else
		jw_null_field(w, "mean_to_armed_s");
	if (k->first) {
		jw_int_field(w, "first_fire_attempt", k->first);
		jw_string_field(w, "first_fire_run", k->first_run);
		jw_seconds_field(w, "time_to_first_fire_s",
				 c->t_first_fire ?
					 ms_to_s(c->t_first_fire - c->t_start) :
					 ms_to_s(wall_ms));
	} else {
		jw_null_field(w, "first_fire_attempt");
		jw_null_field(w, "first_fire_run");
		jw_null_field(w, "time_to_first_fire_s");
	}
	jw_int_field(w, "parallel_exit", prc);
	jw_string_field(w, "interrupted", c->signum ? c->signame : NULL);
	jw_int_field(w, "attempts_per_kernel", c->per);
	jw_name(w, "kernels");
	jw_start_array(w);
	for (int i = 0; i < c->kernels.n; i++)
		group_json(w, c->kernels.v[i], &gs[i]);
	jw_end_array(w);
	jw_end_object(w);
	jw_destroy(&w);
	if (fclose(f))
		die("%s: %s", path, strerror(errno));
	free(path);
	free(args);
}

/* The user's words for every attempt (argsfile.h), in the campaign dir. */
#define ATTEMPT_ARGS "attempt-args"

/*
 * How an attempt finds bpk: this machine's is this bpk (BPK_SELF, in
 * parallel's environment, which reaches the local jobs only); another
 * machine's is the one on its login's PATH.
 */
#define FIND_BPK                                                                       \
	"b=${BPK_SELF:-$(command -v bpk)}; "                                           \
	"if [ -z \"$b\" ] || [ ! -x \"$b\" ]; then "                                   \
	"echo \"bpk: error: $(hostname) ($(id -un)): no bpk on PATH ($PATH): install " \
	"it there (make install) or put a built clone's build/bpk on PATH\" >&2; "     \
	"exit 2; fi; exec \"$b\" \"$@\""

/*
 * What parallel sends to the other machines must have a name relative to
 * the runs dir: the workload and the program are copied into the campaign
 * dir, and sent from there.
 */
static void remote_files(struct campaign *c, const char *at)
{
	if (c->workload) {
		char *copy = path_join(c->dir, "workload");

		if (copy_file_small(c->workload, copy) || chmod(copy, 0700))
			die("%s: %s", copy, strerror(errno));
		free(c->workload);
		c->workload = xasprintf("%s/workload", at);
		free(copy);
	}
	if (c->prog_obj) {
		char *copy = path_join(c->dir, "prog.bpf.o");

		if (copy_file_small(c->prog_obj, copy))
			die("%s: %s", copy, strerror(errno));
		free(c->prog_obj);
		c->prog_obj = xasprintf("%s/prog.bpf.o", at);
		free(copy);
	}
}

/* `bpk ARGS` on every machine of @c's --sshlogin, each output line tagged
 * with its machine; dies naming @what when one of them fails. @args (a
 * kernel the user named) go as a file, as an attempt's words do.
 */
static char *on_every_machine(const struct campaign *c, const char *what,
			      const char *const *args)
{
	static int calls;
	struct strv a = { 0 }, words = { 0 };
	char *out = NULL, *err = NULL, *name, *path, e[1024];
	const char *at = strrchr(c->dir, '/') + 1;
	int rc;

	name = xasprintf("machine-args-%d", ++calls);
	path = path_join(c->dir, name);
	for (int i = 0; args[i]; i++)
		strv_add(&words, args[i]);
	if (args_file_write(path, &words, e, sizeof(e)))
		die("%s", e);
	strv_free(&words);
	strv_add(&a, "parallel");
	strv_add(&a, "--nonall");
	strv_add(&a, "--tag");
	strv_add(&a, "--sshlogin");
	strv_add(&a, c->sshlogin);
	/* there: relative to the login's dir (rsync's /./) */
	strv_add(&a, "--basefile");
	strv_addf(&a, "%s/./%s/%s", paths.runs, at, name);
	strv_add(&a, "-q");
	strv_add(&a, "sh");
	strv_add(&a, "-c");
	strv_add(&a, FIND_BPK);
	strv_add(&a, "bpk");
	strv_add(&a, ARGS_FILE_OPT);
	strv_addf(&a, "%s/%s", at, name);
	/* this machine's ":" runs it where the words file is, as the
	 * attempts do
	 */
	rc = proc_capture_in((const char *const *)strv_argv(&a), paths.runs,
			     &out, &err);
	strv_free(&a);
	free(name);
	free(path);
	if (rc) {
		const char *why = last_line(err && *err ? err : out);

		die("--sshlogin %s: a machine cannot run the attempts%s%s (exit %d): %s",
		    c->sshlogin, *what ? " on " : "", what, rc,
		    *why ? why : "no output");
	}
	free(err);
	return out ? out : xstrdup("");
}

/*
 * Before the first attempt: every machine of --sshlogin answers with its
 * bpk's version, and has the appliance built for every kernel of the
 * campaign (bpk check --built: the attempts run with --no-build; what a
 * machine needs is in docs/campaigns.md). One that cannot ends the campaign
 * here, named with what it lacks.
 */
static void check_hosts(struct campaign *c, const char *self)
{
	const char *version[] = { "--version", NULL };
	char *out;

	if (setenv("BPK_SELF", self, 1))
		die("setenv: %s", strerror(errno));
	out = on_every_machine(c, "", version);
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
		camp_log(c, "machine %s", l);
	free(out);
	for (int i = 0; i < c->kernels.n; i++) {
		const char *check[] = { "check", "--built", "--kernel",
					c->kernels.v[i], NULL };

		free(on_every_machine(c, c->kernels.v[i], check));
		camp_log(c, "every machine has the appliance built for %s",
			 c->kernels.v[i]);
	}
}

/*
 * The user's words for every attempt (argsfile.h), in the campaign dir: the
 * trigger or program, its k=v words, the workload or the command after
 * --, and the options every attempt shares.
 */
static void write_attempt_args(const struct campaign *c)
{
	struct strv w = { 0 };
	char *path = path_join(c->dir, ATTEMPT_ARGS), err[1024];

	if (c->prog_obj) {
		strv_add(&w, "--prog");
		strv_add(&w, c->prog_obj);
	} else {
		strv_add(&w, c->trigger);
	}
	for (int i = 0; i < c->targs.n; i++)
		strv_add(&w, c->targs.v[i]);
	strv_add(&w, "--timeout");
	strv_addf(&w, "%d", c->timeout);
	strv_add(&w, "--mem");
	strv_add(&w, c->mem);
	strv_add(&w, "--repeat");
	strv_addf(&w, "%d", c->repeat);
	strv_add(&w, "--no-build");
	strv_add(&w, "--quiet");
	if (!c->fresh) {
		/* on this machine its snapshot; on the others of --sshlogin
		 * the same kind, found or made there
		 */
		strv_add(&w, "--restore");
		strv_add(&w,
			 c->sshlogin && strcmp(c->sshlogin, ":") ?
				 (c->armed ? "auto:armed" : "auto:unarmed") :
				 c->snapshot);
	}
	if (c->workload) {
		strv_add(&w, "--workload");
		strv_add(&w, c->workload);
	} else {
		strv_add(&w, "--");
		for (int i = 0; i < c->command.n; i++)
			strv_add(&w, c->command.v[i]);
	}
	if (args_file_write(path, &w, err, sizeof(err)))
		die("%s", err);
	strv_free(&w);
	free(path);
}

/*
 * The engine: the attempts through parallel, every kernel's @per of them,
 * until each kernel has fired or run out; tabulated and summed up in a dir
 * of their own under paths.runs. parallel's exit status.
 */
static int engine(struct campaign *c, struct outcome_count *k,
		  struct group_out *gs)
{
	struct strv pa = { 0 };
	char self[4096], *numbers, *logp, *joblog, *adir, *at, el[32];
	bool remote;
	ssize_t sl;
	int prc;
	int64_t wall;
	FILE *nf;

	c->dir = make_dir(c);
	logp = path_join(c->dir, "campaign.log");
	c->log = fopen(logp, "a");
	free(logp);
	adir = path_join(c->dir, "attempts");
	if (mkdir(adir, 0700))
		die("%s: %s", adir, strerror(errno));
	free(adir);
	c->seen = xcalloc((size_t)c->attempts + 1, sizeof(*c->seen));
	c->group_winner = xcalloc((size_t)c->kernels.n, sizeof(int));
	choose_mode(c);
	if (c->fresh)
		camp_log(c, "fresh boots, no snapshot: %s", c->fresh_why);
	else
		camp_log(c, "snapshot: %s (armed: %s)", c->snapshot,
			 c->armed ? "yes" : "no");

	/* a line an attempt: its number and its kernel */
	numbers = path_join(c->dir, "attempt-numbers");
	nf = fopen(numbers, "w");
	if (!nf)
		die("%s: %s", numbers, strerror(errno));
	for (int n = 1; n <= c->attempts; n++)
		fprintf(nf, "%d\t%s\t%s\n", n, c->kernels.v[(n - 1) / c->per],
			c->reservations.v[(n - 1) / c->per]);
	if (fclose(nf))
		die("%s: %s", numbers, strerror(errno));

	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0)
		die("/proc/self/exe: %s", strerror(errno));
	self[sl] = '\0';
	joblog = path_join(c->dir, "joblog");
	/* other machines: the attempts name the campaign dir relative to
	 * the runs dir, where parallel starts (here) and to the login dir
	 * (there), and parallel brings each attempt's dir back into it
	 */
	remote = c->sshlogin && strcmp(c->sshlogin, ":");
	at = xstrdup(strrchr(c->dir, '/') + 1);
	if (remote) {
		remote_files(c, at);
		check_hosts(c, self);
	}
	strv_add(&pa, "parallel");
	strv_add(&pa, "--jobs");
	strv_addf(&pa, "%d", c->jobs);
	strv_add(&pa, "--colsep");
	strv_add(&pa, "\t");
	/* one kernel: once an attempt has succeeded, start no more and let
	 * the running ones end (the campaign has stopped those that had not
	 * fired); several: every kernel has its say
	 */
	if (c->kernels.n == 1) {
		strv_add(&pa, "--halt");
		strv_add(&pa, "soon,success=1");
	}
	strv_add(&pa, "--joblog");
	strv_add(&pa, joblog);
	if (c->sshlogin) {
		strv_add(&pa, "--sshlogin");
		strv_add(&pa, c->sshlogin);
		if (c->workload) {
			strv_add(&pa, "--basefile");
			strv_add(&pa, c->workload);
		}
		if (c->prog_obj) {
			strv_add(&pa, "--basefile");
			strv_add(&pa, c->prog_obj);
		}
		strv_add(&pa, "--return");
		strv_addf(&pa, "%s/attempts/{1}", at);
	}
	if (c->sshlogin) {
		/* the user's words travel as a file beside the workload */
		strv_add(&pa, "--basefile");
		strv_addf(&pa, "%s/" ATTEMPT_ARGS, at);
	}
	/* Only words bpk wrote, and parallel's own {1} {2} {3} (the attempt
	 * and its kernel, read from attempt-numbers): here this bpk
	 * (BPK_SELF), there the one on the login's PATH; the campaign dir
	 * named relative to the runs dir, where parallel starts
	 */
	strv_add(&pa, "-q");
	strv_add(&pa, "sh");
	strv_add(&pa, "-c");
	strv_add(&pa, FIND_BPK);
	strv_add(&pa, "bpk");
	strv_add(&pa, "--runs");
	strv_addf(&pa, "%s/attempts/{1}/runs", at);
	strv_add(&pa, "run");
	strv_add(&pa, "--kernel");
	strv_add(&pa, "{2}");
	strv_add(&pa, "--crashkernel");
	strv_add(&pa, "{3}");
	strv_add(&pa, "--attempt");
	strv_add(&pa, "{1}");
	strv_add(&pa, "--campaign");
	strv_add(&pa, at);
	strv_add(&pa, ARGS_FILE_OPT);
	strv_addf(&pa, "%s/" ATTEMPT_ARGS, at);
	write_attempt_args(c);
	if (c->kernels.n == 1)
		camp_log(
			c,
			"%d attempt(s), %d at a time (%s): trigger %s on %s, in %s",
			c->attempts, c->jobs, c->fresh ? "fresh" : "snapshot",
			c->trigger, c->kernels.v[0], c->dir);
	else
		camp_log(
			c,
			"%d kernel(s), %d attempt(s) each, %d at a time (%s): trigger %s, in %s",
			c->kernels.n, c->per, c->jobs,
			c->fresh ? "fresh" : "snapshot", c->trigger, c->dir);
	c->t_start = now_ms();
	if (setenv("BPK_SELF", self, 1))
		die("setenv: %s", strerror(errno));
	prc = supervise(c, &pa, numbers, paths.runs);
	wall = now_ms() - c->t_start;
	unlink(numbers);
	free(numbers);
	free(joblog);
	free(at);
	strv_free(&pa);
	tabulate(c, k, gs);
	write_summary(c, k, gs, wall, prc);
	camp_log(
		c,
		"%d attempt(s): %d fired, %d ran out, %d failed, %d stopped, in %s",
		k->made, k->fired, k->ran_out, k->failed, k->stopped,
		fmt_ms(wall, el, sizeof(el)));
	return prc;
}

static struct campaign campaign_new(const char *verb, void (*usage)(void))
{
	struct campaign c = { .mem = "1G", .timeout = 120, .repeat = 1 };

	c.verb = verb;
	c.usage = usage;
	return c;
}

int do_campaign(int argc, char **argv)
{
	struct campaign c = campaign_new("campaign", usage_campaign);
	struct outcome_count k = { 0 };
	struct group_out g[1] = { 0 };

	parse(&c, argc, argv);
	validate(&c);
	umask(077);
	engine(&c, &k, g);
	if (c.signum) {
		camp_log(
			&c,
			"error: interrupted by %s: every guest stopped; attempts filed in %s/attempts.tsv",
			c.signame, c.dir);
		return 128 + c.signum;
	}
	if (!k.first) {
		camp_log(&c, "no attempt fired: see %s/attempts.tsv", c.dir);
		return 1;
	}
	camp_log(&c, "first fire: attempt %d: %s", k.first, k.first_run);
	if (k.fired > 1)
		camp_log(
			&c,
			"%d more attempt(s) fired while being stopped: filed too (attempts.tsv)",
			k.fired - 1);
	{
		char *rj = path_join(k.first_run, "report.json");

		if (!file_exists(rj)) {
			camp_log(&c, "error: %s has no report.json",
				 k.first_run);
			return 1;
		}
		free(rj);
	}
	printf("%s\n", k.first_run);
	return 0;
}

/* --- bpk matrix */

static void usage_matrix(void)
{
	printf("usage: bpk [-j] matrix TRIGGER [k=v ...] --kernels K1,K2,... [--attempts N]\n"
	       "                 [--jobs J] [--workload FILE | -- CMD ARGS...] [--runs DIR]\n"
	       "                 [--timeout S] [--mem SIZE] [--repeat N] [--sshlogin LIST]\n"
	       "       bpk [-j] matrix --prog FILE [k=v ...] --kernels K1,K2,... ...\n"
	       "\n"
	       "The same trigger and reproducer on several kernels: does it fire on each?\n"
	       "Each kernel (ours, debian, debian:RELEASE, a kernel's path) is resolved,\n"
	       "fetched or built first; then its attempts run through the campaign engine\n"
	       "(GNU parallel), until one fires or all run out. A table: kernel, its\n"
	       "release, fired or not, attempts, the run (with its dump where it fired);\n"
	       "-j prints it as JSON. Everything is filed in RUNS/matrix-<time>-<trigger>/\n"
	       "(campaign.json, attempts.tsv, attempts/N/runs/).\n"
	       "\n"
	       "  --kernels LIST   comma-separated kernels (bpk kernels lists Debian's)\n"
	       "  --attempts N     attempts per kernel (1): for a flaky bug\n"
	       "  --jobs J         guests at a time (1)\n"
	       "  other options as for bpk campaign\n"
	       "\n"
	       "Exit: 0 every kernel answered (fired, or every attempt ran out); 1 some\n"
	       "kernel could not tell (an attempt failed: its reason in the table); 2 bad\n"
	       "input, nothing booted; 128+N interrupted.\n");
}

static const char *answer_word(const struct group_out *g)
{
	const char *a = group_answer(g);

	return !strcmp(a, "fired")     ? "yes" :
	       !strcmp(a, "not-fired") ? "no" :
					 "?";
}

int do_matrix(int argc, char **argv)
{
	struct campaign c = campaign_new("matrix", usage_matrix);
	struct outcome_count k = { 0 };
	struct group_out *gs;
	bool all = true;

	parse(&c, argc, argv);
	validate(&c);
	umask(077);
	gs = xcalloc((size_t)c.kernels.n, sizeof(*gs));
	engine(&c, &k, gs);
	if (c.signum) {
		camp_log(
			&c,
			"error: interrupted by %s: every guest stopped; attempts filed in %s/attempts.tsv",
			c.signame, c.dir);
		return 128 + c.signum;
	}
	for (int i = 0; i < c.kernels.n; i++)
		all = all && strcmp(group_answer(&gs[i]), "unknown");
	if (json_output) {
		jw_start_object(json_wtr);
		jw_string_field(json_wtr, "dir", c.dir);
		jw_string_field(json_wtr, "trigger", c.trigger);
		jw_name(json_wtr, "kernels");
		jw_start_array(json_wtr);
		for (int i = 0; i < c.kernels.n; i++)
			group_json(json_wtr, c.kernels.v[i], &gs[i]);
		jw_end_array(json_wtr);
		jw_end_object(json_wtr);
	} else {
		printf("%-34s %-28s %-5s %-8s %s\n", "KERNEL", "RELEASE",
		       "FIRED", "ATTEMPTS", "RUN");
		for (int i = 0; i < c.kernels.n; i++) {
			const struct group_out *g = &gs[i];
			const char *run = g->first ? g->first_run : g->last_run;
			bool unknown = !strcmp(group_answer(g), "unknown");
			char att[32];

			snprintf(att, sizeof(att), "%d/%d", g->made, c.per);
			print_line(stdout, "%-34s %-28s %-5s %-8s %s%s%s%s",
				   c.kernels.v[i],
				   g->release ? g->release : "-",
				   answer_word(g), att, run && *run ? run : "-",
				   unknown ? "  (" : "",
				   !unknown	  ? "" :
				   g->last_reason ? g->last_reason :
						    "no attempt made",
				   unknown ? ")" : "");
		}
		printf("filed in %s\n", c.dir);
	}
	return all ? 0 : 1;
}

/* --- bpk bisect */

static void usage_bisect(void)
{
	printf("usage: bpk [-j] bisect TRIGGER [k=v ...] --kernels GOOD,K2,...,BAD [--attempts N]\n"
	       "                 [--workload FILE | -- CMD ARGS...] [options as for bpk matrix]\n"
	       "       bpk [-j] bisect --prog FILE [k=v ...] --kernels GOOD,...,BAD ...\n"
	       "\n"
	       "Which kernel of an ordered list is the first where the trigger fires (or\n"
	       "the first where it stops firing)? The two ends are tried first and must\n"
	       "differ; then the list is halved until two adjacent kernels differ. Each\n"
	       "step is a matrix of its own, filed with its runs and dumps in\n"
	       "RUNS/bisect-<time>-<trigger>/step-*/; bisect.json says what each step\n"
	       "found. Between two Debian kernels, the part of the newer one's\n"
	       "changelog since the older one's version is written to changelog.txt\n"
	       "and counted.\n"
	       "\n"
	       "  --kernels LIST   ordered, comma-separated: the known good first, the\n"
	       "                   known bad last (bpk kernels lists Debian's in order)\n"
	       "  --attempts N     attempts per kernel and step (1): a kernel whose\n"
	       "                   attempts all run out has not fired\n"
	       "\n"
	       "Exit: 0 the boundary found; 1 it could not be (the ends agree, or a step\n"
	       "could not tell); 2 bad input, nothing booted; 128+N interrupted.\n");
}

struct step_answer {
	char answer[16]; /* fired, not-fired, unknown */
	char *run, *release, *why;
};

/* One step: a matrix over the kernels @idx of @base's list, filed under
 * the bisection's dir; each kernel's answer into @ans (by list index).
 */
static int bisect_step(const struct campaign *base, const int *idx, int n,
		       struct step_answer *ans, json_writer_t *steps)
{
	struct campaign c = *base;
	struct outcome_count k = { 0 };
	struct group_out *gs = xcalloc((size_t)n, sizeof(*gs));

	memset(&c.kernels, 0, sizeof(c.kernels));
	memset(&c.reservations, 0, sizeof(c.reservations));
	for (int i = 0; i < n; i++) {
		strv_add(&c.kernels, base->kernels.v[idx[i]]);
		strv_add(&c.reservations, base->reservations.v[idx[i]]);
	}
	c.attempts = c.per * n;
	c.dir = NULL;
	c.log = NULL;
	c.seen = NULL;
	c.group_winner = NULL;
	c.groups_won = 0;
	c.winner = 0;
	c.stopping = false;
	c.parallel = 0;
	c.fresh_why = c.snapshot = c.not_armed_why = NULL;
	engine(&c, &k, gs);
	jw_start_object(steps);
	jw_string_field(steps, "dir", c.dir);
	jw_name(steps, "kernels");
	jw_start_array(steps);
	for (int i = 0; i < n; i++) {
		struct step_answer *a = &ans[idx[i]];

		snprintf(a->answer, sizeof(a->answer), "%s",
			 group_answer(&gs[i]));
		a->run = xstrdup(gs[i].first	? gs[i].first_run :
				 gs[i].last_run ? gs[i].last_run :
						  "");
		a->release = gs[i].release ? xstrdup(gs[i].release) : NULL;
		a->why = gs[i].last_reason ? xstrdup(gs[i].last_reason) : NULL;
		group_json(steps, c.kernels.v[i], &gs[i]);
		print_line(stderr, "bisect: %s: %s (%s)", c.kernels.v[i],
			   a->answer, *a->run ? a->run : "no run");
	}
	jw_end_array(steps);
	jw_end_object(steps);
	if (c.log)
		fclose(c.log);
	free(gs);
	return c.signum;
}

/* The part of the newer Debian kernel's changelog since the older one's
 * version, into @path; the number of entries, -1 when either is not a
 * Debian kernel.
 */
static int changelog_between(const char *older, const char *newer,
			     const char *path)
{
	struct kernel_info ko, kn;
	char *script, *ver, *out = NULL, *err = NULL;
	int rc, entries = 0;
	FILE *f;

	kernel_resolve(older, &ko);
	kernel_resolve(newer, &kn);
	if (strcmp(ko.flavor, "debian") || strcmp(kn.flavor, "debian") ||
	    !ko.package || !strchr(ko.package, ' '))
		return -1;
	ver = strchr(ko.package, ' ') + 1;
	script = debian_kernel_script();
	{
		const char *argv[] = { script, "changelog", kn.dir, ver, NULL };

		rc = proc_capture(argv, &out, &err);
	}
	free(script);
	if (rc || !out) {
		fprintf(stderr, "bisect: the changelog could not be read: %s",
			err ? err : "no output\n");
		free(out);
		free(err);
		return -1;
	}
	f = fopen(path, "w");
	if (!f || fputs(out, f) < 0 || fclose(f))
		die("%s: %s", path, strerror(errno));
	for (char *l = out; l && *l;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		entries += !strncmp(l, "linux", 5);
	free(out);
	free(err);
	return entries;
}

int do_bisect(int argc, char **argv)
{
	struct campaign c = campaign_new("bisect", usage_bisect);
	struct step_answer *ans;
	char stamp[32], *dir, *runs_before, *cl, *bj;
	const char *a_ends, *b_ends;
	int lo, hi, sig, entries, m, ends[2];
	time_t t = time(NULL);
	struct tm tm;
	FILE *f;
	json_writer_t *w;

	parse(&c, argc, argv);
	validate(&c);
	umask(077);
	m = c.kernels.n;
	ans = xcalloc((size_t)m, sizeof(*ans));
	if (mkdir_p(paths.runs, 0700))
		usage_error("cannot create the runs dir %s: %s", paths.runs,
			    strerror(errno));
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	runs_before = abs_path(paths.runs);
	dir = xasprintf("%s/bisect-%s-%s", runs_before, stamp, c.trigger);
	if (mkdir(dir, 0700))
		die("%s: %s", dir, strerror(errno));
	/* the steps are filed inside the bisection's dir */
	free(paths.runs);
	paths.runs = xstrdup(dir);
	bj = path_join(dir, "bisect.json");
	f = fopen(bj, "w");
	if (!f)
		die("%s: %s", bj, strerror(errno));
	w = jw_new(f);
	jw_pretty(w, true);
	jw_start_object(w);
	jw_string_field(w, "trigger", c.trigger);
	jw_name(w, "kernels");
	jw_start_array(w);
	for (int i = 0; i < m; i++)
		jw_string(w, c.kernels.v[i]);
	jw_end_array(w);
	jw_int_field(w, "attempts_per_kernel", c.per);
	jw_name(w, "steps");
	jw_start_array(w);

	fprintf(stderr,
		"bisect: %d kernels, %s first and %s last: trying both ends\n",
		m, c.kernels.v[0], c.kernels.v[m - 1]);
	ends[0] = 0;
	ends[1] = m - 1;
	sig = bisect_step(&c, ends, 2, ans, w);
	a_ends = ans[0].answer;
	b_ends = ans[m - 1].answer;
	lo = 0;
	hi = m - 1;
	if (!sig && (!strcmp(a_ends, "unknown") || !strcmp(b_ends, "unknown") ||
		     !strcmp(a_ends, b_ends))) {
		jw_end_array(w);
		jw_string_field(w, "result", "ends-agree-or-unknown");
		jw_end_object(w);
		jw_destroy(&w);
		fclose(f);
		if (!strcmp(a_ends, "unknown") || !strcmp(b_ends, "unknown"))
			die("bisect: an end could not tell: %s: %s (%s); %s: %s (%s); filed in %s",
			    c.kernels.v[0], a_ends,
			    ans[0].why ? ans[0].why : "-", c.kernels.v[m - 1],
			    b_ends, ans[m - 1].why ? ans[m - 1].why : "-", dir);
		die("bisect: both ends %s (%s and %s): no boundary in this list; filed in %s",
		    !strcmp(a_ends, "fired") ? "fire" : "do not fire",
		    c.kernels.v[0], c.kernels.v[m - 1], dir);
	}
	while (!sig && hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;

		fprintf(stderr,
			"bisect: %d kernel(s) left between %s and %s: trying %s\n",
			hi - lo - 1, c.kernels.v[lo], c.kernels.v[hi],
			c.kernels.v[mid]);
		sig = bisect_step(&c, &mid, 1, ans, w);
		if (sig)
			break;
		if (!strcmp(ans[mid].answer, a_ends)) {
			lo = mid;
		} else if (!strcmp(ans[mid].answer, b_ends)) {
			hi = mid;
		} else {
			jw_end_array(w);
			jw_string_field(w, "result", "step-unknown");
			jw_end_object(w);
			jw_destroy(&w);
			fclose(f);
			die("bisect: %s could not tell (%s): the boundary is between %s and %s; filed in %s",
			    c.kernels.v[mid], ans[mid].why ? ans[mid].why : "-",
			    c.kernels.v[lo], c.kernels.v[hi], dir);
		}
	}
	jw_end_array(w);
	if (sig) {
		jw_string_field(w, "result", "interrupted");
		jw_end_object(w);
		jw_destroy(&w);
		fclose(f);
		fprintf(stderr,
			"bisect: error: interrupted by signal %d; steps filed in %s\n",
			sig, dir);
		return 128 + sig;
	}
	cl = path_join(dir, "changelog.txt");
	entries = changelog_between(c.kernels.v[lo], c.kernels.v[hi], cl);
	jw_string_field(w, "result", "found");
	jw_string_field(w, "change",
			!strcmp(b_ends, "fired") ? "starts-firing" :
						   "stops-firing");
	jw_name(w, "last_before");
	jw_start_object(w);
	jw_string_field(w, "kernel", c.kernels.v[lo]);
	jw_string_field(w, "release", ans[lo].release);
	jw_string_field(w, "answer", ans[lo].answer);
	jw_string_field(w, "run", ans[lo].run);
	jw_end_object(w);
	jw_name(w, "first_after");
	jw_start_object(w);
	jw_string_field(w, "kernel", c.kernels.v[hi]);
	jw_string_field(w, "release", ans[hi].release);
	jw_string_field(w, "answer", ans[hi].answer);
	jw_string_field(w, "run", ans[hi].run);
	jw_end_object(w);
	if (entries >= 0) {
		jw_string_field(w, "changelog", cl);
		jw_int_field(w, "changelog_entries", entries);
	} else {
		jw_null_field(w, "changelog");
		jw_null_field(w, "changelog_entries");
	}
	jw_end_object(w);
	jw_destroy(&w);
	if (fclose(f))
		die("%s: %s", bj, strerror(errno));
	if (json_output) {
		char *text = read_file(bj, 1 << 24, NULL);

		fputs(text ? text : "{}\n", stdout);
		free(text);
		return 0;
	}
	printf("first kernel where %s %s: %s (%s), run %s\n", c.trigger,
	       !strcmp(b_ends, "fired") ? "fires" : "does not fire",
	       c.kernels.v[hi], ans[hi].release ? ans[hi].release : "-",
	       ans[hi].run);
	printf("last kernel before it:      %s (%s), run %s\n", c.kernels.v[lo],
	       ans[lo].release ? ans[lo].release : "-", ans[lo].run);
	if (entries >= 0)
		printf("changelog between them: %d entries in %s\n", entries,
		       cl);
	else
		printf("changelog between them: none (not two Debian kernels)\n");
	printf("filed in %s\n", dir);
	return 0;
}
