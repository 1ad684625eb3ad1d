// SPDX-License-Identifier: GPL-2.0
/*
 * triggerctl: arm BPF triggers that dump the kernel when something happens.
 *
 *   triggerctl list                     triggers, their parameters (host too)
 *   triggerctl check                    can a trigger fire into a crash kernel?
 *   triggerctl parse NAME [key=value...] check arguments only (host too)
 *   triggerctl arm NAME [key=value...]  load, attach and pin; stays armed
 *   triggerctl arm --check-fd FD NAME ... check's report to FD first, then
 *                                       arm (one process: the guest's arming
 *                                       is timed)
 *   triggerctl arm --dump-host NAME ... no crash kernel: the host dumps the
 *                                       guest, told by pvpanic (bpk run
 *                                       --dump host)
 *   triggerctl status [NAME]            armed triggers, matches, fire records
 *   triggerctl disarm NAME              detach and unpin
 *   triggerctl rearm NAME               load it again with the same arguments
 *   triggerctl reseed HEX [EPOCH]       the host's bytes into the kernel's
 *                                       generator, reseeded, and the host's
 *                                       clock (a restored guest)
 *
 * NAME is a trigger of the table, or a run's own program: the BPF object
 * USERPROG_DIR/NAME.bpf.o (bpk run --prog), read as its trigger.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>

#include "arm.h"
#include "describe.h"
#include "fire.h"
#include "params.h"
#include "preflight.h"
#include "reseed.h"
#include "sysctl.h"
#include "table.h"
#include "userprog.h"

#define ERRLEN 512

static int usage(void)
{
	fprintf(stderr,
		"usage: triggerctl list | check | parse NAME [key=value ...] | "
		"arm [--check-fd FD] [--dump-host] NAME [key=value ...] | status [NAME] | disarm NAME | "
		"rearm NAME | reseed HEX [EPOCH]\n");
	return 2;
}

static int cmd_list(void)
{
	describe_table(stdout);
	return 0;
}

static int cmd_check(void)
{
	struct preflight p;

	preflight_probe(&p);
	return preflight_report(&p);
}

/* The table's trigger @name, or NULL after saying it is unknown. */
static const struct trigger_def *known_trigger(const char *name)
{
	const struct trigger_def *t = trigger_find(name);

	if (!t)
		fprintf(stderr,
			"triggerctl: unknown trigger '%s' (triggerctl list)\n",
			name);
	return t;
}

/* Find trigger @name and check its arguments; 0, or 2 after a message. */
static int parse(const char *name, int argc, char **argv, struct arm_args *a)
{
	const struct trigger_def *t = known_trigger(name);
	char err[ERRLEN];

	if (!t)
		return 2;
	if (args_parse(t, argc, argv, a, err, sizeof(err))) {
		fprintf(stderr, "triggerctl: %s\n", err);
		return 2;
	}
	return 0;
}

static int cmd_parse(const char *name, int argc, char **argv)
{
	struct arm_args a;
	char desc[512];

	if (parse(name, argc, argv, &a))
		return 2;
	printf("%s %s\n", name, args_describe(&a, desc, sizeof(desc)));
	return 0;
}

