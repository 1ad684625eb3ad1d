// SPDX-License-Identifier: GPL-2.0
/*
 * Where the clone, its build, the cache and the runs are, and the defaults
 * every verb shares. One place decides each, so that make, the run, the
 * campaign and the analysis agree:
 *
 *   clone    the installed copy's share/bpk/bpk.conf (make install writes
 *            it), else the clone this binary was built in
 *   build    $BUILD, else the config's, else CLONE/build
 *   cache    $BPK_CACHE, else the config's, else
 *            $XDG_CACHE_HOME/bpf-panic-kdump, else ~/.cache/bpf-panic-kdump
 *   runs     --runs, else $BPK_RUNS, else the config's, else CLONE/runs
 *   reservations  $BPK_RESERVATIONS, else CACHE/reservations: what was
 *            measured on this machine, kept apart from what was downloaded
 *   accel    $BPK_ACCEL, else auto
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpk.h"
#include "proc.h"

#ifndef BPK_TOP
#error "BPK_TOP (the clone's path) must be defined by the build"
#endif
#ifndef BPK_BUILD
#error "BPK_BUILD (the build dir's path) must be defined by the build"
#endif

struct bpk_paths paths;

/* @key's value in the key=value config text, or NULL (the last one wins,
 * as an edited file appends).
 */
static char *conf_get(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *found = NULL, *line = text;
	size_t flen = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > klen && !strncmp(line, key, klen) &&
		    line[klen] == '=') {
			found = line + klen + 1;
			flen = len - klen - 1;
		}
		line = nl ? nl + 1 : NULL;
	}
	return found ? strndup(found, flen) : NULL;
}

/* The config file of an installed copy: $BPK_CONF, else
 * <prefix>/share/bpk/bpk.conf beside <prefix>/bin/bpk.
 */
static char *conf_path(void)
{
	char exe[4096], *slash;
	ssize_t n;

	if (getenv("BPK_CONF") && *getenv("BPK_CONF"))
		return xstrdup(getenv("BPK_CONF"));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return xasprintf("%s/../share/bpk/bpk.conf", exe);
}

/* ROOT/include of ROOT/share/bpk/bpk.conf, or NULL */
static char *sdk_dir(const char *conf)
{
	char *real = realpath(conf, NULL), *dir = NULL;

	for (int up = 0; real && up < 3; up++) {
		char *slash = strrchr(real, '/');

		if (!slash || slash == real)
			break;
		*slash = '\0';
		if (up == 2)
			dir = path_join(real, "include");
	}
	free(real);
	return dir;
}

static char *env_or(const char *name, char *fallback)
{
	const char *v = getenv(name);

	if (v && *v) {
		free(fallback);
		return xstrdup(v);
	}
	return fallback;
}

/*
 * The cache holds programs bpk runs (kernels, the analysis toolbox, compiled
 * triggers): one that another user owns, or that others may write to, is
 * refused rather than used. A runs dir others may write to (and no sticky
 * bit) could have its runs replaced under the user: refused too. Reading
 * runs another user made is fine. Nothing is checked where nothing exists
 * yet: bpk makes it, as this user.
 */
static void check_owner(const char *dir, const char *what, bool owner_too)
{
	struct stat st;

	if (!dir || stat(dir, &st))
		return;
	if (owner_too && st.st_uid != geteuid() && st.st_uid != 0)
		die("%s %s is owned by uid %u, not by you (uid %u) or root: it holds programs bpk runs; use a cache of your own",
		    what, dir, (unsigned)st.st_uid, (unsigned)geteuid());
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		die("%s %s can be written by others (mode %04o): chmod go-w %s",
		    what, dir, (unsigned)(st.st_mode & 07777), dir);
}

