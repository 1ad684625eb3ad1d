// SPDX-License-Identifier: GPL-2.0
/*
 * bpk run and bpk demo: one run, owned end to end. The options are
 * checked before anything boots (the trigger table and parameter parser
 * triggerctl uses, the booting kernel's symbol table); the guest gets its
 * own image piece and command line; QEMU runs under the event loop of
 * supervise.c; the collector files what came back; the report follows.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "bpk.h"
#include "collect.h"
#include "escape.h"
#include "json_writer.h"
#include "livedump.h"
#include "hostdump.h"
#include "hostfs.h"
#include "image.h"
#include "fire.h"
#include "params.h"
#include "proc.h"
#include "prog.h"
#include "protocol.h"
#include "qemu.h"
#include "qmp.h"
#include "record.h"
#include "run.h"
#include "snapshot.h"
#include "warm.h"
#include "supervise.h"
#include "table.h"
#include "userprog.h"

#define DEFAULT_TIMEOUT 300
#define ERRLEN 2048

static const char *const busybox_path = "/bin/busybox";

void run_opts_init(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->repeat = 1;
	o->timeout = DEFAULT_TIMEOUT;
	o->smp = 2;
	o->mem = "1G";
	o->kernel = "ours";
	o->host_fs = HOSTFS_AUTO;
	o->reservation_check = o->sysctl = o->panic_on_oops = true;
	o->report = true;
	/* make test builds everything first: its runs need not ask make */
	o->build = !getenv("BPK_NO_BUILD") || !*getenv("BPK_NO_BUILD");
	o->accel = config_accel();
	o->log_cap = LOG_CAP_DEFAULT;
	o->display = DISPLAY_PLAIN;
}

static void usage_run(void)
{
	printf("usage: bpk run TRIGGER [k=v ...] [--workload FILE | -- CMD [ARG ...]] [options]\n"
	       "       bpk run --prog FILE [k=v ...] [--workload FILE | -- CMD [ARG ...]] [options]\n"
	       "\n"
	       "Boot the appliance with TRIGGER armed (k=v: its parameters, bpk list), run\n"
	       "the workload, and when the trigger fires collect the dump, file the run\n"
	       "under RUNS/<UTC time>-TRIGGER/ and write its report. TRIGGER none arms\n"
	       "nothing: the workload crashes the guest itself.\n"
	       "\n"
	       "The workload is FILE (run in the guest; a relative FILE not found from here\n"
	       "is looked up in the clone), or the command line after -- (run in the host's\n"
	       "user space over 9p, read-only), or the trigger's example workload.\n"
	       "\n"
	       "options:\n"
	       "  --prog FILE            a trigger program of your own (.bpf.c or .bpf.o)\n"
	       "                         instead of TRIGGER (docs/own-triggers.md)\n"
	       "  --workload FILE        the workload\n"
	       "  --repeat N             run it N times, 0 = until the timeout (1)\n"
	       "  --timeout S            hard limit for the guest, in seconds (300)\n"
	       "  --mem SIZE, --smp N    guest memory (1G) and CPUs (2)\n"
	       "  --kernel K             the guest's kernel: ours (the default), debian,\n"
	       "                         debian:RELEASE (bpk kernels), or the path of\n"
	       "                         a kernel you built (a build dir or a bzImage)\n"
	       "  --share DIR            show host directory DIR in the guest, read-only\n"
	       "  --share-rw DIR         the one writable share\n"
	       "  --host-fs auto|on|off  run the workload in the host's user space\n"
	       "  --crashkernel SIZE     the crash kernel's reservation (the kernel's\n"
	       "                         measured one: ours 192M, Debian's 256M)\n"
	       "  --no-reservation-check arm even below the capture kernel's need\n"
	       "  --dry-run              arm with dry_run: count matches, no dump\n"
	       "  --sysctl-off           leave kernel.destructive_bpf_enabled at 0 (ours: nothing fires)\n"
	       "  --no-panic-on-oops     an oops does not panic the guest\n"
	       "  --panic-on-warn        a WARN() panics the guest\n"
	       "  --panic-on LIST        these detectors panic the guest: softlockup,\n"
	       "                         hung (hung tasks), rcu (RCU stalls)\n"
	       "  --stall S              no progress for S seconds: inject an NMI, which\n"
	       "                         panics the guest (a hard lockup, a silent hang)\n"
	       "  --dump kdump|host      who dumps the guest: its crash kernel (kdump, the\n"
	       "                         default) or the host, told by pvpanic (host)\n"
	       "  --no-report            collect only\n"
	       "  --crash                at a terminal, crash on the vmcore after the report\n"
	       "  --accel auto|tcg|kvm   QEMU's accelerator (auto; BPK_ACCEL)\n"
	       "  --append STR           more words for the guest kernel's command line\n"
	       "  --capture-append STR   more words for the crash kernel's (no commas)\n"
	       "  --kexec-checks         load the crash kernel with kexec's SHA-256 checks\n"
	       "  --qemu-arg ARG         pass ARG to QEMU (repeatable)\n"
	       "  --log-cap SIZE         keep at most SIZE of the console, guest and workload logs, dmesg (64M)\n"
	       "  --cold                 boot the guest instead of restoring the idle\n"
	       "                         snapshot of our kernel (the warm start)\n"
	       "  --no-build             do not bring the build up to date first (make)\n"
	       "  --runs DIR             where the run is filed (BPK_RUNS, runs/)\n"
	       "  -q, --quiet            print only the run directory\n"
	       "  -v, --verbose          every stage and guest state as a line\n"
	       "\n"
	       "Exit status: 0 a verified vmcore and its report, 1 the run failed (filed;\n"
	       "the reason on stderr and in run.json), 2 bad input (nothing booted), 3 the\n"
	       "run could not be filed (what the guest sent is kept, named), 128+N\n"
	       "interrupted by signal N (QEMU stopped, the run filed). See bpk(1).\n");
}

/* --- options */

static const char *need_value(int argc, char **argv, int i, const char *verb)
{
	if (i + 1 >= argc || !*argv[i + 1])
		usage_error("%s needs a value (bpk %s --help)", argv[i], verb);
	return argv[i + 1];
}

static int num_opt(const char *opt, const char *v, long long min)
{
	long long n = parse_num(v, min, 1 << 30);

	if (n < 0) {
		if (!strcmp(opt, "--timeout") || !strcmp(opt, "--smp") ||
		    !strcmp(opt, "--stall"))
			usage_error("%s '%s' is not a positive number%s", opt,
				    v,
				    strcmp(opt, "--smp") ? " of seconds" : "");
		usage_error("%s '%s' is not a number", opt, v);
	}
	return (int)n;
}

/* --panic-on softlockup,hung,rcu */
static void panic_on_parse(struct run_opts *o, const char *v)
{
	char *list = xstrdup(v), *save = NULL;

	for (char *w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "softlockup"))
			o->panic_softlockup = true;
		else if (!strcmp(w, "hung"))
			o->panic_hung = true;
		else if (!strcmp(w, "rcu"))
			o->panic_rcu = true;
		else
			usage_error(
				"--panic-on '%s': '%s' is not softlockup, hung or rcu (comma-separated)",
				v, w);
	}
	free(list);
}

void run_opts_parse(struct run_opts *o, int argc, char **argv, const char *verb)
{
	bool quiet = false, verbose = false, workload_given = false;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage_run();
			exit(0);
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			verbose = true;
		} else if (!strcmp(a, "--")) {
			if (i + 1 >= argc)
				usage_error(
					"-- needs a command to run as the workload (bpk %s TRIGGER -- CMD ARGS)",
					verb);
			for (int j = i + 1; j < argc; j++)
				strv_add(&o->command, argv[j]);
			break;
		} else if (!strcmp(a, "--dry-run")) {
			o->dry_run = true;
		} else if (!strcmp(a, "--sysctl-off")) {
			o->sysctl = false;
		} else if (!strcmp(a, "--no-panic-on-oops")) {
			o->panic_on_oops = false;
		} else if (!strcmp(a, "--panic-on-warn")) {
			o->panic_on_warn = true;
		} else if (!strcmp(a, "--no-report")) {
			o->report = false;
		} else if (!strcmp(a, "--no-reservation-check")) {
			o->reservation_check = false;
		} else if (!strcmp(a, "--kexec-checks")) {
			o->kexec_checks = true;
		} else if (!strcmp(a, "--crash")) {
			o->open_crash = true;
		} else if (!strcmp(a, "--no-build")) {
			o->build = false;
		} else if (!strcmp(a, "--cold")) {
			o->cold = true;
		} else if (a[0] == '-' && a[1] == '-') {
			static const char *const with_value[] = {
				"--workload", "--repeat",
				"--timeout",  "--smp",
				"--mem",      "--kernel",
				"--share",    "--share-rw",
				"--host-fs",  "--crashkernel",
				"--accel",    "--append",
				"--log-cap",  "--capture-append",
				"--qemu-arg", "--runs",
				"--restore",  "--attempt",
				"--campaign", "--prog",
				"--stall",    "--panic-on",
				"--dump",     NULL
			};
			bool known = false;

			for (int k = 0; with_value[k]; k++)
				known |= !strcmp(a, with_value[k]);
			if (!known)
				usage_error(
					"%s: unknown option '%s' (bpk %s --help)",
					verb, a, verb);
			v = need_value(argc, argv, i, verb);
			i++;
			if (!strcmp(a, "--workload")) {
				o->workload = xstrdup(v);
				workload_given = true;
			} else if (!strcmp(a, "--repeat")) {
				o->repeat = num_opt(a, v, 0);
			} else if (!strcmp(a, "--timeout")) {
				o->timeout = num_opt(a, v, 1);
			} else if (!strcmp(a, "--smp")) {
				o->smp = num_opt(a, v, 1);
			} else if (!strcmp(a, "--stall")) {
				o->stall_s = num_opt(a, v, 1);
			} else if (!strcmp(a, "--panic-on")) {
				panic_on_parse(o, v);
			} else if (!strcmp(a, "--dump")) {
				if (!strcmp(v, "host"))
					o->dump_host = true;
				else if (!strcmp(v, "kdump"))
					o->dump_host = false;
				else
					usage_error(
						"--dump '%s' must be kdump or host",
						v);
			} else if (!strcmp(a, "--mem")) {
				if (parse_size(v) < 0)
					usage_error(
						"--mem '%s' is not a size like 512M or 1G",
						v);
				o->mem = v;
			} else if (!strcmp(a, "--kernel")) {
				o->kernel = v;
			} else if (!strcmp(a, "--share")) {
				strv_add(&o->shares, v);
			} else if (!strcmp(a, "--share-rw")) {
				o->share_rw = xstrdup(v);
			} else if (!strcmp(a, "--host-fs")) {
				if (!strcmp(v, "auto"))
					o->host_fs = HOSTFS_AUTO;
				else if (!strcmp(v, "on"))
					o->host_fs = HOSTFS_ON;
				else if (!strcmp(v, "off"))
					o->host_fs = HOSTFS_OFF;
				else
					usage_error(
						"--host-fs '%s' must be auto, on or off",
						v);
			} else if (!strcmp(a, "--crashkernel")) {
				if (strcmp(v, "none") && parse_size(v) < 0)
					usage_error(
						"--crashkernel '%s' is not a size like 192M, or none",
						v);
				o->crashkernel = v;
			} else if (!strcmp(a, "--accel")) {
				o->accel = v;
			} else if (!strcmp(a, "--append")) {
				o->append = v;
			} else if (!strcmp(a, "--log-cap")) {
				o->log_cap = parse_size(v);
				if (o->log_cap < 0)
					usage_error(
						"--log-cap '%s' is not a size like 64M or 1G",
						v);
			} else if (!strcmp(a, "--capture-append")) {
				o->capture_append = v;
			} else if (!strcmp(a, "--qemu-arg")) {
				strv_add(&o->qemu_args, v);
			} else if (!strcmp(a, "--runs")) {
				if (has_control(v))
					usage_error(
						"--runs: a control character in the path");
				free(paths.runs);
				paths.runs = xstrdup(v);
			} else if (!strcmp(a, "--restore")) {
				o->restore = v;
			} else if (!strcmp(a, "--attempt")) {
				o->attempt = num_opt(a, v, 1);
			} else if (!strcmp(a, "--campaign")) {
				o->campaign = v;
			} else if (!strcmp(a, "--prog")) {
				if (o->prog)
					usage_error("%s: --prog given twice",
						    verb);
				o->prog = v;
			} else {
				usage_error(
					"%s: unknown option '%s' (bpk %s --help)",
					verb, a, verb);
			}
		} else if (a[0] == '-') {
			usage_error("%s: unknown option '%s' (bpk %s --help)",
				    verb, a, verb);
		} else if (strchr(a, '=')) {
			if (!o->trigger && !o->prog)
				usage_error(
					"%s: '%s' before the trigger's name (bpk %s TRIGGER k=v ...)",
					verb, a, verb);
			strv_add(&o->targs, a);
		} else {
			if (o->trigger)
				usage_error(
					"%s: unexpected argument '%s' (parameters are k=v; bpk list %s)",
					verb, a, o->trigger);
			if (o->prog)
				usage_error(
					"%s: '%s': a trigger's name and --prog FILE exclude each other",
					verb, a);
			o->trigger = a;
		}
	}
	if (o->prog && o->trigger)
		usage_error(
			"%s: --prog %s and trigger %s: a trigger's name and --prog FILE exclude each other",
			verb, o->prog, o->trigger);
	if (!o->trigger && !o->prog)
		usage_error(
			"%s: no trigger given (bpk %s TRIGGER [k=v ...]; bpk list)",
			verb, verb);
	if (quiet && verbose)
		usage_error("%s: --quiet and --verbose exclude each other",
			    verb);
	if (o->command.n && workload_given)
		usage_error(
			"%s: give the workload as --workload FILE or as -- CMD ARGS, not both",
			verb);
	if (quiet)
		o->display = DISPLAY_QUIET;
	else if (verbose)
		o->display = DISPLAY_VERBOSE;
	else if (isatty(1))
		o->display = DISPLAY_TERM;
}

