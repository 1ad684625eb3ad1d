// SPDX-License-Identifier: GPL-2.0
/* Armed snapshots: see snapshot.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpk.h"
#include "digest.h"
#include "hostfs.h"
#include "image.h"
#include "kernels.h"
#include "protocol.h"
#include "qemu.h"
#include "qmp.h"
#include "snapshot.h"
#include "proc.h"
#include "run.h"
#include "supervise.h"

/* Bump when what a snapshot holds changes in a way the key does not see. */
#define SNAPSHOT_FORMAT "bpk-snapshot-3"
#define SNAPSHOT_BOOT_TIMEOUT 120
#define MIGRATE_WAIT_MS 60000

/* The kernel @req names, resolved already or now into @own. */
static const struct kernel_info *snapshot_kernel(const struct snapshot_req *req,
						 struct kernel_info *own)
{
	if (req->k)
		return req->k;
	kernel_resolve(req->kernel ? req->kernel : "ours", own);
	return own;
}

static char *snapshot_append(const struct snapshot_req *req,
			     const struct kernel_info *k)
{
	struct guest_params p = { 0 };

	p.control = true;
	p.trigger = req->trigger;
	p.args = req->args;
	p.repeat = -1;
	p.sysctl = p.reservation_check = true;
	p.crashkernel = k->default_crashkernel;
	/* a kernel whose drivers are modules loads them first; the host view
	 * is the preinit's, mounted after the restore
	 */
	p.preinit = k->preinit || req->hostview;
	return guest_cmdline(&p);
}

/* QEMU's argv for a snapshot guest with every fd and path a placeholder:
 * the device list a restore must match, for the key.
 */
static char *device_list(const struct snapshot_req *req, const char *accel,
			 const char *append)
{
	struct guest g = { 0 };
	struct qemu_setup q = { 0 };
	struct strv a = { 0 };
	size_t n = 1;
	char *s;

	for (int i = 0; i < S_NSTREAMS; i++)
		g.qemu_fd[i] = 0;
	g.qemu_control_fd = g.qemu_qmp_fd = 0;
	q.accel = accel;
	q.mem = req->mem;
	q.smp = req->smp;
	q.kernel_image = q.initrd = q.name = q.ram_file = "-";
	q.append = append;
	q.ram_shared = true;
	qemu_argv(&q, &g, &a);
	for (int i = 0; i < a.n; i++)
		n += strlen(a.v[i]) + 1;
	s = xcalloc(1, n);
	for (int i = 0; i < a.n; i++) {
		strcat(s, a.v[i]);
		strcat(s, "\n");
	}
	strv_free(&a);
	return s;
}

/*
 * The host view's piece of the image, into @path, and its shares into
 * @specs: what a hostview snapshot boots with besides the root image. Its
 * bytes are the same while the host's /etc files it copies are. 0, or -1
 * with the reason in @err.
 */
static int hostview_piece(const char *path, const struct run_opts *shares,
			  struct strv *specs, char *err, size_t errlen)
{
	struct cpio *c = cpio_open(path, err, errlen);

	if (!c)
		return -1;
	if (cpio_add_dir(c, "etc", 0755) || cpio_add_dir(c, "etc/bpk", 0755) ||
	    hostfs_setup(shares, NULL, c, specs)) {
		cpio_close(c, err, errlen);
		snprintf(err, errlen, "%s: the host view could not be made",
			 path);
		return -1;
	}
	return cpio_close(c, err, errlen);
}

/* The piece made beside the snapshots, for the key (NULL: no host view). */
static char *hostview_temp(const struct snapshot_req *req, struct strv *specs,
			   char *err, size_t errlen)
{
	char *dir = path_join(paths.cache, "snapshot"), *piece;
	int fd;

	if (!req->hostview) {
		free(dir);
		return NULL;
	}
	if (mkdir_p(dir, 0700)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	piece = xasprintf("%s/.hostview-XXXXXX", dir);
	free(dir);
	fd = mkstemp(piece);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", piece, strerror(errno));
		free(piece);
		return NULL;
	}
	close(fd);
	if (hostview_piece(piece, req->shares, specs, err, errlen)) {
		unlink(piece);
		free(piece);
		return NULL;
	}
	return piece;
}