void config_load(const char *runs_opt)
{
	char *conf = conf_path(), *text = NULL;
	char *top = NULL, *build = NULL, *cache = NULL, *runs = NULL;

	if (conf && file_exists(conf)) {
		text = read_file(conf, 1 << 16, NULL);
		if (!text)
			die("%s: %s", conf, strerror(errno));
		top = conf_get(text, "top");
		build = conf_get(text, "build");
		cache = conf_get(text, "cache");
		runs = conf_get(text, "runs");
		paths.version = conf_get(text, "version");
		paths.installed = true;
		/* make install puts the SDK at ROOT/include, the conf at
		 * ROOT/share/bpk/bpk.conf
		 */
		paths.sdk = sdk_dir(conf);
		if (!top || !is_dir(top))
			die("%s: top=%s is not the appliance's clone: reinstall with make install",
			    conf, top ? top : "(none)");
	} else if (getenv("BPK_CONF") && *getenv("BPK_CONF")) {
		die("BPK_CONF=%s: %s", getenv("BPK_CONF"), strerror(ENOENT));
	}
	if (!top)
		top = xstrdup(BPK_TOP);
	if (!is_dir(top))
		die("cannot find the appliance: %s (where this bpk was built) is gone, and there is no installed config %s",
		    top, conf ? conf : "(none)");
	paths.top = top;
	paths.build = env_or("BUILD", build ? build : xstrdup(BPK_BUILD));
	if (!cache) {
		const char *xdg = getenv("XDG_CACHE_HOME");
		const char *home = getenv("HOME");
		struct passwd *pw;

		if (xdg && *xdg) {
			cache = xasprintf("%s/bpf-panic-kdump", xdg);
		} else if (home && *home) {
			cache = xasprintf("%s/.cache/bpf-panic-kdump", home);
		} else if ((pw = getpwuid(geteuid())) && pw->pw_dir &&
			   *pw->pw_dir) {
			/* never a shared, guessable path such as /tmp's: the
			 * cache holds programs bpk runs
			 */
			cache = xasprintf("%s/.cache/bpf-panic-kdump",
					  pw->pw_dir);
		} else if (!getenv("BPK_CACHE") || !*getenv("BPK_CACHE")) {
			die("no cache directory: HOME is not set and uid %u has no home; set BPK_CACHE",
			    (unsigned)geteuid());
		}
	}
	paths.cache = env_or("BPK_CACHE", cache);
	check_owner(paths.cache, "the cache (BPK_CACHE)", true);
	/* make and the scripts bpk starts find the same cache */
	if (setenv("BPK_CACHE", paths.cache, 1))
		die("setenv: %s", strerror(errno));
	paths.reservations = env_or("BPK_RESERVATIONS",
				    path_join(paths.cache, "reservations"));
	if (runs_opt)
		paths.runs = xstrdup(runs_opt);
	else
		paths.runs = env_or("BPK_RUNS",
				    runs ? runs : path_join(top, "runs"));
	/* a run is named by its whole path wherever it is printed or
	 * recorded: a campaign's attempt starts in the campaign's runs dir
	 * and is given a relative one
	 */
	if (paths.runs[0] != '/') {
		char cwd[4096];

		if (!getcwd(cwd, sizeof(cwd)))
			die("the current directory: %s", strerror(errno));
		{
			char *abs = path_join(cwd, paths.runs);

			free(paths.runs);
			paths.runs = abs;
		}
	}
	check_owner(paths.runs, "the runs dir", false);
	free(text);
	free(conf);
}

const char *config_accel(void)
{
	const char *a = getenv("BPK_ACCEL");

	return a && *a ? a : "auto";
}

const char *bpk_version(void)
{
	static char *version;
	char *safe;
	int rc;

	if (paths.version && *paths.version)
		return paths.version;
	if (version)
		return *version ? version : "unknown";
	/* a copy in the clone: what the clone is now, as git says. The clone
	 * may belong to another user (root built it, anyone runs it): git
	 * then refuses to read it unless told the directory is safe.
	 */
	safe = xasprintf("safe.directory=%s", paths.top);
	{
		const char *argv[] = { "git",	 "-c",	     safe,
				       "-C",	 paths.top,  "describe",
				       "--tags", "--always", "--dirty",
				       NULL };

		rc = proc_capture(argv, &version, NULL);
	}
	free(safe);
	if (rc || !version) {
		/* asked once: "unknown" from now on */
		free(version);
		version = xstrdup("");
	}
	version[strcspn(version, "\n")] = '\0';
	return *version ? version : "unknown";
}