/* --- checks before anything boots */

static const char *trigger_names(void)
{
	static char buf[1024];
	size_t n = 0;

	for (const struct trigger_def *t = triggers; t->name; t++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      n ? " " : "", t->name);
	return buf;
}

char *example_workload(const char *trigger)
{
	const struct trigger_def *t = trigger_find(trigger);
	char *p;

	if (!t || !t->workload)
		return NULL;
	p = xasprintf("%s/triggers/examples/%s", paths.top, t->workload);
	if (file_exists(p))
		return p;
	free(p);
	return xasprintf("%s/examples/%s", paths.build, t->workload);
}

/* Is @name an applet of the appliance's busybox? */
static bool busybox_applet(const char *name)
{
	const char *argv[] = { busybox_path, "--list", NULL };
	char *out = NULL;
	bool found = false;

	if (proc_capture(argv, &out, NULL) == 0) {
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
			if (!strcmp(l, name))
				found = true;
	}
	free(out);
	return found;
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

static void check_command(struct run_opts *o)
{
	const char *cmd0 = o->command.v[0];
	static const char *const guest_path[] = { "/bin", "/sbin", "/usr/bin",
						  "/usr/sbin", NULL };

	for (int i = 0; i < o->command.n; i++)
		if (has_control(o->command.v[i]))
			usage_error(
				"-- %s: a control character in the command line",
				cmd0);
	if (o->host_fs == HOSTFS_OFF) {
		/* the appliance's busybox runs it */
		if (cmd0[0] != '/' && !busybox_applet(cmd0))
			usage_error(
				"-- %s: not a busybox applet (with --host-fs off the command runs in the appliance's busybox)",
				cmd0);
		return;
	}
	if (cmd0[0] == '/') {
		static const char *const seen[] = { "/usr", "/bin",   "/sbin",
						    "/lib", "/lib64", NULL };
		bool visible = false;

		if (!is_executable(cmd0))
			usage_error("-- %s: no such program on the host", cmd0);
		for (int i = 0; seen[i]; i++)
			visible |= under(cmd0, seen[i]);
		for (int i = 0; i < o->shares.n; i++)
			visible |= under(cmd0, o->shares.v[i]);
		if (o->share_rw)
			visible |= under(cmd0, o->share_rw);
		if (!visible) {
			char *dir = xstrdup(cmd0);

			*strrchr(dir, '/') = '\0';
			usage_error(
				"-- %s: not under /usr, /bin, /sbin or a share: the guest cannot see it (--share %s)",
				cmd0, dir);
		}
		return;
	}
	for (int i = 0; guest_path[i]; i++) {
		char *p = path_join(guest_path[i], cmd0);
		bool ok = is_executable(p);

		free(p);
		if (ok)
			return;
	}
	usage_error(
		"-- %s: no such program in the host's /bin, /sbin, /usr/bin or /usr/sbin (the guest's PATH)",
		cmd0);
}

/*
 * tp=CAT:NAME and func=NAME name things of the kernel that will boot: its
 * symbol table (and its modules') lists every trace event category
 * (str__CAT__trace_system_name), tracepoint (__tracepoint_NAME) and
 * function. A name missing there is a typo, refused before the boot;
 * which category an event belongs to, and whether a function is in BTF,
 * the guest checks when it arms. syscalls:* the parser has checked.
 */
static void check_kernel_names(const struct run_opts *o,
			       const struct kernel_info *k)
{
	const char *names[3 * MAX_ARGS + 1];
	const char *what[3 * MAX_ARGS];
	char *texts[3 * MAX_ARGS];
	bool found[3 * MAX_ARGS];
	char err[ERRLEN];
	int n = 0;

	for (int i = 0; i < o->targs.n; i++) {
		const char *a = o->targs.v[i], *val = strchr(a, '=') + 1;

		if (!strncmp(a, "func=", 5)) {
			texts[n] = xstrdup(val);
			what[n] = a;
			names[n] = texts[n];
			n++;
		} else if (!strncmp(a, "tp=", 3) && strchr(val, ':') &&
			   strncmp(val, "syscalls:", 9)) {
			const char *colon = strchr(val, ':');

			texts[n] = xasprintf("str__%.*s__trace_system_name",
					     (int)(colon - val), val);
			what[n] = a;
			names[n] = texts[n];
			n++;
			texts[n] = xasprintf("__tracepoint_%s", colon + 1);
			what[n] = a;
			names[n] = texts[n];
			n++;
		}
	}
	/* a --prog program: what its SEC() names point at */
	if (o->prog_obj) {
		const char *syms[MAX_ARGS], *whats[MAX_ARGS];
		int m = userprog_kernel_names(syms, whats, MAX_ARGS);

		for (int i = 0; i < m && n < 3 * MAX_ARGS; i++, n++) {
			texts[n] = xstrdup(syms[i]);
			what[n] = whats[i];
			names[n] = texts[n];
		}
	}
	names[n] = NULL;
	if (!n)
		return;
	if (kernel_has_symbols(k, names, found, err, sizeof(err)))
		die("cannot read the symbol table of %s: %s",
		    kernel_symbols_from(k), err);
	for (int i = 0; i < n; i++) {
		const char *val, *colon;

		if (found[i])
			continue;
		if (!strncmp(what[i], "SEC(", 4)) {
			bool tp = !strncmp(names[i], "__tracepoint_", 13);
			bool cat = !strncmp(names[i], "str__", 5);

			usage_error(
				"--prog %s: %s: no %s %.*s in this kernel (%s: %s)",
				o->prog, what[i],
				tp  ? "tracepoint" :
				cat ? "trace event category" :
				      "function",
				cat ? (int)(strlen(names[i]) - 5 -
					    strlen("__trace_system_name")) :
				      (int)strlen(names[i] + (tp ? 13 : 0)),
				names[i] + (tp	? 13 :
					    cat ? 5 :
						  0),
				k->spec, kernel_symbols_from(k));
		}
		val = strchr(what[i], '=') + 1;
		colon = strchr(val, ':');
		if (!strncmp(what[i], "func=", 5))
			usage_error(
				"func=%s: no function %s in this kernel (%s: %s)",
				val, val, k->spec, kernel_symbols_from(k));
		if (!strncmp(names[i], "str__", 5))
			usage_error(
				"tp=%s: no trace event category %.*s in this kernel (%s: %s)",
				val, (int)(colon - val), val, k->spec,
				kernel_symbols_from(k));
		usage_error("tp=%s: no tracepoint %s in this kernel (%s: %s)",
			    val, colon + 1, k->spec, kernel_symbols_from(k));
	}
	for (int i = 0; i < n; i++)
		free(texts[i]);
}

static void check_params(const struct run_opts *o, const struct kernel_info *k)
{
	const struct trigger_def *t = trigger_find(o->trigger);
	struct arm_args parsed;
	char err[ERRLEN];
	char **argv = xcalloc((size_t)o->targs.n + 2, sizeof(*argv));
	long long action;
	int argc = 0;

	for (int i = 0; i < o->targs.n; i++)
		argv[argc++] = o->targs.v[i];
	if (o->dry_run)
		argv[argc++] = "dry_run";
	if (args_parse(t, argc, argv, &parsed, err, sizeof(err)))
		usage_error("%s", err);
	action = args_get(&parsed, "action")->num;
	if (action == FIRE_CRASH_KEXEC && !t->kfunc_ok)
		usage_error(
			"action=crash_kexec: %s is not a tracing program, the kfunc cannot be called from it (it fires with bpf_panic)",
			t->name);
	/* only our kernel has the series */
	/* no kernel given: ours, as for campaigns and snapshots */
	if (action == FIRE_BPF_PANIC && k && !kernel_has_bpf_panic(k))
		usage_error(
			"action=bpf_panic: the %s kernel has no bpf_panic helper; action=crash_kexec fires there",
			k->spec);
	free(argv);
}

static void check_restore(const struct run_opts *o, const struct kernel_info *k,
			  const char *accel, const char *args)
{
	struct snapshot_meta m;
	char err[ERRLEN];
	char *why;

	if (snapshot_meta_read(o->restore, &m, err, sizeof(err)))
		usage_error("--restore %s: %s", o->restore, err);
	if (strcmp(m.mem, o->mem))
		usage_error(
			"--restore %s: the snapshot's mem is %s, this run's %s",
			o->restore, m.mem, o->mem);
	if (m.smp != o->smp)
		usage_error(
			"--restore %s: the snapshot's smp is %d, this run's %d",
			o->restore, m.smp, o->smp);
	if (strcmp(m.crashkernel, o->crashkernel))
		usage_error(
			"--restore %s: the snapshot's crashkernel is %s, this run's %s",
			o->restore, m.crashkernel, o->crashkernel);
	if (strcmp(m.accel, accel))
		usage_error(
			"--restore %s: the snapshot was made under %s, this run is under %s (--accel %s)",
			o->restore, m.accel, accel, m.accel);
	if (!o->reservation_check)
		usage_error(
			"--restore: the snapshot was checked with the reservation check on");
	if (m.trigger && *m.trigger) {
		if (strcmp(m.trigger, o->trigger) || strcmp(m.args, args))
			usage_error(
				"--restore %s: armed for '%s %s', not '%s %s'",
				o->restore, m.trigger, m.args, o->trigger,
				args);
		if (o->dry_run || !o->sysctl)
			usage_error(
				"--restore %s: armed without --dry-run or --sysctl-off",
				o->restore);
	}
	{
		char *img = abs_path(k->image);

		if (!img || strcmp(img, m.kernel))
			usage_error(
				"--restore %s: made for %s, this run boots %s",
				o->restore, m.kernel, img ? img : k->image);
		free(img);
	}
	why = warm_hostfs_why(o);
	/* a warm start's snapshot was made with the run's own shares */
	if (why && ((!o->warm && (o->shares.n || o->share_rw)) || !m.hostview))
		usage_error(
			"--restore: the workload needs the host's file system (%s) over 9p, and QEMU cannot migrate a guest with a 9p share mounted: a snapshot with the host view only (bpk run starts warm from one), and no --share",
			why);
	if (!why && m.hostview)
		usage_error(
			"--restore %s: the snapshot has the host view (9p), this run's workload runs in the appliance",
			o->restore);
	free(why);
	snapshot_meta_free(&m);
}

static void check_trigger_name(const struct run_opts *o)
{
	if (has_control(o->trigger) || !o->trigger[0])
		usage_error("unknown trigger '%s' (bpk list: %s)", o->trigger,
			    trigger_names());
	for (const char *p = o->trigger; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			usage_error("unknown trigger '%s' (bpk list: %s)",
				    o->trigger, trigger_names());
	if (strcmp(o->trigger, "none") && !trigger_find(o->trigger))
		usage_error("unknown trigger '%s' (bpk list: %s)", o->trigger,
			    trigger_names());
}

/* The k=v words go on one kernel command line, commas for spaces. */
static void check_args_text(const struct run_opts *o)
{
	for (int i = 0; i < o->targs.n; i++) {
		const char *a = o->targs.v[i];

		if (has_control(a))
			usage_error(
				"trigger argument '%s': a newline or other control character is not allowed (the arguments go on one kernel command line)",
				strchr(a, '=') ?
					strndup(a,
						(size_t)(strchr(a, '=') - a)) :
					a);
		if (strchr(a, ','))
			usage_error(
				"trigger argument '%s': commas are not allowed (they separate arguments on the kernel command line)",
				a);
		if (strchr(a, '"'))
			usage_error(
				"trigger argument '%s': double quotes are not allowed (the kernel command line would take them as quoting)",
				a);
		if (strpbrk(a, " \t"))
			usage_error(
				"trigger argument '%s': white space is not allowed (one word each)",
				a);
	}
}

/* The writable share: QEMU writes into it as its own user (qemu.c), with
 * mapped-xattr, which keeps the guest's owners and modes in xattrs, never
 * on the host's files: that user must be able to write there.
 */
static void check_rw_share(const char *dir)
{
	const struct qemu_user *u = qemu_user();
	struct stat st;

	if (!u->drop || stat(dir, &st))
		return;
	if ((st.st_uid == u->uid && (st.st_mode & 0300) == 0300) ||
	    (st.st_gid == u->gid && (st.st_mode & 0030) == 0030) ||
	    (st.st_mode & 0003) == 0003)
		return;
	usage_error(
		"--share-rw %s: QEMU runs as %s, which cannot write there (chown %s %s, or run bpk as an unprivileged user)",
		dir, u->name, u->name, dir);
}

/* "k=v k=v": the arguments as one text */

void trigger_check(const char *trigger, const char *args)
{
	struct run_opts o;
	char *copy = xstrdup(args ? args : "");

	run_opts_init(&o);
	o.trigger = trigger;
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		strv_add(&o.targs, w);
	free(copy);
	check_trigger_name(&o);
	check_args_text(&o);
	if (strcmp(trigger, "none"))
		check_params(&o, NULL);
	strv_free(&o.targs);
}

/*
 * --dump host: the guest loads no crash kernel, so what brings it down
 * must reach panic() and its notifiers. bpf_panic() does; a stock
 * kernel's triggers fire through the crash_kexec kfunc, which returns
 * without a loaded crash kernel, and there pvpanic is a module the guest
 * does not load.
 */
static void check_dump_host(const struct run_opts *o,
			    const struct kernel_info *k)
{
	if (!strcmp(k->flavor, "debian"))
		usage_error(
			"--dump host: not on Debian's kernel (%s): its triggers fire through the crash_kexec kfunc, which does nothing without a loaded crash kernel (--dump host loads none), and its pvpanic driver is a module the guest does not load; it is dumped by kdump (the default)",
			k->spec);
	if (o->capture_append)
		usage_error(
			"--capture-append: --dump host loads no crash kernel");
	if (o->kexec_checks)
		usage_error(
			"--kexec-checks: --dump host loads no crash kernel");
	if (o->attempt || o->campaign)
		usage_error(
			"--dump host: a campaign's attempts are restored armed, with their crash kernel");
}

void run_validate(struct run_opts *o, struct kernel_info *k)
{
	char *args;
	const char *accel;

	if (o->prog) {
		char *name;

		if (o->restore)
			usage_error(
				"--prog and --restore: a snapshot is armed with a built-in trigger");
		o->prog_obj = prog_prepare(o->prog, &name, &o->prog_compiled);
		o->trigger = name;
	}
	check_trigger_name(o);
	check_args_text(o);
	if (o->cold && o->restore)
		usage_error("--cold and --restore exclude each other");
	if (!strcmp(o->trigger, "none")) {
		if (o->targs.n)
			usage_error("trigger none takes no parameters");
		if (o->dry_run)
			usage_error("--dry-run needs a trigger");
	}
	if (strcmp(o->accel, "auto") && strcmp(o->accel, "tcg") &&
	    strcmp(o->accel, "kvm"))
		usage_error("--accel '%s' must be auto, tcg or kvm", o->accel);
	if (o->append && has_control(o->append))
		usage_error(
			"--append: a newline or other control character is not allowed");
	if (o->capture_append && has_control(o->capture_append))
		usage_error(
			"--capture-append: a newline or other control character is not allowed");
	if (o->capture_append && strchr(o->capture_append, ','))
		usage_error(
			"--capture-append '%s': no commas (they carry the spaces)",
			o->capture_append);
	for (int i = 0; i < o->qemu_args.n; i++)
		if (has_control(o->qemu_args.v[i]))
			usage_error("--qemu-arg: a control character in '%s'",
				    o->qemu_args.v[i]);
	if (o->campaign && has_control(o->campaign))
		usage_error("--campaign: a control character in the path");

	kernel_resolve(o->kernel, k);
	/* a kernel of the user's own is judged before anything is built */
	if (!strcmp(k->flavor, "path"))
		kernel_refuse_unfit(k);
	if (o->dump_host)
		check_dump_host(o, k);
	if (!o->crashkernel) {
		o->crashkernel = k->default_crashkernel;
		o->crashkernel_default = true;
	}
	for (int i = 0; i < o->shares.n; i++) {
		char *d = hostfs_share_path(o->shares.v[i]);

		for (int j = 0; j < i; j++)
			if (!strcmp(o->shares.v[j], d))
				usage_error("share '%s' given twice", d);
		free(o->shares.v[i]);
		o->shares.v[i] = d;
	}
	if (o->share_rw) {
		char *d = hostfs_share_path(o->share_rw);

		for (int j = 0; j < o->shares.n; j++)
			if (!strcmp(o->shares.v[j], d))
				usage_error(
					"share '%s' given both read-only and writable",
					d);
		free(o->share_rw);
		o->share_rw = d;
	}
	if (o->share_rw)
		check_rw_share(o->share_rw);
	if ((o->shares.n || o->share_rw) && o->host_fs == HOSTFS_OFF)
		usage_error(
			"--share/--share-rw need the host view: not with --host-fs off");

	if (o->command.n) {
		check_command(o);
	} else {
		if (!o->workload) {
			if (!strcmp(o->trigger, "none"))
				usage_error(
					"trigger none needs a workload (--workload FILE or -- CMD)");
			o->workload = example_workload(o->trigger);
			if (!o->workload)
				usage_error(
					"%s has no example workload: give --workload FILE",
					o->trigger);
		} else if (has_control(o->workload)) {
			usage_error(
				"--workload: a control character in the path");
		} else if (o->workload[0] != '/' && access(o->workload, F_OK)) {
			/* README examples name files in the clone: they run
			 * from anywhere
			 */
			char *in_clone = path_join(paths.top, o->workload);

			if (!access(in_clone, F_OK)) {
				free(o->workload);
				o->workload = in_clone;
			} else {
				free(in_clone);
			}
		}
		if (!file_exists(o->workload) || access(o->workload, R_OK))
			usage_error("workload %s: no such readable file",
				    o->workload);
		{
			char *abs = abs_path(o->workload);

			free(o->workload);
			o->workload = abs;
		}
	}
	if (strcmp(o->trigger, "none"))
		check_params(o, k);
	if (!o->build) {
		char *missing = kernel_missing(k);

		if (*missing)
			usage_error("not built: %s", missing);
		free(missing);
	}
	args = strv_join(&o->targs, " ");
	if (o->restore) {
		accel = qemu_accel(o->accel, k->image);
		check_restore(o, k, accel, args);
	}
	free(args);
}

void run_reservation(struct run_opts *o, struct kernel_info *k)
{
	if (!o->crashkernel_default)
		return;
	kernel_refresh(k);
	kernel_measure_unmeasured(k);
	o->crashkernel = k->default_crashkernel;
}

/* The names check reads the kernel: after the build is up to date. */
static void validate_after_build(struct run_opts *o, struct kernel_info *k)
{
	char *missing;

	kernel_refresh(k);
	missing = kernel_missing(k);

	if (*missing)
		die("not built: %s", missing);
	free(missing);
	kernel_refuse_unfit(k);
	if (strcmp(o->trigger, "none"))
		check_kernel_names(o, k);
}

/* --- bringing the build up to date */

/* One line of make's output as progress: at a terminal on one updating
 * line, else as it is; always into the log.
 */
static void build_line(const struct run_opts *o, FILE *log, const char *line,
		       int64_t t0)
{
	char el[32], shown[200];

	fprintf(log, "%s\n", line);
	escape_into(shown, sizeof(shown), line, strlen(line));
	if (o->display == DISPLAY_TERM)
		printf("\r\033[K  %-8s %6s  %s", "build",
		       fmt_ms(now_ms() - t0, el, sizeof(el)), shown);
	else if (o->display != DISPLAY_QUIET)
		fprintf(stderr, "make: %s\n", shown);
	fflush(stdout);
}

void run_build(const struct run_opts *o, const struct kernel_info *k)
{
	mode_t old_umask;
	char *target = xstrdup(k->make_target), *logpath, *buildvar, *mk;
	char buf[4096], line[4096], last[4096] = "", el[32];
	struct spawn s = { 0 };
	size_t llen = 0;
	int64_t t0 = now_ms();
	int p[2], rc;
	FILE *log;
	ssize_t n;

	if (!o->build)
		return;
	mk = path_join(paths.top, "Makefile");
	if (!file_exists(mk)) {
		/* an installed copy whose clone has no Makefile: what is
		 * built is what there is
		 */
		free(mk);
		return;
	}
	free(mk);
	logpath = xasprintf("%s/bpk-build.log", paths.build);
	if (mkdir_p(paths.build, 0755) || !(log = fopen(logpath, "w")) ||
	    pipe2(p, O_CLOEXEC)) {
		char *missing = kernel_missing(k);

		if (*missing)
			die("not built, and cannot build here (%s: %s): %s",
			    logpath, strerror(errno), missing);
		free(missing);
		return;
	}
	buildvar = xasprintf("BUILD=%s", paths.build);
	{
		const char *argv[] = { "make",
				       "-C",
				       paths.top,
				       "-s",
				       "--no-print-directory",
				       buildvar,
				       target,
				       k->make_vars[0],
				       k->make_vars[0] ? k->make_vars[1] : NULL,
				       NULL };

		s.argv = argv;
		s.in = -1;
		s.out = p[1];
		s.err = p[1];
		if (o->display != DISPLAY_QUIET)
			p_info("bringing the build up to date (make %s; log: %s)",
			       target, logpath);
		/* make's files are the clone's: made with the user's umask */
		old_umask = umask(user_umask);
		rc = proc_spawn(&s);
		umask(old_umask);
	}
	close(p[1]);
	while (rc >= 0 && (n = read(p[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n' && llen < sizeof(line) - 1) {
				line[llen++] = buf[i];
				continue;
			}
			if (buf[i] != '\n')
				continue;
			line[llen] = '\0';
			build_line(o, log, line, t0);
			snprintf(last, sizeof(last), "%s", line);
			llen = 0;
		}
	}
	close(p[0]);
	rc = rc < 0 ? -1 : proc_wait(rc);
	fclose(log);
	if (o->display == DISPLAY_TERM && last[0])
		printf("\r\033[K  %-8s %6s  %s\n", "build",
		       fmt_ms(now_ms() - t0, el, sizeof(el)),
		       rc ? "failed" : "up to date");
	if (rc) {
		char *missing = kernel_missing(k);

		/* make's last words name the step; what a run still lacks is
		 * said with it
		 */
		die("make %s failed (exit %d): %s%s%s (whole log: %s)", target,
		    rc, last[0] ? last : "no output",
		    *missing ? "; missing: " : "", missing, logpath);
	}
	if (o->display == DISPLAY_VERBOSE)
		p_info("build up to date in %s",
		       fmt_ms(now_ms() - t0, el, sizeof(el)));
	free(buildvar);
	free(logpath);
	free(target);
}

/* --- the run */

struct run_state {
	struct run_opts *o;
	struct kernel_info *k;
	char *work, *stage;
	int64_t t0, stage_t0;
	enum stage shown;
	char detail[512];
	FILE *campaign_events;
	int64_t armed_ms; /* when the guest said armed (0: never) */
	uint64_t dump_said; /* the dump's progress last said, in 16 MiB */
	long long fired_at_ms; /* wall clock of the first fire seen */
	char start_iso[32];
	long long start_epoch_ms;
	char *prog_in_run; /* "prog/NAME.bpf.o", or NULL */
	struct qmp qmp; /* QEMU's monitor, once opened (qmp_ready) */
	bool qmp_ready;
	double host_dump_s; /* how long the host's dump took, or < 0 */
	/* what the run record says of the guest, kept for a live dump's */
	const char *args, *accel, *hostfs_why, *restore_err;
	int live_dumps; /* how many bpk dump filed */
};

static struct run_state *cur;

/*
 * The run keeps the program of the user's own it ran: the object, and the
 * source bpk compiled it from, in its prog/ (run.json names the object).
 * A program that cannot be kept ends the run before the boot: a run that
 * does not say what fired it is no evidence.
 */
static void remove_tree(const char *dir);

static void keep_prog(const struct run_opts *o, struct run_state *r)
{
	char *dir, *obj, *src = NULL;

	if (!o->prog_obj)
		return;
	dir = path_join(r->stage, "prog");
	obj = xasprintf("%s/%s.bpf.o", dir, o->trigger);
	/* a source bpk compiled: kept too, beside its object */
	if (o->prog_compiled)
		src = xasprintf("%s/%s.bpf.c", dir, o->trigger);
	if (mkdir(dir, 0700) || copy_file_small(o->prog_obj, obj) ||
	    (src && copy_file_small(o->prog, src))) {
		int e = errno;

		/* nothing booted yet: nothing of the run to keep */
		remove_tree(r->work);
		remove_tree(r->stage);
		die("%s: cannot keep the program in the run: %s", dir,
		    strerror(e));
	}
	r->prog_in_run = xasprintf("prog/%s.bpf.o", o->trigger);
	free(dir);
	free(obj);
	free(src);
}

/* A stage's line at a terminal, drawn again in place until it is final. */
static bool line_open;

static void show_line(struct run_state *r, bool final)
{
	char el[32];

	fmt_ms(now_ms() - r->stage_t0, el, sizeof(el));
	switch (r->o->display) {
	case DISPLAY_TERM: {
		/* the detail may quote the guest (its panic line) */
		char shown[512];

		fprintf(stdout, "\r\033[K  %-8s %6s  %s", stage_name(r->shown),
			el,
			escape_into(shown, sizeof(shown), r->detail,
				    strlen(r->detail)));
		if (final)
			fputc('\n', stdout);
		line_open = !final;
		fflush(stdout);
		break;
	}
	default:
		break;
	}
}

/* A message at a terminal gets a line of its own, not the end of the
 * stage's line; the stage's line is drawn again at its next update.
 */
static void end_progress_line(void)
{
	if (line_open) {
		fputc('\n', stdout);
		fflush(stdout);
		line_open = false;
	}
}

static void on_stage(struct guest *g, enum stage s, const char *detail)
{
	struct run_state *r = g->hooks.data;
	bool changed = s != r->shown, say;
	char el[32];

	if (s == STAGE_BOOT && r->o->restore)
		detail =
			r->o->warm ?
				"QEMU restoring the idle snapshot (warm start)" :
				"QEMU restoring the snapshot";

	if (changed) {
		if (r->o->display == DISPLAY_TERM)
			show_line(r, true);
		r->shown = s;
		r->stage_t0 = now_ms();
	}
	/* not at a terminal: a line per stage, the fire's own words, and
	 * (verbose) the dump's progress every 16 MiB
	 */
	say = changed || (s == STAGE_FIRE && strcmp(r->detail, detail)) ||
	      (r->o->display == DISPLAY_VERBOSE && s == STAGE_DUMP &&
	       g->bytes[S_DUMP] / (16 << 20) != r->dump_said);
	if (s == STAGE_DUMP)
		r->dump_said = g->bytes[S_DUMP] / (16 << 20);
	snprintf(r->detail, sizeof(r->detail), "%s", detail ? detail : "");
	if (r->o->display == DISPLAY_TERM)
		show_line(r, false);
	else if (say && (r->o->display == DISPLAY_PLAIN ||
			 r->o->display == DISPLAY_VERBOSE))
		p_info("[%s] %s: %s", fmt_ms(now_ms() - r->t0, el, sizeof(el)),
		       stage_name(s), r->detail);
}

static void on_tick(struct guest *g)
{
	struct run_state *r = g->hooks.data;

	show_line(r, false);
}

static void on_state(struct guest *g, const char *line, size_t len)
{
	struct run_state *r = g->hooks.data;
	char shown[600];

	if (!r->armed_ms && !strcmp(g->progress.last_state, STATE_ARMED))
		r->armed_ms = now_ms();
	if (r->o->display == DISPLAY_VERBOSE)
		p_info("guest: %s",
		       escape_into(shown, sizeof(shown), line, len));
}

static long long epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void iso_time(long long ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void on_fired(struct guest *g)
{
	struct run_state *r = g->hooks.data;

	r->fired_at_ms = epoch_ms();
	/* a campaign stops its other attempts now, not when this one's
	 * report is done
	 */
	if (r->campaign_events) {
		fprintf(r->campaign_events, "fired %d %d\n", r->o->attempt,
			(int)getpid());
		fflush(r->campaign_events);
	}
}

/*
 * --stall: an NMI into every CPU (QEMU's inject-nmi on x86), which the
 * guest, booted with unknown_nmi_panic, takes to panic() and kdump from
 * wherever each CPU was, interrupts off or not.
 */
static struct qmp *run_qmp(struct guest *g, char *err, size_t errlen)
{
	struct run_state *r = g->hooks.data;

	if (!r->qmp_ready) {
		if (qmp_open(&r->qmp, g->qmp_fd, g->pidfd, err, errlen))
			return NULL;
		r->qmp_ready = true;
	}
	return &r->qmp;
}

static int on_stalled(struct guest *g, char *err, size_t errlen)
{
	struct qmp *q = run_qmp(g, err, errlen);

	if (!q || qmp_exec(q, "inject-nmi", NULL, NULL, err, errlen))
		return -1;
	return 0;
}

/* How long the host's dump may take: QEMU writes the guest's memory,
 * compressed, at some 100 MB/s under TCG; this bounds a stuck one.
 */
#define HOST_DUMP_MS (10 * 60 * 1000)

/*
 * The host's dump of the guest (QMP dump-guest-memory): kdump-compressed
 * (zlib), as the capture kernel's makedumpfile writes, with the vmcoreinfo
 * the guest kernel published to QEMU's vmcoreinfo device at boot (a
 * capture kernel does not overwrite it). QEMU 7.2 writes that form as a
 * flattened stream with a header that lacks the kernel's release;
 * host_dump_finish() (collector/hostdump.h) makes the vmcore of it. Zero
 * pages compress to almost nothing, so an idle 1 GiB guest is some tens of
 * MiB. QEMU writes to a file bpk opened (it may run as another user),
 * passed over the monitor; the guest is paused while QEMU copies it.
 *
 * QEMU writes the guest's memory into @fd (QMP getfd, then
 * dump-guest-memory detached, polled with query-dump): progress said every
 * 5 s, on stderr and to a bpk dump @client (-1: none). 0, or -1 with @err.
 */
static int qmp_dump(struct qmp *q, int fd, int client, char *err, size_t errlen)
{
	int64_t t0 = now_ms(), said = t0;
	char state[32];

	if (qmp_send_fd(q, "bpkdump", fd, err, errlen) ||
	    qmp_exec(
		    q, "dump-guest-memory",
		    "{\"paging\": false, \"protocol\": \"fd:bpkdump\", \"format\": \"kdump-zlib\", \"detach\": true}",
		    NULL, err, errlen))
		return -1;
	for (;;) {
		json_t *st = NULL;
		const char *s;
		long long done, total;

		if (qmp_exec(q, "query-dump", NULL, &st, err, errlen))
			return -1;
		s = json_string_value(json_object_get(st, "status"));
		snprintf(state, sizeof(state), "%s", s ? s : "");
		done = json_integer_value(json_object_get(st, "completed"));
		total = json_integer_value(json_object_get(st, "total"));
		json_decref(st);
		if (!strcmp(state, "completed"))
			return 0;
		if (strcmp(state, "active")) {
			snprintf(err, errlen, "QEMU's dump: status %s",
				 *state ? state : "none");
			return -1;
		}
		if (now_ms() - t0 > HOST_DUMP_MS) {
			snprintf(err, errlen, "QEMU's dump not done in %d s",
				 HOST_DUMP_MS / 1000);
			return -1;
		}
		if (now_ms() - said >= 5000) {
			p_info("the host's dump: %lld of %lld MiB", done >> 20,
			       total >> 20);
			if (client >= 0)
				livedump_say(
					client, "info",
					"the host's dump: %lld of %lld MiB",
					done >> 20, total >> 20);
			said = now_ms();
		}
		/* a dump of an idle guest takes about a second: polled
		 * finely, the wait adds little to it
		 */
		usleep(25 * 1000);
	}
}

/* --dump host: has QEMU paused the guest on its pvpanic report? */
static int on_panicked(struct guest *g, char *err, size_t errlen)
{
	struct qmp *q = run_qmp(g, err, errlen);
	json_t *st = NULL;
	const char *s;
	int rc;

	if (!q || qmp_exec(q, "query-status", NULL, &st, err, errlen))
		return -1;
	s = json_string_value(json_object_get(st, "status"));
	rc = s && !strcmp(s, "guest-panicked");
	json_decref(st);
	return rc;
}

static int on_capture_dead(struct guest *g, const char *why, char *err,
			   size_t errlen)
{
	struct run_state *r = g->hooks.data;
	struct qmp *q = run_qmp(g, err, errlen);
	char *path = path_join(g->staging, HOST_DUMP_FILE), el[32];
	int64_t t0 = now_ms();
	int fd, rc = -1;

	(void)why;
	if (!q) {
		free(path);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (!qmp_dump(q, fd, -1, err, errlen)) {
		r->host_dump_s = ms_to_s(now_ms() - t0);
		p_info("the host's dump taken in %s: %s",
		       fmt_ms(now_ms() - t0, el, sizeof(el)), path);
		rc = 0;
	}
	close(fd);
	free(path);
	return rc;
}

/* mkdir RUNS/<UTC time>-<trigger>-live, or -2, -3 ...: the run a live
 * dump is filed as. NULL with @err.
 */
static char *live_run_dir(const struct run_state *r, char *err, size_t errlen)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int i = 1; i < 1000; i++) {
		char *dir =
			i == 1 ? xasprintf("%s/%s-%s-%s", paths.runs, stamp,
					   r->o->trigger, LIVE_DUMP_SUFFIX) :
				 xasprintf("%s/%s-%s-%s-%d", paths.runs, stamp,
					   r->o->trigger, LIVE_DUMP_SUFFIX, i);

		if (!mkdir(dir, 0700))
			return dir;
		if (errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			free(dir);
			return NULL;
		}
		free(dir);
	}
	snprintf(err, errlen, "%s: too many runs in the same second",
		 paths.runs);
	return NULL;
}

static char *workload_name(const struct run_opts *o);

/* What the run record says of the trigger and the guest: the run's own
 * and its live dumps'.
 */
static void record_guest_facts(const struct run_state *r,
			       struct run_record *rec)
{
	const struct run_opts *o = r->o;
	const struct kernel_info *k = r->k;
	char *v = kernel_vmlinux_path(k), *w = workload_name(o);

	record_set(&rec->trigger.name, o->trigger);
	record_set(&rec->trigger.args, r->args);
	if (r->prog_in_run)
		record_set(&rec->trigger.prog, r->prog_in_run);
	record_set(&rec->guest.kernel_flavor, k->flavor);
	record_set(&rec->guest.kernel, k->name);
	record_set(&rec->guest.kernel_package, k->package);
	record_set(&rec->guest.kernel_release, k->release);
	record_set(&rec->guest.vmlinux, v);
	free(v);
	record_set(&rec->guest.mem, o->mem);
	rec->guest.smp = o->smp;
	record_set(&rec->guest.crashkernel, o->crashkernel);
	record_set(&rec->guest.accel, r->accel);
	rec->guest.destructive_sysctl = o->sysctl;
	rec->guest.panic_on_oops = o->panic_on_oops;
	rec->guest.panic_on_warn = o->panic_on_warn;
	record_set(&rec->guest.workload, w);
	free(w);
	if (r->hostfs_why) {
		char *h = xasprintf("on: %s", r->hostfs_why);

		record_set(&rec->guest.host_fs, h);
		free(h);
	} else {
		record_set(&rec->guest.host_fs, "off");
	}
	rec->guest.n_shares_ro = o->shares.n;
	rec->guest.shares_ro = xcalloc((size_t)o->shares.n + 1, sizeof(char *));
	for (int i = 0; i < o->shares.n; i++)
		rec->guest.shares_ro[i] = xstrdup(o->shares.v[i]);
	record_set(&rec->guest.share_rw, o->share_rw);
	record_set(&rec->guest.restored_from, o->restore);
	record_set(&rec->guest.restore_error,
		   r->restore_err ? r->restore_err : r->o->restore_failed);
	record_set(&rec->guest.cold_why, r->o->cold_why);
}

/*
 * bpk dump: the live guest's memory, copied by QEMU while the guest is
 * paused (stop, dump, cont: the pause is measured between the two), into
 * a run of its own beside this one, RUNS/<time>-<trigger>-live: its
 * vmcore and a record that says what it is (cause none, dump.path live).
 * This run goes on; bpk dump writes the report.
 */
static int64_t on_live_dump(struct guest *g, int client)
{
	struct run_state *r = g->hooks.data;
	char err[ERRLEN] = "", el[32], *stage = NULL, *vmcore = NULL;
	char *dir = NULL, *line = NULL, *tmpl, *flat = NULL, note[512] = "";
	int made = -1;
	struct run_record rec;
	struct qmp *q;
	struct stat st;
	int64_t t_stop = 0, paused = -1;
	int fd = -1;
	bool stopped = false;
	ssize_t n;
	char req[64];

	n = recv(client, req, sizeof(req) - 1, 0);
	if (n <= 0)
		return -1;
	req[n] = '\0';
	req[strcspn(req, "\n")] = '\0';
	if (strcmp(req, LIVE_DUMP_REQUEST)) {
		livedump_say(client, "error", "not a request bpk knows");
		return -1;
	}
	q = run_qmp(g, err, sizeof(err));
	if (!q)
		goto fail;
	tmpl = path_join(paths.runs, ".staging-live-XXXXXX");
	stage = mkdtemp(tmpl);
	if (!stage) {
		snprintf(err, sizeof(err), "%s: %s", tmpl, strerror(errno));
		free(tmpl);
		goto fail;
	}
	vmcore = path_join(stage, "vmcore");
	flat = path_join(stage, HOST_DUMP_FILE);
	fd = open(flat, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, sizeof(err), "%s: %s", flat, strerror(errno));
		goto fail;
	}
	p_info("bpk dump: the host takes a dump of the live guest, the guest paused for the copy");
	livedump_say(client, "info",
		     "the guest paused; QEMU copies its memory");
	if (qmp_exec(q, "stop", NULL, NULL, err, sizeof(err)))
		goto fail;
	stopped = true;
	t_stop = now_ms();
	if (qmp_dump(q, fd, client, err, sizeof(err)))
		goto fail;
	if (qmp_exec(q, "cont", NULL, NULL, err, sizeof(err)))
		goto fail;
	stopped = false;
	paused = now_ms() - t_stop;
	if (fsync(fd)) {
		snprintf(err, sizeof(err), "%s: %s", flat, strerror(errno));
		goto fail;
	}
	close(fd);
	fd = -1;
	/* the guest runs again while the stream becomes the vmcore */
	made = host_dump_finish(flat, vmcore,
				(uint64_t)(parse_size(r->o->mem) + DUMP_SLACK),
				r->k->image, note, sizeof(note));
	if (made < 0) {
		snprintf(err, sizeof(err), "the host's dump: %s", note);
		goto fail;
	}
	if (stat(vmcore, &st)) {
		snprintf(err, sizeof(err), "%s: %s", vmcore, strerror(errno));
		goto fail;
	}

	record_init(&rec);
	record_guest_facts(r, &rec);
	rec.status = RUN_SUCCESS;
	rec.qemu.exit = -1;
	record_set(&rec.qemu.stopped_why,
		   "still running: a dump of the live guest (bpk dump)");
	rec.cause.run = CAUSE_NONE;
	line = xasprintf(
		"a dump of the live guest (bpk dump) at %s into the run, stage %s; the run went on",
		fmt_ms(t_stop - g->started_ms, el, sizeof(el)),
		stage_name(g->stage));
	record_set(&rec.cause.detail, line);
	free(line);
	rec.dump.state = DUMP_COMPLETE;
	rec.dump.vmcore_bytes = (unsigned long long)st.st_size;
	record_set(&rec.dump.path, LIVE_DUMP_SUFFIX);
	line = xasprintf(
		"bpk dump: QEMU's dump-guest-memory of the running guest, paused %s for the copy%s%s",
		fmt_ms(paused, el, sizeof(el)), made > 0 ? "; " : "",
		made > 0 ? note : "");
	record_set(&rec.dump.path_why, line);
	free(line);
	rec.timings.dump = ms_to_s(paused);
	rec.timings.qemu_wall = ms_to_s(now_ms() - g->started_ms);
	dir = live_run_dir(r, err, sizeof(err));
	if (!dir) {
		record_free(&rec);
		goto fail;
	}
	record_set(&rec.id, strrchr(dir, '/') + 1);
	if (record_write(stage, &rec, err, sizeof(err)) || rename(stage, dir)) {
		if (!err[0])
			snprintf(err, sizeof(err), "%s: %s", dir,
				 strerror(errno));
		rmdir(dir);
		record_free(&rec);
		goto fail;
	}
	record_free(&rec);
	r->live_dumps++;
	p_info("bpk dump: a dump of the live guest filed in %s (%llu MiB; the guest paused %s)",
	       dir, (unsigned long long)st.st_size >> 20,
	       fmt_ms(paused, el, sizeof(el)));
	livedump_say(client, "ok", "%s %lld %llu", dir, (long long)paused,
		     (unsigned long long)st.st_size);
	free(dir);
	free(vmcore);
	free(flat);
	free(stage);
	return paused;
fail:
	if (stopped) {
		char err2[ERRLEN];

		paused = now_ms() - t_stop;
		/* the guest must not stay paused because a dump failed */
		if (qmp_exec(q, "cont", NULL, NULL, err2, sizeof(err2)))
			p_err("the guest stays paused: QMP cont: %s", err2);
	}
	if (fd >= 0)
		close(fd);
	p_err("bpk dump: %s%s%s", err,
	      stage ? "; what was written is kept in " : "",
	      stage ? stage : "");
	livedump_say(client, "error", "%s%s%s", err,
		     stage ? "; what was written is kept in " : "",
		     stage ? stage : "");
	free(vmcore);
	free(flat);
	free(stage);
	free(dir);
	return paused;
}

static void stage_direct(struct run_state *r, enum stage s, const char *detail)
{
	struct guest g = { .hooks = { .data = r } };

	on_stage(&g, s, detail);
}

/* keep_unfiled: the staging dir holds what the guest sent and could not be
 * filed: give it a findable name next to the runs, say where it is.
 */
static char *keep_unfiled(struct run_state *r)
{
	char stamp[32], *base, *dir, files[1024] = "";
	time_t t = time(NULL);
	struct tm tm;
	int n = 1;
	char *list_argv_dir;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	base = xasprintf("%s/%s-%s", paths.runs, stamp, r->o->trigger);
	dir = xasprintf("%s.unfiled", base);
	while (!access(dir, F_OK)) {
		free(dir);
		dir = xasprintf("%s-%d.unfiled", base, ++n);
	}
	if (rename(r->stage, dir)) {
		p_err("cannot rename %s to %s: %s", r->stage, dir,
		      strerror(errno));
		free(dir);
		dir = xstrdup(r->stage);
	}
	free(r->stage);
	r->stage = NULL;
	list_argv_dir = dir;
	{
		struct dirent **list;
		int k = scandir(list_argv_dir, &list, NULL, alphasort);
		size_t used = 0;

		for (int i = 0; i < k; i++) {
			if (list[i]->d_name[0] != '.' &&
			    used < sizeof(files) - 64)
				used += (size_t)snprintf(files + used,
							 sizeof(files) - used,
							 "%s%s",
							 used ? " " : "",
							 list[i]->d_name);
			free(list[i]);
		}
		if (k >= 0)
			free(list);
	}
	p_err("everything the guest sent is kept in %s (%s)", dir, files);
	free(base);
	return dir;
}

static bool staging_has_data(const char *stage)
{
	struct dirent **list;
	int n = scandir(stage, &list, NULL, NULL);
	bool data = false;

	for (int i = 0; i < n; i++) {
		struct stat st;
		char *p = path_join(stage, list[i]->d_name);

		if (list[i]->d_name[0] != '.' && !stat(p, &st) &&
		    S_ISREG(st.st_mode) && st.st_size > 0 &&
		    strcmp(list[i]->d_name, "qemu.log"))
			data = true;
		free(p);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	return data;
}

static void remove_tree(const char *dir)
{
	struct dirent **list;
	int n;

	if (!dir)
		return;
	n = scandir(dir, &list, NULL, NULL);
	for (int i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") &&
		    strcmp(list[i]->d_name, "..")) {
			char *p = path_join(dir, list[i]->d_name);

			if (is_dir(p))
				remove_tree(p);
			else
				unlink(p);
			free(p);
		}
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	rmdir(dir);
}

/* A signal that came before QEMU started: nothing to file yet. */
static void check_early_signal(struct run_state *r)
{
	sigset_t mask;
	struct timespec zero = { 0 };
	siginfo_t si;
	int sig;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sig = sigtimedwait(&mask, &si, &zero);
	if (sig <= 0)
		return;
	p_err("interrupted by SIG%s before the guest booted: nothing to file",
	      sigabbrev_np(sig));
	if (r->stage && !staging_has_data(r->stage))
		remove_tree(r->stage);
	remove_tree(r->work);
	if (r->o->campaign) {
		/* an attempt the campaign stopped before it booted never
		 * began: it leaves nothing to count
		 */
		char *adir = xasprintf("%s/attempts/%d", r->o->campaign,
				       r->o->attempt);
		char *files[] = { "run.out", "run.err", NULL };

		rmdir(paths.runs);
		for (int i = 0; files[i]; i++) {
			char *p = path_join(adir, files[i]);

			unlink(p);
			free(p);
		}
		rmdir(adir);
		free(adir);
		if (r->campaign_events) {
			fprintf(r->campaign_events, "end %d %d\n",
				r->o->attempt, (int)getpid());
			fflush(r->campaign_events);
		}
	}
	exit(128 + sig);
}

/* 32 bytes: the 256 bits the guest's generator needs credited to count as
 * seeded (a guest under TCG has few sources of its own)
 */
static char *random_hex(void)
{
	unsigned char b[32];
	char *hex = xmalloc(65);
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, b, sizeof(b)) != sizeof(b))
		die("/dev/urandom: %s", strerror(errno));
	close(fd);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	return hex;
}

/* The script that runs a -- CMD ARGS command line in the guest. */
static char *command_script(const struct strv *cmd)
{
	size_t n = 64;
	char *s, *o;

	for (int i = 0; i < cmd->n; i++)
		n += 4 * strlen(cmd->v[i]) + 4;
	s = o = xmalloc(n);
	o += sprintf(o, "#!/bin/sh\n# the command line given after --\nexec");
	for (int i = 0; i < cmd->n; i++) {
		*o++ = ' ';
		*o++ = '\'';
		for (const char *p = cmd->v[i]; *p; p++) {
			if (*p == '\'') {
				/* POSIX sh: ' becomes '\'' */
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = *p;
			}
		}
		*o++ = '\'';
	}
	*o++ = '\n';
	*o = '\0';
	return s;
}

/* The workload as run.json names it. */
/* A word as a POSIX shell reads it back: as it is when it is safe, else
 * in single quotes (a quote as '\'').
 */
static void shell_word(struct strv *out, const char *w)
{
	size_t n = strlen(w), o = 0;
	char *q;

	if (n &&
	    strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789@%+=:,./_-") == n) {
		strv_add(out, w);
		return;
	}
	q = xmalloc(4 * n + 3);
	q[o++] = '\'';
	for (const char *p = w; *p; p++) {
		if (*p == '\'') {
			memcpy(q + o, "'\\''", 4);
			o += 4;
		} else {
			q[o++] = *p;
		}
	}
	q[o++] = '\'';
	q[o] = '\0';
	strv_add(out, q);
	free(q);
}

/* The workload as run.json names it: the file's name, or the command
 * line after -- quoted so that its words can be told apart.
 */
static char *workload_name(const struct run_opts *o)
{
	if (o->command.n) {
		struct strv w = { 0 };
		size_t n = 3;
		char *s;

		for (int i = 0; i < o->command.n; i++)
			shell_word(&w, o->command.v[i]);
		for (int i = 0; i < w.n; i++)
			n += strlen(w.v[i]) + 1;
		s = xcalloc(1, n);
		strcpy(s, "--");
		for (int i = 0; i < w.n; i++) {
			strcat(s, " ");
			strcat(s, w.v[i]);
		}
		strv_free(&w);
		return s;
	}
	return xstrdup(strrchr(o->workload, '/') + 1);
}

/* Update a filed run's record: read, change, write whole. */
static int record_update(const char *dir,
			 void (*change)(struct run_record *, void *), void *arg)
{
	struct run_record rec;
	char err[ERRLEN];
	int rc = 0;

	if (record_read(dir, &rec, err, sizeof(err))) {
		p_err("%s", err);
		return -1;
	}
	change(&rec, arg);
	if (record_write(dir, &rec, err, sizeof(err))) {
		p_err("%s", err);
		rc = -1;
	}
	record_free(&rec);
	return rc;
}

static void mark_report_failed(struct run_record *rec, void *arg)
{
	const char *why = arg;
	char *reason;

	rec->report.state = REPORT_FAILED;
	record_set(&rec->report.error, why);
	if (rec->status == RUN_SUCCESS) {
		rec->status = RUN_FAILED;
		reason = xasprintf(
			"the report failed: %s (the vmcore itself is complete and verified)",
			why);
	} else {
		reason = xasprintf("%s; the report failed: %s", rec->reason,
				   why);
	}
	record_set(&rec->reason, reason);
	free(reason);
}

/* The report's cause.dump, read back from its report.json: the dump
 * decides, and the record says whether it agrees with the console.
 */
static void mark_report_written(struct run_record *rec, void *arg)
{
	json_t *j = report_json_load(arg);
	const char *dump = json_string_value(
		json_object_get(json_object_get(j, "cause"), "dump"));

	rec->report.state = REPORT_WRITTEN;
	if (dump && !cause_parse(dump, &rec->cause.dump))
		rec->cause.dump_known = true;
	json_decref(j);
}

static void mark_interrupted(struct run_record *rec, void *arg)
{
	const char *sig = ((const char **)arg)[0];
	const char *phase = ((const char **)arg)[1];
	char *reason;

	if (rec->status == RUN_INTERRUPTED)
		return;
	rec->status = RUN_INTERRUPTED;
	record_set(&rec->interrupted, sig);
	reason = xasprintf("interrupted by %s after the guest ended (%s)", sig,
			   phase);
	record_set(&rec->reason, reason);
	free(reason);
}

/* All of what @fd (a memfd) holds, NUL-terminated. */
static char *memfd_text(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *text;
	ssize_t n;

	if (size < 0)
		return xstrdup("");
	text = xmalloc((size_t)size + 1);
	n = pread(fd, text, (size_t)size, 0);
	text[n > 0 ? n : 0] = '\0';
	return text;
}

/* Run the analysis: report.py RUN (or one of its other forms). Its exit
 * status; what it said on stderr is passed on, its error line in *@why.
 */
static int run_report(struct run_state *r, const char *form, const char *dir,
		      char **why)
{
	char *script = path_join(paths.top, "analysis/report.py"), *text;
	int efd = memfd_create("report.err", MFD_CLOEXEC);
	int ofd = -1, rc;
	struct spawn s = { 0 };
	const char *argv[5];
	char *line = NULL;
	int n = 0;

	if (efd < 0)
		die("memfd_create: %s", strerror(errno));
	argv[n++] = "/usr/bin/python3";
	argv[n++] = script;
	if (form)
		argv[n++] = form;
	argv[n++] = dir;
	argv[n] = NULL;
	if (r->o->display == DISPLAY_PLAIN || r->o->display == DISPLAY_VERBOSE)
		ofd = 1;
	s.argv = argv;
	s.in = -1;
	s.out = ofd;
	s.err = efd;
	/* its own process group: a terminal's Ctrl-C reaches bpk alone,
	 * which lets the report finish, then files the run as interrupted
	 */
	s.new_group = true;
	rc = proc_wait(proc_spawn(&s));
	text = memfd_text(efd);
	close(efd);
	if (*text && r->o->display != DISPLAY_QUIET)
		fputs(text, stderr);
	line = strstr(text, "report.py: error: ");
	if (line) {
		line += strlen("report.py: error: ");
		line[strcspn(line, "\n")] = '\0';
	} else {
		line = last_line(text);
	}
	if (why)
		*why = xstrdup(*line ? line : "report.py said nothing");
	free(text);
	free(script);
	return rc;
}

int run_report_filed(const char *dir, enum display display)
{
	struct run_opts o;
	struct run_state r = { .o = &o, .host_dump_s = -1 };
	char *why = NULL;
	int rc;

	run_opts_init(&o);
	o.display = display;
	rc = run_report(&r, NULL, dir, &why);
	if (rc)
		record_update(dir, mark_report_failed, why);
	else
		record_update(dir, mark_report_written, (void *)dir);
	if (rc)
		p_err("the report of %s failed: %s", dir, why);
	free(why);
	return rc;
}

static int pending_signal(void)
{
	sigset_t mask;
	struct timespec zero = { 0 };
	siginfo_t si;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	return sigtimedwait(&mask, &si, &zero);
}

/* Open crash on the run's vmcore (at a terminal, after the report): the
 * report printed first when the run did not print it already (at a
 * terminal the run shows its stages, not the report).
 */
static void exec_crash(const char *dir, bool report_shown)
{
	char *argv[] = { "--no-report", (char *)dir, NULL };

	exit(do_crash(report_shown ? 2 : 1, report_shown ? argv : argv + 1));
}

/*
 * A campaign's attempt ends with its record, CAMPAIGN/attempts/N/
 * attempt.json: what the campaign tabulates, decided here where the run
 * is known whole. fired: the run holds a vmcore whose report says the
 * trigger took the machine down (the console alone can be lied to by a
 * task); ran-out: the workload
 * ended, or the timeout came, armed and unfired; stopped: the campaign
 * stopped it (a fire elsewhere, or a Ctrl-C); failed: anything else.
 */
static void attempt_finish(struct run_state *r, const struct guest *g,
			   const char *dir, int rc)
{
	const struct run_opts *o = r->o;
	char *adir, *path, *tmp, host[256] = "", end_iso[32], why[4096];
	const char *outcome;
	struct run_record rec;
	bool have_rec = false, vmcore = false;
	long long end_ms = epoch_ms();
	FILE *f;
	json_writer_t *w;

	if (!o->campaign)
		return;
	if (dir) {
		char err[1024], *vc = path_join(dir, "vmcore");

		have_rec = !record_read(dir, &rec, err, sizeof(err));
		vmcore = file_exists(vc);
		free(vc);
	}
	if (!have_rec) {
		outcome = "failed";
		snprintf(why, sizeof(why),
			 "bpk run exit %d, nothing filed (attempts/%d/run.err)",
			 rc, o->attempt);
	} else if (vmcore && rec.cause.dump_known &&
		   rec.cause.dump != CAUSE_TRIGGER) {
		/* the console may have said so; the dump did not */
		outcome = "failed";
		snprintf(
			why, sizeof(why),
			"a vmcore, but the dump says %s, not the trigger (the console said %s)",
			cause_name(rec.cause.dump), cause_name(rec.cause.run));
	} else if (vmcore && !rec.cause.dump_known) {
		/* only the dump confirms a fire: a winner is one it did */
		outcome = "failed";
		snprintf(
			why, sizeof(why),
			"a vmcore, but no report read its cause, so the fire is not confirmed (%s)",
			o->report ? "report.err" : "--no-report");
	} else if (vmcore) {
		outcome = "fired";
		snprintf(why, sizeof(why), "cause=%s dump=%s%s%s%s%s",
			 cause_name(rec.cause.run),
			 dump_state_name(rec.dump.state),
			 rec.status != RUN_SUCCESS ? ", filed as " : "",
			 rec.status != RUN_SUCCESS ?
				 run_status_name(rec.status) :
				 "",
			 rec.status != RUN_SUCCESS ? ": " : "",
			 rec.status != RUN_SUCCESS ? rec.reason : "");
	} else if (g->fired_seen) {
		outcome = "stopped";
		snprintf(
			why, sizeof(why),
			"it fired, then was stopped (%s) before the dump was whole: dump=%s (%s)",
			g->signum ? g->signame : "?",
			dump_state_name(rec.dump.state), rec.reason);
	} else if (!strcmp(rec.console.last_state, STATE_NOT_FIRED)) {
		outcome = "ran-out";
		snprintf(why, sizeof(why),
			 "the workload ended and the trigger did not fire");
	} else if (rec.qemu.exit == 124 &&
		   !strcmp(rec.console.last_state, STATE_ARMED)) {
		outcome = "ran-out";
		snprintf(why, sizeof(why), "armed, no fire within the timeout");
	} else if (g->signum || rec.status == RUN_INTERRUPTED) {
		outcome = "stopped";
		snprintf(why, sizeof(why),
			 "stopped by the campaign (%s) before it fired",
			 g->signum ? g->signame : rec.interrupted);
	} else {
		outcome = "failed";
		snprintf(why, sizeof(why), "%s", rec.reason);
	}
	gethostname(host, sizeof(host) - 1);
	iso_time(end_ms, end_iso, sizeof(end_iso));
	adir = xasprintf("%s/attempts/%d", o->campaign, o->attempt);
	path = path_join(adir, "attempt.json");
	tmp = path_join(adir, "attempt.json.tmp");
	f = fopen(tmp, "w");
	if (!f) {
		p_err("%s: %s", tmp, strerror(errno));
		goto out;
	}
	w = jw_new(f);
	jw_pretty(w, true);
	jw_start_object(w);
	jw_int_field(w, "attempt", o->attempt);
	jw_string_field(w, "host", host);
	jw_string_field(w, "mode", o->restore ? "snapshot" : "fresh");
	jw_string_field(w, "start", r->start_iso);
	jw_int_field(w, "start_ms", r->start_epoch_ms);
	jw_string_field(w, "end", end_iso);
	jw_int_field(w, "end_ms", end_ms);
	jw_seconds_field(w, "seconds",
			 (double)(end_ms - r->start_epoch_ms) / 1000);
	if (r->armed_ms)
		jw_seconds_field(w, "to_armed_s", ms_to_s(r->armed_ms - r->t0));
	else
		jw_null_field(w, "to_armed_s");
	if (!strcmp(outcome, "fired"))
		jw_int_field(w, "fired_at_ms",
			     r->fired_at_ms ? r->fired_at_ms : end_ms);
	else
		jw_null_field(w, "fired_at_ms");
	jw_string_field(w, "outcome", outcome);
	jw_string_field(w, "cause", have_rec ? cause_name(rec.cause.run) : "");
	jw_string_field(w, "run", dir ? dir : "");
	jw_string_field(w, "reason", why);
	jw_int_field(w, "exit", rc);
	/* a matrix's attempts differ by their kernel */
	jw_string_field(w, "kernel", o->kernel);
	jw_string_field(w, "release",
			have_rec && rec.guest.kernel_release ?
				rec.guest.kernel_release :
				NULL);
	jw_end_object(w);
	jw_destroy(&w);
	if (fclose(f) || rename(tmp, path))
		p_err("%s: %s", path, strerror(errno));
	print_line(stderr, "campaign: attempt %d: %s after %.1fs: %s%s%s%s",
		   o->attempt, outcome,
		   (double)(end_ms - r->start_epoch_ms) / 1000, why,
		   dir ? " (" : "", dir ? dir : "", dir ? ")" : "");
out:
	if (r->campaign_events) {
		fprintf(r->campaign_events, "end %d %d\n", o->attempt,
			(int)getpid());
		fflush(r->campaign_events);
	}
	if (have_rec)
		record_free(&rec);
	free(adir);
	free(path);
	free(tmp);
}

/* A campaign's attempt writes what it says into its own dir. */
static void attempt_redirect(const struct run_opts *o)
{
	char *adir, *out, *err;

	if (!o->campaign)
		return;
	adir = xasprintf("%s/attempts/%d", o->campaign, o->attempt);
	if (mkdir_p(adir, 0700))
		die("%s: %s", adir, strerror(errno));
	out = path_join(adir, "run.out");
	err = path_join(adir, "run.err");
	fflush(stdout);
	fflush(stderr);
	if (!freopen(out, "a", stdout) || !freopen(err, "a", stderr))
		die("%s: %s", out, strerror(errno));
	setvbuf(stderr, NULL, _IOLBF, 0);
	free(adir);
	free(out);
	free(err);
}

/*
 * The runs dir must hold what the guest may send before the guest is
 * started: a dump as large as its memory, and each log at its cap. A run
 * that fills the disk halfway loses the dump it was for; one refused here
 * loses nothing.
 */
static void check_room(const struct run_opts *o)
{
	unsigned long long need, avail;
	struct statvfs v;

	need = (unsigned long long)parse_size(o->mem) +
	       3ULL * (unsigned long long)o->log_cap + (1ULL << 20);
	if (statvfs(paths.runs, &v))
		usage_error("%s: %s", paths.runs, strerror(errno));
	/* what a write by this user may use: root may use the reserve */
	avail = (unsigned long long)(geteuid() ? v.f_bavail : v.f_bfree) *
		v.f_frsize;
	if (avail < need)
		usage_error(
			"%s: %llu MiB free, a run may need %llu MiB (guest memory %s + 3 logs of up to %lld MiB): make room, or --runs elsewhere, or a smaller --mem / --log-cap",
			paths.runs, avail >> 20, need >> 20, o->mem,
			o->log_cap >> 20);
}

void run_caps(struct guest *g, long long mem, long long log_cap)
{
	g->cap[S_CONSOLE] = g->cap[S_RESULTS] = g->cap[S_DMESG] =
		g->cap[S_WORKLOAD] = (uint64_t)log_cap;
	/* the capture step's record is a few lines */
	g->cap[S_STATUS] = 1 << 20;
	g->cap[S_DUMP] = (uint64_t)(mem + DUMP_SLACK);
}

/* What the guest is told of @o, on its command line when it boots
 * (guest_cmdline) or over the control port when it is restored
 * (control_header), each taking its own part; @args: the trigger's
 * "k=v k=v".
 */
static void guest_params_of(const struct run_opts *o, const char *args,
			    struct guest_params *gp)
{
	gp->trigger = o->trigger;
	gp->args = args;
	gp->repeat = o->repeat;
	gp->dry = o->dry_run;
	gp->capture_append = o->capture_append;
	gp->kexec_checks = o->kexec_checks;
	gp->append = o->append;
	gp->sysctl = o->sysctl;
	gp->reservation_check = o->reservation_check;
	gp->panic_on_oops = o->panic_on_oops;
	gp->panic_on_warn = o->panic_on_warn;
	gp->panic_softlockup = o->panic_softlockup;
	gp->panic_hung = o->panic_hung;
	gp->panic_rcu = o->panic_rcu;
	gp->nmi_panic = o->stall_s > 0;
	gp->dump_host = o->dump_host;
	gp->crashkernel = o->crashkernel;
	gp->attempt = o->attempt;
}

int run_execute(struct run_opts *o, struct kernel_info *k, char **run_dir)
{
	struct run_state r = { .o = o, .k = k, .host_dump_s = -1 };
	struct guest g = { 0 };
	struct qemu_setup q = { 0 };
	struct guest_params gp = { 0 };
	struct run_record rec;
	struct collect_in ci = { 0 };
	struct strv extra = { 0 }, shares = { 0 };
	struct cpio *cpio;
	struct snapshot_meta snap = { 0 };
	double restore_s = RECORD_NO_TIME;
	char *restore_err = NULL;
	char err[ERRLEN], *cmdline = NULL, *piece, *initrd, *args;
	char *workload_text = NULL, *hostfs_why = NULL, *dir = NULL;
	size_t workload_len = 0, prog_len = 0;
	char *prog_bytes = NULL;
	const char *accel;
	int rc, qrc, state_fd = -1;
	enum collect_result crc;
	char el[32];
	sigset_t mask;

	cur = &r;
	*run_dir = NULL;
	if (o->display == DISPLAY_TERM)
		before_message = end_progress_line;
	r.t0 = r.stage_t0 = now_ms();
	r.start_epoch_ms = epoch_ms();
	iso_time(r.start_epoch_ms, r.start_iso, sizeof(r.start_iso));
	r.shown = STAGE_PREPARE;
	umask(077);
	/* the signals go through the loop's signalfd; before the boot, a
	 * pending one ends the run with nothing to file
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	validate_after_build(o, k);
	accel = qemu_accel(o->accel, k->image);
	args = strv_join(&o->targs, " ");
	r.accel = accel;
	r.args = args;
	if (mkdir_p(paths.runs, 0700))
		usage_error("cannot create the runs dir %s: %s", paths.runs,
			    strerror(errno));
	check_room(o);
	/* after every check of bad input: making the snapshot is a boot */
	warm_choose(o, k);
	if (o->warm)
		check_restore(o, k, accel, args);
	{
		const char *tmp = getenv("TMPDIR");
		char *tmpl = xasprintf("%s/bpk-run-XXXXXX",
				       tmp && *tmp ? tmp : "/tmp");

		r.work = mkdtemp(tmpl);
		if (!r.work)
			usage_error("cannot make a temporary dir in %s: %s",
				    tmp && *tmp ? tmp : "/tmp",
				    strerror(errno));
		tmpl = xasprintf("%s/.staging-XXXXXX", paths.runs);
		r.stage = mkdtemp(tmpl);
		if (!r.stage) {
			int e = errno;

			remove_tree(r.work);
			usage_error("cannot make a staging dir under %s: %s",
				    paths.runs, strerror(e));
		}
		keep_prog(o, &r);
		if (o->restore_failed_stage) {
			/* QEMU's words on the failed warm start */
			char *from =
				path_join(o->restore_failed_stage, "qemu.log");
			char *to = path_join(r.stage, "restore-qemu.log");

			if (file_exists(from) && rename(from, to))
				p_err("%s: %s", to, strerror(errno));
			remove_tree(o->restore_failed_stage);
			o->restore_failed_stage = NULL;
			free(from);
			free(to);
		}
	}
	if (o->campaign) {
		char *fifo = path_join(o->campaign, "events");
		int fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

		/* no reader: the campaign is gone; the attempt still runs */
		if (fd >= 0)
			r.campaign_events = fdopen(fd, "w");
		if (r.campaign_events) {
			fprintf(r.campaign_events, "start %d %d\n", o->attempt,
				(int)getpid());
			fflush(r.campaign_events);
		}
		free(fifo);
	}
	stage_direct(&r, STAGE_PREPARE, "the guest's image and command line");

	/* --- the run's own image piece: the workload (and the host view) */
	if (o->command.n) {
		workload_text = command_script(&o->command);
		workload_len = strlen(workload_text);
		if (o->host_fs == HOSTFS_AUTO)
			hostfs_why = xstrdup(
				"a command line given after -- (the host's programs, as vng runs them)");
	} else {
		workload_text =
			read_file(o->workload, 1ULL << 30, &workload_len);
		if (!workload_text)
			usage_error("workload %s: %s", o->workload,
				    strerror(errno));
	}
	/* a restored guest gets its own program with the control message */
	if (o->prog_obj && o->restore) {
		prog_bytes = read_file(o->prog_obj, 64 << 20, &prog_len);
		if (!prog_bytes || !prog_len)
			die("%s: %s", o->prog_obj,
			    prog_bytes ? "empty" : strerror(errno));
	}
	if (o->host_fs == HOSTFS_ON && !hostfs_why)
		hostfs_why = xstrdup("asked for (--host-fs on)");
	else if (o->host_fs == HOSTFS_AUTO && !hostfs_why && !o->command.n)
		hostfs_why = hostfs_needed(o->workload);
	if (!hostfs_why && (o->shares.n || o->share_rw))
		hostfs_why = xstrdup("shares were given");
	if (o->host_fs == HOSTFS_OFF) {
		free(hostfs_why);
		hostfs_why = NULL;
	}
	if (hostfs_why && k->no_hostfs)
		usage_error(
			"the workload needs the host's file system over 9p (%s), which the %s kernel cannot mount: %s",
			hostfs_why, k->spec, k->no_hostfs);
	if (o->restore) {
		if (snapshot_meta_read(o->restore, &snap, err, sizeof(err)))
			usage_error("--restore %s: %s", o->restore, err);
		initrd = path_join(o->restore, "initrd");
		cmdline = xstrdup(snap.append);
		/* the snapshot's image holds the host view: its QEMU the
		 * same shares, which the guest mounts once restored
		 */
		if (snap.hostview && hostfs_why) {
			p_info("the workload runs in the host's user space (%s): the host's /usr over virtio 9p, read-only",
			       hostfs_why);
			hostfs_specs(o, &shares);
		}
	} else {
		piece = path_join(r.work, "run.cpio.gz");
		cpio = cpio_open(piece, err, sizeof(err));
		if (!cpio)
			die("%s", err);
		cpio_add_dir(cpio, "etc", 0755);
		cpio_add_dir(cpio, "etc/bpk", 0755);
		cpio_add_data(cpio, "etc/bpk/workload", 0755, workload_text,
			      workload_len);
		if (o->prog_obj) {
			char *in = xasprintf("%s/%s.bpf.o", USERPROG_DIR + 1,
					     o->trigger);

			/* triggerctl finds the trigger there by its name */
			cpio_add_dir(cpio, USERPROG_DIR + 1, 0755);
			cpio_add_path(cpio, in, o->prog_obj);
			free(in);
		}
		if (hostfs_why && hostfs_setup(o, hostfs_why, cpio, &shares))
			die("the host view could not be made");
		if (cpio_close(cpio, err, sizeof(err)))
			die("%s", err);
		initrd = path_join(r.work, "initrd.cpio.gz");
		/* readable by QEMU's user through the fd it is given; the work
		 * dir (0700) keeps everyone else out
		 */
		if (concat_files(initrd, k->root_img, piece, 0644, err,
				 sizeof(err)))
			die("%s", err);
		free(piece);
		guest_params_of(o, args, &gp);
		gp.preinit = k->preinit || hostfs_why;
		cmdline = guest_cmdline(&gp);
	}
	/* --- the guest */
	r.hostfs_why = hostfs_why;
	g.staging = r.stage;
	g.timeout_s = o->timeout;
	run_caps(&g, parse_size(o->mem), o->log_cap);
	g.tick_ms = o->display == DISPLAY_TERM ? 250 : 0;
	g.hooks = (struct guest_hooks){ .stage = on_stage,
					.tick = on_tick,
					.state = on_state,
					.fired = on_fired,
					.stalled = on_stalled,
					.capture_dead = on_capture_dead,
					.panicked = on_panicked,
					.live_dump = on_live_dump,
					.data = &r };
	g.control = o->restore != NULL;
	/* restores, --stall's NMI, the host's dump */
	g.qmp = true;
	g.stall_s = o->stall_s;
	g.dump_host = o->dump_host;
	g.kvm = !strcmp(accel, "kvm");
	if (guest_prepare(&g))
		die("the guest could not be set up");
	if (hostfs_virtfs(&g, &shares, &extra))
		die("the host view could not be shared");
	for (int i = 0; i < o->qemu_args.n; i++)
		strv_add(&extra, o->qemu_args.v[i]);
	if (o->restore) {
		char *sc = path_join(o->restore, "console.log");
		char *sr = path_join(o->restore, "results.txt");

		if (guest_replay(&g, sc, sr))
			die("the snapshot %s is not whole", o->restore);
		/* the snapshot's boot goes in front of the console and the
		 * guest log: the files stay within --log-cap with it
		 */
		{
			const char *const boot[] = { sc, sr };
			const int sid[] = { S_CONSOLE, S_RESULTS };
			struct stat st;

			for (int i = 0; i < 2; i++)
				if (!stat(boot[i], &st))
					g.before[sid[i]] = (uint64_t)st.st_size;
		}
		free(sc);
		free(sr);
	}
	if (o->restore) {
		char *state = path_join(o->restore, "state");

		state_fd = open(state, O_RDONLY | O_CLOEXEC);
		if (state_fd < 0)
			die("%s: %s", state, strerror(errno));
		g.keep_extra = state_fd;
		free(state);
		/* the snapshot's RAM, a private copy mapped privately: the
		 * cached file is never QEMU's to write
		 */
		q.ram_file = guest_pass_copy(&g, snap.ram);
		if (!q.ram_file)
			die("the snapshot's RAM cannot be used");
		q.ram_shared = false;
		q.incoming = true;
	}
	q.accel = accel;
	q.mem = o->mem;
	q.dump_host = o->dump_host;
	q.smp = o->smp;
	q.kernel_image = guest_pass_file(&g, k->image, false, false);
	q.initrd = guest_pass_file(&g, initrd, false, false);
	if (!q.kernel_image || !q.initrd)
		die("the kernel or the initramfs cannot be given to QEMU");
	q.append = cmdline;
	q.name = r.stage;
	q.extra = &extra;
	qemu_argv(&q, &g, &g.qemu_argv);
	check_early_signal(&r);
	if (guest_start(&g))
		die("QEMU could not be started");
	if (state_fd >= 0)
		close(state_fd);
	if (o->restore) {
		char *seed = random_hex(), *hdr;

		guest_params_of(o, args, &gp);
		struct qmp *q = run_qmp(&g, err, sizeof(err));

		if (!q || snapshot_restore(q, g.keep_extra, &restore_s, err,
					   sizeof(err))) {
			restore_err = xstrdup(err);
			p_err("the restore failed: %s", err);
			guest_stop(&g, 1, "the restore failed");
		} else {
			/* the clock as the control message leaves */
			gp.host_time = (long long)(epoch_ms() / 1000);
			gp.prog_size = prog_len;
			hdr = control_header(&gp, seed, workload_len);
			guest_control_send(&g, hdr, strlen(hdr));
			guest_control_send(&g, workload_text, workload_len);
			/* an own program follows the workload (bpk-lib.sh) */
			if (prog_len)
				guest_control_send(&g, prog_bytes, prog_len);
			free(hdr);
		}
		free(seed);
	}
	qrc = guest_supervise(&g);
	if (g.exit == 124 || g.exit == 125 || g.signum)
		p_info("QEMU stopped: %s", g.stopped_why ? g.stopped_why : "?");
	if (qrc != 0 && g.qemu_err[0] && !g.signum && qrc != 124 &&
	    qrc != 125) {
		char shown[1100];

		p_err("QEMU exited with status %d: %s", qrc,
		      escape_into(shown, sizeof(shown), g.qemu_err,
				  strlen(g.qemu_err)));
	}
	guest_cleanup(&g);
	{
		/* QEMU's own words, kept with the run when it said any */
		char *ql = path_join(r.stage, "qemu.log");
		struct stat st;

		if (!stat(ql, &st) && !st.st_size)
			unlink(ql);
		free(ql);
	}
	if (restore_err && o->warm && !g.signum) {
		/* the warm start failed before the guest ran: boot instead,
		 * keeping QEMU's words on the failure with the run
		 */
		p_err("booting cold: the restore of %s failed", o->restore);
		remove_tree(r.work);
		o->restore_failed = restore_err;
		o->restore_failed_stage = r.stage;
		o->cold_why = xasprintf("the restore of %s failed: %s",
					o->restore, restore_err);
		o->restore = NULL;
		o->warm = false;
		snapshot_meta_free(&snap);
		free(args);
		free(cmdline);
		free(initrd);
		free(workload_text);
		free(prog_bytes);
		free(hostfs_why);
		strv_free(&extra);
		strv_free(&shares);
		return run_execute(o, k, run_dir);
	}
	if (o->restore) {
		/* a restored run's console and guest log begin with the
		 * snapshot's boot
		 */
		snapshot_prepend_boot(o->restore, r.stage);
	}
	remove_tree(r.work);
	r.work = NULL;

	/* --- filing */
	stage_direct(&r, STAGE_COLLECT, "verifying and filing the dump");
	record_init(&rec);
	r.restore_err = restore_err;
	record_guest_facts(&r, &rec);
	rec.qemu.exit = qrc;
	record_set(&rec.qemu.stopped_why, g.stopped_why);
	if (g.stall_why[0])
		record_set(&rec.qemu.stall, g.stall_why);
	if (g.stall_nmi_ms)
		rec.qemu.nmi_injected_ms = g.stall_nmi_ms - g.started_ms;
	rec.timings.qemu_wall = ms_to_s(g.ended_ms - g.started_ms);
	if (r.armed_ms)
		rec.timings.start_to_armed = ms_to_s(r.armed_ms - g.started_ms);
	if (o->attempt)
		rec.campaign.attempt = o->attempt;
	if (o->restore)
		rec.timings.restore = restore_s;
	ci.staging = r.stage;
	ci.runs = paths.runs;
	ci.trigger = o->trigger;
	ci.dry_run = o->dry_run;
	ci.interrupted = g.signum ? g.signame : NULL;
	ci.max_dump = (unsigned long long)(parse_size(o->mem) + DUMP_SLACK);
	ci.progress = &g.progress;
	ci.nmi_injected = g.stall_nmi_ms != 0;
	ci.host_dump_why = g.host_dumped ? g.host_dump_why : NULL;
	ci.capture_died = !o->dump_host && g.host_dump_why[0] != '\0';
	ci.down_ms = g.down_ms;
	ci.pvpanicked = g.pvpanicked;
	ci.kernel_image = k->image;
	for (int i = 0; i < S_NSTREAMS; i++) {
		if (!g.capped[i])
			continue;
		rec.capped = xrealloc(rec.capped, (size_t)(rec.n_capped + 2) *
							  sizeof(char *));
		rec.capped[rec.n_capped++] = xasprintf(
			"%s: %llu bytes kept of %llu the guest sent%s",
			stream_name(i), (unsigned long long)g.cap[i],
			(unsigned long long)(g.bytes[i] + g.before[i]),
			i == S_DUMP ?
				" (past its memory + slack: QEMU stopped)" :
				"");
		rec.capped[rec.n_capped] = NULL;
	}
	crc = collect_run(&ci, &rec, &dir, err, sizeof(err));
	if (crc == COLLECT_UNFILED || crc == COLLECT_BAD_INPUT || !dir) {
		p_err("%s", err);
		if (r.o->display == DISPLAY_TERM)
			show_line(&r, true);
		keep_unfiled(&r);
		attempt_finish(&r, &g, NULL, EXIT_UNFILED);
		if (r.campaign_events)
			fclose(r.campaign_events);
		return EXIT_UNFILED;
	}
	free(r.stage);
	r.stage = NULL;
	if (err[0] && crc == COLLECT_SUCCESS)
		p_info("%s", err);
	else if (err[0] && !g.signum)
		p_err("%s", err);
	stage_direct(&r, STAGE_COLLECT, dir);
	*run_dir = dir;

	if (o->dry_run) {
		/* what the guest said of its trigger's status */
		char *log = path_join(dir, "guest.log");
		char *text = read_file(log, 64 << 20, NULL);

		for (char *l = text ? strtok(text, "\n") : NULL; l;
		     l = strtok(NULL, "\n"))
			if (!strncmp(l, STATE_PREFIX, strlen(STATE_PREFIX)) ||
			    !strncmp(l, "bpk:", 4) || strstr(l, " matches") ||
			    strstr(l, " record")) {
				char shown[600];

				fprintf(stderr, "%s\n",
					escape_into(shown, sizeof(shown), l,
						    strlen(l)));
			}
		free(text);
		free(log);
	}

	/* --- the report, whenever there is a vmcore to read (a run can
	 * fail and still hold a verified dump, e.g. when only vmcore-dmesg
	 * failed)
	 */
	rc = crc == COLLECT_SUCCESS ? EXIT_OK : EXIT_FAILED;
	{
		char *vmcore = path_join(dir, "vmcore");
		bool have = file_exists(vmcore), final = false;
		int sig;

		free(vmcore);
		if (o->report && !g.signum && have) {
			char *why = NULL;
			int rrc;

			char ferr[ERRLEN];
			char *v = kernel_vmlinux_path(k);

			/* a Debian kernel's debug package comes now, said
			 * before the download; the report says it if it
			 * could not
			 */
			if (kernel_fetch_vmlinux(v, ferr, sizeof(ferr)))
				p_err("%s", ferr);
			free(v);
			stage_direct(&r, STAGE_REPORT,
				     "crash and drgn reading the vmcore");
			/* report.json is written with the record as it is
			 * filed after a report that worked: one report
			 * process, no --refresh after it
			 */
			rrc = run_report(&r, "--as-filed", dir, &why);
			if (rrc) {
				record_update(dir, mark_report_failed, why);
				p_err("run filed as failed in %s: the report failed: %s",
				      dir, why);
				rc = EXIT_FAILED;
			} else {
				final = !record_update(dir, mark_report_written,
						       dir);
			}
			free(why);
		}
		sig = pending_signal();
		if (sig > 0 && !g.signum) {
			const char *phase = r.shown == STAGE_REPORT ? "report" :
								      "collect";
			const char *a[2];

			g.signum = sig;
			snprintf(g.signame, sizeof(g.signame), "SIG%s",
				 sigabbrev_np(sig));
			a[0] = g.signame;
			a[1] = phase;
			p_info("interrupted by %s: finishing what is under way, then stopping",
			       g.signame);
			record_update(dir, mark_interrupted, a);
			final = false;
		}
		if (o->report) {
			char *rj = path_join(dir, "report.json");

			if (!file_exists(rj)) {
				if (run_report(&r, "--run-only", dir, NULL))
					p_err("could not write %s", rj);
			} else if (!final &&
				   run_report(&r, "--refresh", dir, NULL)) {
				p_err("could not bring %s up to date with run.json",
				      rj);
			}
			free(rj);
		}
	}
	if (r.o->display == DISPLAY_TERM)
		show_line(&r, true);
	attempt_finish(&r, &g, dir, g.signum ? 128 + g.signum : rc);
	if (r.campaign_events)
		fclose(r.campaign_events);
	if (g.signum) {
		p_err("interrupted by %s: run filed as interrupted in %s",
		      g.signame, dir);
		return 128 + g.signum;
	}
	{
		struct run_record fin;
		char ferr[ERRLEN];

		if (!record_read(dir, &fin, ferr, sizeof(ferr))) {
			fmt_ms(now_ms() - r.t0, el, sizeof(el));
			if (o->display == DISPLAY_TERM) {
				printf("run filed: %s (%s, cause %s, %s)\n",
				       dir, run_status_name(fin.status),
				       cause_name(fin.cause.run), el);
				printf("  bpk show %s | bpk crash last | bpk drgn last\n",
				       fin.id);
			} else if (o->display == DISPLAY_QUIET) {
				printf("%s\n", dir);
			} else if (rc == EXIT_OK) {
				p_info("run filed: %s", dir);
			}
			record_free(&fin);
		}
	}
	if (rc == EXIT_OK && o->report && !o->dry_run && o->open_crash &&
	    isatty(0) && isatty(1))
		exec_crash(dir, o->display == DISPLAY_PLAIN ||
					o->display == DISPLAY_VERBOSE);
	free(args);
	free(cmdline);
	free(workload_text);
	free(prog_bytes);
	free(hostfs_why);
	strv_free(&extra);
	strv_free(&shares);
	return rc;
}

/*
 * --restore auto:armed | auto:unarmed: this machine's snapshot for the
 * run, made here the first time. A campaign's attempts on other machines
 * (--sshlogin) get it so: a snapshot's path is this machine's.
 */
static void restore_auto(struct run_opts *o)
{
	struct snapshot_req req = { 0 };
	char err[2048], *dir, *args;

	if (!o->restore || strncmp(o->restore, "auto", 4))
		return;
	if (strcmp(o->restore, "auto:armed") &&
	    strcmp(o->restore, "auto:unarmed"))
		usage_error(
			"--restore '%s': a snapshot dir, auto:armed or auto:unarmed",
			o->restore);
	args = strv_join(&o->targs, " ");
	req.mem = o->mem;
	req.smp = o->smp;
	req.accel = o->accel;
	req.quiet = true;
	if (!strcmp(o->restore, "auto:armed")) {
		req.trigger = o->trigger;
		req.args = args;
	}
	if (snapshot_get(&req, &dir, err, sizeof(err)))
		die("no snapshot on this machine: %s", err);
	o->restore = dir;
	free(args);
}

int do_run(int argc, char **argv)
{
	struct run_opts o;
	struct kernel_info k;
	char *dir = NULL;
	int rc;

	run_opts_init(&o);
	run_opts_parse(&o, argc, argv, "run");
	if (o.campaign && !o.attempt)
		usage_error("--campaign needs --attempt N");
	attempt_redirect(&o);
	restore_auto(&o);
	run_validate(&o, &k);
	run_build(&o, &k);
	run_reservation(&o, &k);
	rc = run_execute(&o, &k, &dir);
	free(dir);
	return rc;
}

static void usage_demo(void)
{
	printf("usage: bpk demo [--kernel ours|debian|debian:RELEASE|PATH] [-q|-v] [--runs DIR] [--timeout S] [--crash]\n"
	       "\n"
	       "The demo run: trigger syscall_errno syscall=openat errno=ENOENT\n"
	       "comm=bpk-demo, fired by triggers/examples/syscall_errno.sh. Options and\n"
	       "exit status as bpk run.\n");
}

int do_demo(int argc, char **argv)
{
	struct strv a = { 0 };
	int rc;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_demo();
			return 0;
		}
		if (!strcmp(argv[i], "--kernel") ||
		    !strcmp(argv[i], "--runs") ||
		    !strcmp(argv[i], "--timeout")) {
			if (i + 1 >= argc || !*argv[i + 1])
				usage_error(
					"%s needs a value (bpk demo --help)",
					argv[i]);
			strv_add(&a, argv[i]);
			strv_add(&a, argv[++i]);
		} else if (!strcmp(argv[i], "-q") ||
			   !strcmp(argv[i], "--quiet") ||
			   !strcmp(argv[i], "-v") ||
			   !strcmp(argv[i], "--verbose") ||
			   !strcmp(argv[i], "--crash") ||
			   !strcmp(argv[i], "--no-build")) {
			strv_add(&a, argv[i]);
		} else {
			usage_error(
				"demo: unknown argument '%s' (bpk demo --help)",
				argv[i]);
		}
	}
	{
		struct strv full = { 0 };
		char *wl = path_join(paths.top,
				     "triggers/examples/syscall_errno.sh");

		strv_add(&full, "syscall_errno");
		strv_add(&full, "syscall=openat");
		strv_add(&full, "errno=ENOENT");
		strv_add(&full, "comm=bpk-demo");
		strv_add(&full, "--workload");
		strv_add(&full, wl);
		for (int i = 0; i < a.n; i++)
			strv_add(&full, a.v[i]);
		rc = do_run(full.n, strv_argv(&full));
		strv_free(&full);
		free(wl);
	}
	strv_free(&a);
	return rc;
}