static int cmd_arm(const char *name, int argc, char **argv, int report_fd,
		   bool dump_host)
{
	struct arm_args a;
	struct preflight p;
	char err[ERRLEN], desc[512];
	unsigned int action;

	if (parse(name, argc, argv, &a))
		return 2;
	preflight_probe(&p);
	/* the report's own status is check's: arming decides below. Out
	 * on its own fd before arming, which may end the guest.
	 */
	if (report_fd >= 0) {
		int saved = dup(STDOUT_FILENO);

		fflush(stdout);
		if (saved < 0 || dup2(report_fd, STDOUT_FILENO) < 0) {
			fprintf(stderr, "triggerctl: --check-fd %d: %s\n",
				report_fd, strerror(errno));
			return 2;
		}
		(void)preflight_report(&p);
		fflush(stdout);
		if (dup2(saved, STDOUT_FILENO) < 0) {
			fprintf(stderr, "triggerctl: stdout: %s\n",
				strerror(errno));
			return 2;
		}
		close(saved);
	}
	if (a.dry_run) {
		action = FIRE_NONE;
	} else if (dump_host) {
		char why[256];

		action = args_get(&a, "action")->num ?
				 (unsigned int)args_get(&a, "action")->num :
				 p.action;
		if (!preflight_host_dump_usable(&p, action, why, sizeof(why))) {
			fprintf(stderr,
				"triggerctl: refusing to arm %s for the host's dump (action %s): %s\n",
				name, action_name(action), why);
			return 1;
		}
		if (!preflight_action_usable(&p, action, why, sizeof(why))) {
			fprintf(stderr,
				"triggerctl: refusing to arm %s with action=%s: %s (triggerctl check)\n",
				name, action_name(action), why);
			return 1;
		}
	} else if (!p.crash_loaded) {
		fprintf(stderr,
			"triggerctl: refusing to arm %s: no crash kernel is loaded "
			"(a panic would lose the evidence; kexec -p first, or dry_run)\n",
			name);
		return 1;
	} else if (args_get(&a, "action")->num) {
		char why[256];

		action = (unsigned int)args_get(&a, "action")->num;
		if (!preflight_action_usable(&p, action, why, sizeof(why))) {
			fprintf(stderr,
				"triggerctl: refusing to arm %s with action=%s: %s (triggerctl check)\n",
				name, action_name(action), why);
			return 1;
		}
	} else if (p.action == FIRE_NONE) {
		fprintf(stderr,
			"triggerctl: refusing to arm %s: no fire action available "
			"(triggerctl check)\n",
			name);
		return 1;
	} else {
		action = p.action;
	}
	if (trigger_arm(&a, action, err, sizeof(err))) {
		fprintf(stderr, "triggerctl: %s\n", err);
		return 1;
	}
	printf("armed %s (%s) %s\n", name,
	       a.dry_run ? "dry run" : action_name(action),
	       args_describe(&a, desc, sizeof(desc)));
	return 0;
}

/* Why a fire action came back instead of taking the machine down. */
static const char *refusal_reason(const struct trigger_state *s)
{
	if (s->fire.action == FIRE_CRASH_KEXEC)
		return "crash_kexec returned: no crash kernel loaded, or kernel.destructive_bpf_enabled was switched off since it was armed";
	if (s->refused_ret == -EPERM)
		return "EPERM: kernel.destructive_bpf_enabled was switched off since it was armed";
	if (s->refused_ret == -EBUSY)
		return "EBUSY: this CPU is already panicking";
	return strerror((int)-s->refused_ret);
}

static int show_one(const char *name)
{
	const struct trigger_def *t;
	struct trigger_state s;
	char maps[256], dir[256], saved[SYSCTL_VALUE_LEN];
	int err = trigger_read_state(name, &s);

	if (err) {
		fprintf(stderr, "triggerctl: %s: not armed or unreadable: %s\n",
			name, strerror(-err));
		return 1;
	}
	printf("%s matches=%llu fired=%s refused=%llu\n", name,
	       (unsigned long long)s.matches,
	       memcmp(s.fire.magic, FIRE_MAGIC, 8) ? "no" : "yes",
	       (unsigned long long)s.refused);
	if (!memcmp(s.fire.magic, FIRE_MAGIC, 8))
		printf("%s record: trigger=%.32s hit=%llu pid=%u tgid=%u comm=%.16s cpu=%u action=%s %.128s\n",
		       name, s.fire.trigger, (unsigned long long)s.fire.hits,
		       s.fire.pid, s.fire.tgid, s.fire.comm, s.fire.cpu,
		       action_name(s.fire.action), s.fire.detail);
	if (s.refused && s.refused_ret == -EPERM &&
	    s.fire.action != FIRE_CRASH_KEXEC)
		printf("%s refused: the fire action came back %llu time(s), last with %lld (%s); it stays disarmed until it is loaded again (triggerctl rearm %s)\n",
		       name, (unsigned long long)s.refused,
		       (long long)s.refused_ret, refusal_reason(&s), name);
	else if (s.refused)
		printf("%s refused: the fire action came back %llu time(s), last with %lld (%s); it tries again on the next match\n",
		       name, (unsigned long long)s.refused,
		       (long long)s.refused_ret, refusal_reason(&s));
	/* the trigger's own maps and their entries: a leak shows here */
	if (!trigger_map_counts(name, maps, sizeof(maps)) && maps[0])
		printf("%s maps: %s\n", name, maps);
	snprintf(dir, sizeof(dir), "%s/%s", PIN_ROOT, name);
	t = trigger_find(name);
	if (t && t->sysctl_path && !sysctl_saved(dir, saved, sizeof(saved)))
		printf("%s sysctl: %s was %s, disarm puts it back\n", name,
		       t->sysctl_path, saved);
	return 0;
}