static char *snapshot_key(const struct snapshot_req *req,
			  const struct kernel_info *k, const char *accel,
			  const char *append, const char *piece,
			  const struct strv *specs)
{
	struct digest *d = digest_new();
	char key[17], *devices = device_list(req, accel, append);

	digest_add_str(d, SNAPSHOT_FORMAT);
	if (digest_add_file(d, k->image))
		die("%s: %s", k->image, strerror(errno));
	if (digest_add_file(d, k->root_img))
		die("%s: %s", k->root_img, strerror(errno));
	digest_add_str(d, qemu_version());
	digest_add_str(d, devices);
	if (req->hostview) {
		/* the shares QEMU gets, and what the image holds of them */
		digest_add_str(d, "hostview");
		for (int i = 0; i < specs->n; i++)
			digest_add_str(d, specs->v[i]);
		if (digest_add_file(d, piece))
			die("%s: %s", piece, strerror(errno));
	}
	digest_end(d, key, 16);
	free(devices);
	return xstrdup(key);
}

char *snapshot_dir(const struct snapshot_req *req)
{
	struct kernel_info own;
	const struct kernel_info *k;
	const char *accel;
	char *append, *key, *dir, *piece = NULL;
	struct strv specs = { 0 };

	k = snapshot_kernel(req, &own);
	if (!file_exists(k->image) || !file_exists(k->root_img))
		usage_error("not built: %s", kernel_missing(k));
	accel = qemu_accel(req->accel, k->image);
	append = snapshot_append(req, k);
	if (req->hostview) {
		char err[1024];

		piece = hostview_temp(req, &specs, err, sizeof(err));
		if (!piece)
			die("%s", err);
	}
	key = snapshot_key(req, k, accel, append, piece, &specs);
	dir = xasprintf("%s/snapshot/%s", paths.cache, key);
	if (piece)
		unlink(piece);
	free(piece);
	strv_free(&specs);
	free(key);
	free(append);
	return dir;
}

static char *jstr(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? xstrdup(v) : NULL;
}

/* A snapshot's RAM file, once saved, is ours and read-only: QEMU's user
 * wrote it while the snapshot's guest ran, and every later attempt starts
 * from it (restores get a private copy, guest_pass_copy()).
 */
