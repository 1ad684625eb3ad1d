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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

		if (xdg && *xdg)
			cache = xasprintf("%s/bpf-panic-kdump", xdg);
		else if (home && *home)
			cache = xasprintf("%s/.cache/bpf-panic-kdump", home);
		else
			cache = xstrdup("/tmp/bpf-panic-kdump-cache");
	}
	paths.cache = env_or("BPK_CACHE", cache);
	paths.reservations = env_or("BPK_RESERVATIONS",
				    path_join(paths.cache, "reservations"));
	if (runs_opt)
		paths.runs = xstrdup(runs_opt);
	else
		paths.runs = env_or("BPK_RUNS",
				    runs ? runs : path_join(top, "runs"));
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