static int cmd_status(const char *only)
{
	struct dirent *de;
	DIR *d;
	int rc = 0, n = 0;

	if (only && !known_trigger(only))
		return 2;
	if (only)
		return show_one(only);
	d = opendir(PIN_ROOT);
	if (!d) {
		if (errno == ENOENT) {
			printf("no trigger armed\n");
			return 0;
		}
		fprintf(stderr, "triggerctl: %s: %s\n", PIN_ROOT,
			strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		rc |= show_one(de->d_name);
		n++;
	}
	closedir(d);
	if (!n)
		printf("no trigger armed\n");
	return rc;
}

static int cmd_disarm(const char *name)
{
	int err;

	/* a trigger's name, never a path: disarm empties a directory */
	if (!known_trigger(name))
		return 2;
	err = trigger_disarm(name);
	if (err) {
		fprintf(stderr, "triggerctl: disarm %s: %s\n", name,
			err == -ENOENT ? "not armed" : strerror(-err));
		return 1;
	}
	printf("disarmed %s\n", name);
	return 0;
}

/*
 * Load an armed trigger again with the arguments it was armed with: the
 * only way to re-arm one after kernel.destructive_bpf_enabled was switched
 * off, which disarms every program loaded before for good.
 */
static int cmd_rearm(const char *name)
{
	char blob[ARGS_BLOB_LEN], *words[MAX_ARGS + 1];
	struct preflight p;
	int n = 0, err;

	if (!known_trigger(name))
		return 2;
	err = trigger_saved_args(name, blob, sizeof(blob));
	if (err) {
		fprintf(stderr, "triggerctl: rearm %s: %s\n", name,
			err == -ENOENT ? "not armed" : strerror(-err));
		return 1;
	}
	for (char *w = blob; *w && n < MAX_ARGS; w += strlen(w) + 1)
		words[n++] = w;
	words[n] = NULL;
	err = trigger_disarm(name);
	if (err) {
		fprintf(stderr, "triggerctl: rearm %s: disarm: %s\n", name,
			strerror(-err));
		return 1;
	}
	/* armed for the host's dump if that is how the guest is set up */
	preflight_probe(&p);
	return cmd_arm(name, n, words, -1, !p.crash_loaded && p.pvpanic[0]);
}

/*
 * A name that is not in the table: the run's own program, when bpk put one
 * of that name in the guest. 0, or 2 after saying why it cannot be used.
 */
static int own_program(const char *name)
{
	char path[256], err[ERRLEN];

	if (trigger_find(name) || !userprog_name_ok(name))
		return 0;
	snprintf(path, sizeof(path), "%s/%s.bpf.o", USERPROG_DIR, name);
	if (access(path, F_OK))
		return 0;
	if (userprog_load(path, name, NULL, err, sizeof(err))) {
		fprintf(stderr, "triggerctl: %s\n", err);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "reseed") && (argc == 3 || argc == 4)) {
		char err[ERRLEN];

		if (reseed_from_hex(argv[2], err, sizeof(err)) ||
		    (argc == 4 && clock_from_host(argv[3], err, sizeof(err)))) {
			fprintf(stderr, "triggerctl: %s\n", err);
			return 1;
		}
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "list") && strcmp(argv[1], "check") &&
	    own_program(argv[2]))
		return 2;
	if (!strcmp(argv[1], "list") && argc == 2)
		return cmd_list();
	if (!strcmp(argv[1], "check") && argc == 2)
		return cmd_check();
	if (!strcmp(argv[1], "parse") && argc >= 3)
		return cmd_parse(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "arm")) {
		bool dump_host = false;
		long fd = -1;
		int i = 2;

		for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
			char *end;

			if (!strcmp(argv[i], "--dump-host")) {
				dump_host = true;
				continue;
			}
			if (strcmp(argv[i], "--check-fd") || i + 1 >= argc)
				return usage();
			fd = strtol(argv[++i], &end, 10);
			if (*end || end == argv[i] || fd < 0 || fd > 1023) {
				fprintf(stderr,
					"triggerctl: --check-fd '%s' is not a file descriptor\n",
					argv[i]);
				return 2;
			}
		}
		if (i >= argc)
			return usage();
		return own_program(argv[i]) ?
			       2 :
			       cmd_arm(argv[i], argc - i - 1, argv + i + 1,
				       (int)fd, dump_host);
	}
	if (!strcmp(argv[1], "status") && argc <= 3)
		return cmd_status(argc == 3 ? argv[2] : NULL);
	if (!strcmp(argv[1], "disarm") && argc == 3)
		return cmd_disarm(argv[2]);
	if (!strcmp(argv[1], "rearm") && argc == 3)
		return cmd_rearm(argv[2]);
	return usage();
}