static int ram_seal(const char *ram, char *err, size_t errlen)
{
	int fd = open(ram, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fchown(fd, geteuid(), getegid()) || fchmod(fd, 0400)) {
		snprintf(err, errlen, "%s: cannot take it back from QEMU: %s",
			 ram, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* 0 if @ram is a sealed RAM file: a regular file of ours that nobody may
 * write; -1 with the reason in @err.
 */
static int ram_sealed(const char *ram, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(ram, &st)) {
		snprintf(err, errlen, "%s: %s", ram, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0222)) {
		snprintf(
			err, errlen,
			"%s: not a read-only file of uid %u (uid %u, mode %04o): another user or a QEMU could have written it",
			ram, (unsigned)geteuid(), (unsigned)st.st_uid,
			(unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int snapshot_meta_read(const char *dir, struct snapshot_meta *m, char *err,
		       size_t errlen)
{
	char *path = path_join(dir, "snapshot.json"),
	     *ok = path_join(dir, "ok");
	json_error_t je;
	json_t *j;
	int rc = -1;

	memset(m, 0, sizeof(*m));
	if (!file_exists(ok)) {
		snprintf(err, errlen,
			 "not a snapshot made by bpk snapshot (no %s)", ok);
		goto out;
	}
	j = json_load_file(path, 0, &je);
	if (!j) {
		snprintf(err, errlen, "%s: %s", path, je.text);
		goto out;
	}
	m->key = jstr(j, "key");
	m->mem = jstr(j, "mem");
	m->crashkernel = jstr(j, "crashkernel");
	m->accel = jstr(j, "accel");
	m->trigger = jstr(j, "trigger");
	m->args = jstr(j, "args");
	m->kernel = jstr(j, "kernel");
	m->append = jstr(j, "append");
	m->smp = (int)json_integer_value(json_object_get(j, "smp"));
	m->hostview = json_is_true(json_object_get(j, "hostview"));
	m->ram = path_join(dir, "ram");
	json_decref(j);
	if (ram_sealed(m->ram, err, errlen)) {
		snapshot_meta_free(m);
		goto out;
	}
	if (!m->mem || !m->crashkernel || !m->accel || !m->kernel ||
	    !m->append || !m->smp) {
		snprintf(err, errlen, "%s: a field is missing", path);
		snapshot_meta_free(m);
		goto out;
	}
	if (!m->trigger)
		m->trigger = xstrdup("");
	if (!m->args)
		m->args = xstrdup("");
	rc = 0;
out:
	free(path);
	free(ok);
	return rc;
}

/* @path's mtime, or -1 */
static long long mtime_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_mtime;
}

/* A host dir the snapshot's QEMU exports that is no longer a dir, into
 * @gone: true if there is one.
 */
static bool gone_share(json_t *meta, char *gone, size_t len)
{
	json_t *shares = json_object_get(meta, "shares"), *v;
	size_t i;

	json_array_foreach(shares, i, v)
	{
		const char *path = json_string_value(v);

		if (path && !is_dir(path)) {
			snprintf(gone, len, "%s", path);
			return true;
		}
	}
	return false;
}

int snapshot_stale(const char *dir, const char *kernel_entry, char *why,
		   size_t len)
{
	/* where our kernel's builds are cached, by their inputs */
	char *builds = xasprintf("%s/kernel/", paths.cache);
	char *ok = path_join(dir, "ok"),
	     *meta = path_join(dir, "snapshot.json");
	const char *format, *qemu, *kernel, *root;
	char gone[PATH_MAX];
	long long made = mtime_of(ok), kt, rt;
	json_t *j = NULL;
	json_error_t je;
	int stale = 1;

	if (made < 0) {
		snprintf(why, len, "not whole (no ok file)");
		goto out;
	}
	j = json_load_file(meta, 0, &je);
	if (!j) {
		snprintf(why, len, "snapshot.json: %s", je.text);
		goto out;
	}
	format = json_string_value(json_object_get(j, "format"));
	qemu = json_string_value(json_object_get(j, "qemu"));
	kernel = json_string_value(json_object_get(j, "kernel"));
	root = json_string_value(json_object_get(j, "root"));
	kt = kernel ? mtime_of(kernel) : -1;
	rt = root ? mtime_of(root) : -1;
	if (!format || strcmp(format, SNAPSHOT_FORMAT))
		snprintf(why, len, "made by another bpk (format %s, now %s)",
			 format ? format : "unnamed", SNAPSHOT_FORMAT);
	else if (!qemu || strcmp(qemu, qemu_version()))
		snprintf(why, len, "made by another QEMU (%s)",
			 qemu ? qemu : "unnamed");
	else if (kt < 0 || rt < 0)
		snprintf(why, len, "its kernel or root image is gone (%s, %s)",
			 kernel ? kernel : "unnamed", root ? root : "unnamed");
	else if (kt > made || rt > made)
		snprintf(why, len,
			 "its kernel or root image changed since it was made");
	else if (gone_share(j, gone, sizeof(gone)))
		snprintf(why, len, "a directory it exports is gone (%s)", gone);
	else if (kernel_entry && !strncmp(kernel, builds, strlen(builds)) &&
		 (strncmp(kernel, kernel_entry, strlen(kernel_entry)) ||
		  kernel[strlen(kernel_entry)] != '/'))
		snprintf(why, len, "its kernel is not the clone's build (%s)",
			 kernel);
	else
		stale = 0;
out:
	free(builds);
	json_decref(j);
	free(ok);
	free(meta);
	return stale;
}

void snapshot_meta_free(struct snapshot_meta *m)
{
	free(m->key);
	free(m->mem);
	free(m->crashkernel);
	free(m->accel);
	free(m->trigger);
	free(m->args);
	free(m->kernel);
	free(m->append);
	free(m->ram);
	memset(m, 0, sizeof(*m));
}

static int wait_migration(struct qmp *q, const char *what, char *err,
			  size_t errlen)
{
	int64_t until = now_ms() + MIGRATE_WAIT_MS;

	while (now_ms() < until) {
		json_t *r;
		const char *st;

		if (qmp_exec(q, "query-migrate", NULL, &r, err, errlen))
			return -1;
		st = json_string_value(json_object_get(r, "status"));
		if (st && !strcmp(st, "completed")) {
			json_decref(r);
			return 0;
		}
		if (st && (!strcmp(st, "failed") || !strcmp(st, "cancelled"))) {
			const char *d = json_string_value(
				json_object_get(r, "error-desc"));

			snprintf(err, errlen, "%s: migration %s: %s", what, st,
				 d ? d : "");
			json_decref(r);
			return -1;
		}
		json_decref(r);
		usleep(10000);
	}
	snprintf(err, errlen, "%s: migration not completed after %d s", what,
		 MIGRATE_WAIT_MS / 1000);
	return -1;
}

static const char *const ignore_shared =
	"{\"capabilities\": [{\"capability\": \"x-ignore-shared\", \"state\": true}]}";

int snapshot_restore(struct qmp *q, int state_fd, double *took, char *err,
		     size_t errlen)
{
	char uri[64];
	int64_t t0;

	t0 = now_ms();
	if (qmp_exec(q, "migrate-set-capabilities", ignore_shared, NULL, err,
		     errlen))
		return -1;
	snprintf(uri, sizeof(uri), "{\"uri\": \"fd:%d\"}", state_fd);
	if (qmp_exec(q, "migrate-incoming", uri, NULL, err, errlen))
		return -1;
	for (;;) {
		json_t *r;
		const char *st;

		if (qmp_exec(q, "query-status", NULL, &r, err, errlen))
			return -1;
		st = json_string_value(json_object_get(r, "status"));
		if (st && strcmp(st, "inmigrate")) {
			bool running = !strcmp(st, "running");

			json_decref(r);
			if (!running &&
			    qmp_exec(q, "cont", NULL, NULL, err, errlen))
				return -1;
			break;
		}
		json_decref(r);
		if (now_ms() - t0 > MIGRATE_WAIT_MS) {
			snprintf(err, errlen,
				 "restore: still in migration after %d s",
				 MIGRATE_WAIT_MS / 1000);
			return -1;
		}
		usleep(5000);
	}
	*took = ms_to_s(now_ms() - t0);
	return 0;
}

/* --- making one */

struct making {
	int state_fd;
	int64_t t0, t_idle, t_saved;
	uint64_t state_bytes;
	char err[1024];
	bool saved, failed;
	const char *dir;
};

static void make_state(struct guest *g, const char *line, size_t len)
{
	struct making *mk = g->hooks.data;
	struct qmp q;
	char uri[64];
	struct stat st;

	(void)line;
	(void)len;
	if (strcmp(g->progress.last_state, STATE_IDLE) || mk->saved ||
	    mk->failed)
		return;
	mk->t_idle = now_ms();
	/* an outgoing migration takes a named fd only: handed over QMP */
	snprintf(uri, sizeof(uri), "{\"uri\": \"fd:bpkstate\"}");
	if (qmp_open(&q, g->qmp_fd, g->pidfd, mk->err, sizeof(mk->err)) ||
	    qmp_send_fd(&q, "bpkstate", mk->state_fd, mk->err,
			sizeof(mk->err)) ||
	    qmp_exec(&q, "stop", NULL, NULL, mk->err, sizeof(mk->err)) ||
	    qmp_exec(&q, "migrate-set-capabilities", ignore_shared, NULL,
		     mk->err, sizeof(mk->err)) ||
	    qmp_exec(&q, "migrate", uri, NULL, mk->err, sizeof(mk->err)) ||
	    wait_migration(&q, "save", mk->err, sizeof(mk->err))) {
		mk->failed = true;
		guest_stop(g, 1, "saving the snapshot failed");
		return;
	}
	mk->t_saved = now_ms();
	if (!fstat(mk->state_fd, &st))
		mk->state_bytes = (uint64_t)st.st_size;
	mk->saved = true;
	/* QEMU may close the socket before it answers */
	qmp_exec(&q, "quit", NULL, NULL, mk->err, sizeof(mk->err));
	mk->err[0] = '\0';
}

static void make_fired(struct guest *g)
{
	struct making *mk = g->hooks.data;

	if (mk->saved)
		return;
	mk->failed = true;
	snprintf(
		mk->err, sizeof(mk->err),
		"the trigger fired in the snapshot's own guest before it was saved (it matches what an idle guest does): console %s/console.log",
		mk->dir);
	guest_stop(g, 1, "the trigger fired in the snapshot's guest");
}

static int write_meta(const char *dir, const struct snapshot_req *req,
		      const char *key, const char *accel,
		      const struct kernel_info *k, const char *append,
		      const struct making *mk, const char *crashkernel,
		      const struct strv *specs)
{
	char *path = path_join(dir, "snapshot.json"), *img = abs_path(k->image);
	char *root = abs_path(k->root_img);
	char *ram = path_join(dir, "ram");
	FILE *f = fopen(path, "w");
	json_writer_t *w;
	struct stat st;

	if (!f) {
		free(path);
		return -1;
	}
	w = jw_new(f);
	jw_pretty(w, true);
	jw_start_object(w);
	jw_string_field(w, "key", key);
	jw_string_field(w, "mem", req->mem);
	jw_int_field(w, "smp", req->smp);
	jw_string_field(w, "crashkernel", crashkernel);
	jw_string_field(w, "accel", accel);
	jw_string_field(w, "trigger", req->trigger ? req->trigger : "");
	jw_string_field(w, "args", req->args ? req->args : "");
	jw_string_field(w, "kernel", img ? img : k->image);
	/* what bpk cache prune judges it by (the key is a digest of them) */
	jw_string_field(w, "root", root ? root : k->root_img);
	jw_string_field(w, "format", SNAPSHOT_FORMAT);
	jw_string_field(w, "qemu", qemu_version());
	jw_string_field(w, "append", append);
	jw_bool_field(w, "hostview", req->hostview);
	/* the host dirs its QEMU exports ("TAG\tro|rw\tPATH" specs) */
	jw_name(w, "shares");
	jw_start_array(w);
	for (int i = 0; i < specs->n; i++) {
		const char *path = strchr(specs->v[i], '\t');

		path = path ? strchr(path + 1, '\t') : NULL;
		jw_string(w, path ? path + 1 : specs->v[i]);
	}
	jw_end_array(w);
	jw_seconds_field(w, "boot_to_idle_s", ms_to_s(mk->t_idle - mk->t0));
	jw_seconds_field(w, "save_s", ms_to_s(mk->t_saved - mk->t_idle));
	jw_uint_field(w, "state_bytes", mk->state_bytes);
	jw_uint_field(w, "ram_bytes",
		      stat(ram, &st) ? 0 : (uint64_t)st.st_blocks * 512);
	jw_seconds_field(w, "made_s", ms_to_s(now_ms() - mk->t0));
	jw_end_object(w);
	jw_destroy(&w);
	free(img);
	free(root);
	free(ram);
	free(path);
	return fclose(f) ? -1 : 0;
}

static void rm_rf(const char *dir)
{
	const char *argv[] = { "rm", "-rf", "--", dir, NULL };

	proc_wait_quiet(argv);
}

int snapshot_get(const struct snapshot_req *req, char **dirp, char *err,
		 size_t errlen)
{
	struct kernel_info own;
	const struct kernel_info *k;
	struct guest g = { 0 };
	struct qemu_setup q = { 0 };
	struct making mk = { .state_fd = -1 };
	struct strv specs = { 0 }, extra = { 0 };
	const char *accel;
	char *append, *key, *dir, *lock, *ok, *initrd, *state, *piece = NULL;
	int lfd = -1, rc = -1;

	k = snapshot_kernel(req, &own);
	if (!file_exists(k->image) || !file_exists(k->root_img)) {
		snprintf(err, errlen, "not built: %s", kernel_missing(k));
		return -1;
	}
	accel = qemu_accel(req->accel, k->image);
	append = snapshot_append(req, k);
	if (req->hostview) {
		piece = hostview_temp(req, &specs, err, errlen);
		if (!piece) {
			free(append);
			*dirp = NULL;
			return -1;
		}
	}
	key = snapshot_key(req, k, accel, append, piece, &specs);
	dir = xasprintf("%s/snapshot/%s", paths.cache, key);
	lock = xasprintf("%s.lock", dir);
	ok = path_join(dir, "ok");
	*dirp = dir;
	if (mkdir_p(paths.cache, 0700) ||
	    mkdir_p(path_join(paths.cache, "snapshot"), 0700) ||
	    chmod(path_join(paths.cache, "snapshot"), 0700)) {
		snprintf(err, errlen, "%s/snapshot: %s", paths.cache,
			 strerror(errno));
		goto out;
	}
	/* two campaigns that need the same snapshot: the second waits */
	lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lfd < 0 || flock(lfd, LOCK_EX)) {
		snprintf(err, errlen, "%s: %s", lock, strerror(errno));
		goto out;
	}
	if (file_exists(ok)) {
		char *ram = path_join(dir, "ram");
		char why[1024];
		int bad = ram_sealed(ram, why, sizeof(why));

		free(ram);
		if (!bad) {
			rc = 0;
			goto unlock;
		}
		if (!req->quiet)
			p_info("making the snapshot again: %s", why);
	}
	rm_rf(dir);
	if (mkdir(dir, 0700)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto unlock;
	}
	if (!req->quiet)
		p_info("making the snapshot (%s, %s, %d cpus%s%s%s%s%s) in %s",
		       k->spec, req->mem, req->smp,
		       req->hostview ? ", the host's /usr over 9p" : "",
		       req->trigger ? ", armed: " : "",
		       req->trigger ? req->trigger : "",
		       req->args && *req->args ? " " : "",
		       req->args ? req->args : "", dir);
	initrd = path_join(dir, "initrd");
	{
		/* the root image, and the host view's piece or nothing */
		char *empty = path_join(dir, ".empty");
		int fd = open(empty, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0)
			close(fd);
		if (concat_files(initrd, k->root_img, piece ? piece : empty,
				 0644, err, errlen)) {
			free(empty);
			goto unlock;
		}
		unlink(empty);
		free(empty);
	}
	state = path_join(dir, "state");
	mk.state_fd =
		open(state, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (mk.state_fd < 0) {
		snprintf(err, errlen, "%s: %s", state, strerror(errno));
		goto unlock;
	}
	mk.dir = dir;
	g.staging = dir;
	g.timeout_s = SNAPSHOT_BOOT_TIMEOUT;
	run_caps(&g, parse_size(req->mem), LOG_CAP_DEFAULT);
	g.control = g.qmp = true;
	g.hooks = (struct guest_hooks){ .state = make_state,
					.fired = make_fired,
					.data = &mk };
	if (guest_prepare(&g)) {
		snprintf(err, errlen,
			 "the snapshot's guest could not be set up");
		goto unlock;
	}
	g.kvm = !strcmp(accel, "kvm");
	{
		/* the RAM file made here, QEMU's user's: QEMU sizes it and
		 * the guest's memory lives in it
		 */
		char *ram = path_join(dir, "ram");
		int fd = open(ram, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd < 0) {
			snprintf(err, errlen, "%s: %s", ram, strerror(errno));
			free(ram);
			guest_cleanup(&g);
			goto unlock;
		}
		close(fd);
		q.ram_file = guest_pass_file(&g, ram, true, false);
		free(ram);
	}
	q.accel = accel;
	q.mem = req->mem;
	q.smp = req->smp;
	q.kernel_image = guest_pass_file(&g, k->image, false, false);
	q.initrd = guest_pass_file(&g, initrd, false, false);
	q.append = append;
	q.name = dir;
	q.ram_shared = true;
	if (req->hostview && hostfs_virtfs(&g, &specs, &extra)) {
		snprintf(err, errlen,
			 "the snapshot's host view could not be shared");
		guest_cleanup(&g);
		goto unlock;
	}
	q.extra = &extra;
	if (!q.kernel_image || !q.initrd || !q.ram_file) {
		snprintf(err, errlen,
			 "the snapshot's files cannot be given to QEMU");
		guest_cleanup(&g);
		goto unlock;
	}
	qemu_argv(&q, &g, &g.qemu_argv);
	mk.t0 = now_ms();
	if (guest_start(&g)) {
		snprintf(err, errlen, "QEMU could not be started");
		guest_cleanup(&g);
		goto unlock;
	}
	guest_supervise(&g);
	if (g.signum) {
		snprintf(err, errlen, "interrupted by %s", g.signame);
		guest_cleanup(&g);
		goto unlock;
	}
	guest_cleanup(&g);
	if (!mk.saved) {
		if (mk.err[0])
			snprintf(err, errlen, "%s", mk.err);
		else
			snprintf(
				err, errlen,
				"the snapshot's guest ended before it was idle (%s%s): console %s/console.log",
				g.progress.last_state[0] ? "last state " :
							   "no state",
				g.progress.last_state, dir);
		goto unlock;
	}
	if (g.progress.panic_msg[0] || g.progress.boots >= 2) {
		snprintf(
			err, errlen,
			"the trigger fired in the snapshot's own guest before it was saved (it matches what an idle guest does): console %s/console.log",
			dir);
		goto unlock;
	}
	{
		const char *names[] = { "dmesg.txt", "dump.flat", "status.txt",
					"qemu.log", NULL };

		for (int i = 0; names[i]; i++) {
			char *p = path_join(dir, names[i]);

			unlink(p);
			free(p);
		}
	}
	{
		char *ram = path_join(dir, "ram");
		int bad = ram_seal(ram, err, errlen);

		free(ram);
		if (bad)
			goto unlock;
	}
	if (write_meta(dir, req, key, accel, k, append, &mk,
		       k->default_crashkernel, &specs)) {
		snprintf(err, errlen, "%s/snapshot.json: %s", dir,
			 strerror(errno));
		goto unlock;
	}
	{
		int fd = open(ok, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || write(fd, "ok\n", 3) != 3 || close(fd)) {
			snprintf(err, errlen, "%s: %s", ok, strerror(errno));
			goto unlock;
		}
	}
	if (!req->quiet) {
		char el[32];

		p_info("snapshot made in %s (boot to idle %.2f s, save %.2f s, state %llu bytes)",
		       fmt_ms(now_ms() - mk.t0, el, sizeof(el)),
		       ms_to_s(mk.t_idle - mk.t0),
		       ms_to_s(mk.t_saved - mk.t_idle),
		       (unsigned long long)mk.state_bytes);
	}
	rc = 0;
unlock:
	if (mk.state_fd >= 0)
		close(mk.state_fd);
	if (lfd >= 0)
		close(lfd);
out:
	if (piece)
		unlink(piece);
	free(piece);
	strv_free(&specs);
	strv_free(&extra);
	free(append);
	free(key);
	free(lock);
	free(ok);
	return rc;
}

static void prepend(const char *snap_file, const char *run_file)
{
	char *whole = xasprintf("%s.whole", run_file);

	if (file_exists(snap_file) && file_exists(run_file)) {
		char err[512];

		if (!concat_files(whole, snap_file, run_file, 0600, err,
				  sizeof(err)))
			rename(whole, run_file);
		else
			p_err("%s", err);
	}
	unlink(whole);
	free(whole);
}

void snapshot_prepend_boot(const char *snapdir, const char *stage)
{
	static const char *const names[] = { "console.log", "results.txt",
					     NULL };

	for (int i = 0; names[i]; i++) {
		char *s = path_join(snapdir, names[i]);
		char *r = path_join(stage, names[i]);

		prepend(s, r);
		free(s);
		free(r);
	}
}

/* --- bpk snapshot */

static void usage_snapshot(void)
{
	printf("usage: bpk snapshot [--kernel K] [--mem SIZE] [--smp N] [--trigger NAME [--args \"k=v ...\"]]\n"
	       "                    [--accel auto|tcg|kvm] [--quiet] [--print-dir]\n"
	       "\n"
	       "The snapshot a run starts warm from (without --trigger: the idle one), or a\n"
	       "campaign restores its attempts from: found in the cache or made (a boot to\n"
	       "idle, then a save); prints its directory. --trigger arms it before it is\n"
	       "saved; --print-dir prints where the key leads, made or not, and makes\n"
	       "nothing. --kernel: as bpk run's (ours).\n");
}

int do_snapshot(int argc, char **argv)
{
	struct snapshot_req req = { .mem = "1G", .smp = 2 };
	bool print_dir = false;
	char *dir, err[2048];

	req.accel = config_accel();
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage_snapshot();
			return 0;
		} else if (!strcmp(a, "--quiet")) {
			req.quiet = true;
		} else if (!strcmp(a, "--print-dir")) {
			print_dir = true;
		} else if (!strcmp(a, "--mem") || !strcmp(a, "--smp") ||
			   !strcmp(a, "--trigger") || !strcmp(a, "--args") ||
			   !strcmp(a, "--accel") || !strcmp(a, "--kernel")) {
			if (i + 1 >= argc)
				usage_error(
					"%s needs a value (bpk snapshot --help)",
					a);
			if (!strcmp(a, "--mem")) {
				if (parse_size(argv[i + 1]) < 0)
					usage_error(
						"--mem '%s' is not a size like 512M or 1G",
						argv[i + 1]);
				req.mem = argv[++i];
			} else if (!strcmp(a, "--smp")) {
				req.smp = (int)parse_num(argv[++i], 1, 64);
				if (req.smp < 1)
					usage_error(
						"--smp '%s' is not a positive number",
						argv[i]);
			} else if (!strcmp(a, "--trigger")) {
				req.trigger = argv[++i];
			} else if (!strcmp(a, "--args")) {
				req.args = argv[++i];
			} else if (!strcmp(a, "--kernel")) {
				req.kernel = argv[++i];
			} else {
				req.accel = argv[++i];
			}
		} else {
			usage_error(
				"snapshot: unknown argument '%s' (bpk snapshot --help)",
				a);
		}
	}
	if (req.args && *req.args && !req.trigger)
		usage_error("--args needs --trigger");
	if (req.trigger)
		trigger_check(req.trigger, req.args);
	if (strcmp(req.accel, "auto") && strcmp(req.accel, "tcg") &&
	    strcmp(req.accel, "kvm"))
		usage_error("--accel '%s' must be auto, tcg or kvm", req.accel);
	if (print_dir) {
		dir = snapshot_dir(&req);
		printf("%s\n", dir);
		free(dir);
		return 0;
	}
	if (snapshot_get(&req, &dir, err, sizeof(err))) {
		p_err("%s", err);
		return 1;
	}
	printf("%s\n", dir);
	free(dir);
	return 0;
}
