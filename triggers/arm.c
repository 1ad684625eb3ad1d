// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "arm.h"
#include "fire.h"

#ifndef BPF_F_DESTRUCTIVE
#error "build against the patched kernel's UAPI header (BPF_F_DESTRUCTIVE)"
#endif

/* libbpf's own messages (verifier logs): kept, and shown only on failure. */
static char libbpf_log[64 * 1024];
static size_t libbpf_log_len;

static int keep_libbpf_log(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	int n;

	if (level == LIBBPF_DEBUG || libbpf_log_len >= sizeof(libbpf_log) - 1)
		return 0;
	n = vsnprintf(libbpf_log + libbpf_log_len,
		      sizeof(libbpf_log) - libbpf_log_len, fmt, ap);
	if (n > 0)
		libbpf_log_len += (size_t)n;
	if (libbpf_log_len >= sizeof(libbpf_log))
		libbpf_log_len = sizeof(libbpf_log) - 1;
	return 0;
}

/*
 * The .rodata map's initial value, edited in a copy of our own and handed
 * back with bpf_map__set_initial_value() before load (libbpf 1.1 only gives
 * a const view of it).
 */
struct rodata {
	struct bpf_object *obj;
	struct bpf_map *map;
	char *buf;
	size_t size;
};

static int rodata_open(struct rodata *r, struct bpf_object *obj)
{
	const void *init;

	r->obj = obj;
	r->map = bpf_object__find_map_by_name(obj, ".rodata");
	init = r->map ? bpf_map__initial_value(r->map, &r->size) : NULL;
	r->buf = init ? malloc(r->size) : NULL;
	if (!r->buf)
		return -1;
	memcpy(r->buf, init, r->size);
	return 0;
}

static int rodata_commit(struct rodata *r)
{
	int rc = bpf_map__set_initial_value(r->map, r->buf, r->size);

	free(r->buf);
	r->buf = NULL;
	return rc;
}

/* Where variable @name lives in the .rodata copy, from the object's BTF. */
static char *rodata_var(struct rodata *r, const char *name, size_t *size)
{
	const struct btf *btf = bpf_object__btf(r->obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	int id;

	if (!btf)
		return NULL;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (id < 0)
		return NULL;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (unsigned short i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if (vs->offset + vs->size > r->size)
			return NULL;
		*size = vs->size;
		return r->buf + vs->offset;
	}
	return NULL;
}

static int set_var(struct rodata *r, const char *var, const void *val,
		   size_t len, int is_string, char *err, size_t errlen)
{
	size_t size;
	char *dst = rodata_var(r, var, &size);

	if (!dst) {
		snprintf(err, errlen, "BPF object has no .rodata variable %s",
			 var);
		return -1;
	}
	if (is_string) {
		if (len >= size) {
			snprintf(err, errlen, "longer than %zu characters",
				 size - 1);
			return -1;
		}
		memset(dst, 0, size);
		memcpy(dst, val, len);
		return 0;
	}
	if (size == sizeof(__u32)) {
		long long n = *(const long long *)val;
		__u32 v = (__u32)n;

		/* a 32-bit variable: refuse what would wrap (pid=2^32+1) */
		if (n > UINT32_MAX || n < INT32_MIN) {
			snprintf(err, errlen, "%lld does not fit in 32 bits",
				 n);
			return -1;
		}
		memcpy(dst, &v, sizeof(v));
	} else if (size == sizeof(__u64)) {
		memcpy(dst, val, sizeof(__u64));
	} else {
		snprintf(err, errlen, "%s: unexpected size %zu", var, size);
		return -1;
	}
	return 0;
}

static int set_params(struct rodata *r, const struct arm_args *a, char *err,
		      size_t errlen)
{
	for (int i = 0; i < a->n; i++) {
		const struct arg_value *v = &a->vals[i];
		int str = v->def->type == PT_STRING ||
			  v->def->type == PT_SYMBOL;
		int rc;

		if (!v->def->var)
			continue;
		rc = set_var(r, v->def->var,
			     str ? (const void *)v->text : &v->num,
			     strlen(v->text), str, err, errlen);
		if (rc) {
			/* name the parameter the user gave, not the variable */
			char why[256];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s=%s: %s", v->def->key, v->text,
				 why);
			return -1;
		}
	}
	return 0;
}

/* The BTF target of an ATTACH_BTF trigger: a function, or for a tp_btf
 * program "category:name" -> "name" (libbpf adds the btf_trace_ prefix).
 */
static const char *btf_target(const struct arm_args *a, char *buf, size_t len)
{
	const char *text = args_get(a, a->trigger->attach_param)->text;
	const char *colon = strchr(text, ':');

	snprintf(buf, len, "%s", colon ? colon + 1 : text);
	return buf;
}

/* func_error's fexit program must know how wide the return value is. */
static int set_ret_bytes(struct btf *btf, int func_id, struct rodata *ro,
			 const char *key, const char *text, char *err,
			 size_t errlen)
{
	const struct btf_type *proto;
	long long ret;
	size_t size;

	if (!rodata_var(ro, "cfg_ret_bytes", &size))
		return 0;
	proto = btf__type_by_id(btf, btf__type_by_id(btf, func_id)->type);
	ret = proto->type ? btf__resolve_size(btf, proto->type) : 0;
	if (ret <= 0) {
		snprintf(err, errlen,
			 "%s=%s returns void: it cannot return an error", key,
			 text);
		return -1;
	}
	return set_var(ro, "cfg_ret_bytes", &ret, 0, 0, err, errlen);
}

/*
 * Check the attach target against the kernel before anything is loaded and
 * point the programs at it.
 */
static int set_targets(struct bpf_object *obj, struct rodata *ro,
		       const struct arm_args *a, char *err, size_t errlen)
{
	const struct trigger_def *t = a->trigger;
	const char *key = t->attach_param;
	const char *text = key ? args_get(a, key)->text : NULL;
	struct bpf_program *prog;
	char name[ARG_TEXT_LEN], tp[ARG_TEXT_LEN + 16];
	struct btf *btf;
	int id, rc = 0;

	if (t->attach == ATTACH_UPROBE) {
		char path[ARG_TEXT_LEN];

		snprintf(path, sizeof(path), "%.*s",
			 (int)(strchr(text, ':') - text), text);
		if (access(path, R_OK)) {
			snprintf(err, errlen, "%s=%s: %s: %s", key, text, path,
				 strerror(errno));
			return -1;
		}
		return 0;
	}
	if (t->attach != ATTACH_BTF)
		return 0;

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(err, errlen, "cannot read the kernel's BTF: %s",
			 strerror(errno));
		return -1;
	}
	btf_target(a, name, sizeof(name));
	if (strchr(text, ':')) {
		snprintf(tp, sizeof(tp), "btf_trace_%s", name);
		if (btf__find_by_name_kind(btf, tp, BTF_KIND_TYPEDEF) < 0) {
			snprintf(err, errlen,
				 "%s=%s: no tracepoint %s in this kernel", key,
				 text, name);
			rc = -1;
		}
	} else {
		id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
		if (id < 0) {
			snprintf(
				err, errlen,
				"%s=%s: not a function in this kernel's BTF (inlined, "
				"or not built in?)",
				key, text);
			rc = -1;
		} else {
			rc = set_ret_bytes(btf, id, ro, key, text, err, errlen);
		}
	}
	btf__free(btf);
	if (rc)
		return -1;
	bpf_object__for_each_program(prog, obj) {
		rc = bpf_program__set_attach_target(prog, 0, name);
		if (rc) {
			snprintf(err, errlen, "%s=%s: cannot attach there: %s",
				 key, text, strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/* Write a trigger's sysctl (hung_task: kernel.hung_task_timeout_secs). */
static int set_sysctl(const struct arm_args *a, char *err, size_t errlen)
{
	const struct trigger_def *t = a->trigger;
	const char *val;
	FILE *f;

	if (!t->sysctl_path)
		return 0;
	val = args_get(a, t->sysctl_param)->text;
	f = fopen(t->sysctl_path, "w");
	if (!f) {
		snprintf(err, errlen, "%s=%s: cannot open %s: %s",
			 t->sysctl_param, val, t->sysctl_path, strerror(errno));
		return -1;
	}
	/* the handler runs when the write reaches the kernel, at fclose() */
	if (fprintf(f, "%s\n", val) < 0 || fclose(f)) {
		snprintf(err, errlen, "%s=%s: %s refused it: %s",
			 t->sysctl_param, val, t->sysctl_path, strerror(errno));
		return -1;
	}
	printf("set %s = %s\n", t->sysctl_path, val);
	return 0;
}

static struct bpf_link *attach_one(struct bpf_program *prog,
				   const struct arm_args *a)
{
	const struct trigger_def *t = a->trigger;
	char path[ARG_TEXT_LEN], *sym;

	if (t->attach != ATTACH_UPROBE)
		return bpf_program__attach(prog);
	snprintf(path, sizeof(path), "%s", args_get(a, t->attach_param)->text);
	sym = strchr(path, ':');
	*sym++ = '\0';
	{
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = sym);

		/* pid -1: every process that runs the binary */
		return bpf_program__attach_uprobe_opts(prog, -1, path, 0,
						       &opts);
	}
}

static int mkdir_p(const char *path)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * Pin a trigger's own maps (the start times of syscall_slow, runq_latency
 * ...) as map-<name> (bpffs refuses dots in names), so that `status` can show how full they are: a map
 * that only grows is a leak that ends in a trigger that sees nothing.
 */
static int pin_own_maps(struct bpf_object *obj, const char *dir, char *err,
			size_t errlen)
{
	struct bpf_map *map;
	char path[300];
	int rc;

	bpf_object__for_each_map(map, obj) {
		if (bpf_map__is_internal(map))
			continue;
		snprintf(path, sizeof(path), "%s/map-%s", dir,
			 bpf_map__name(map));
		rc = bpf_map__pin(map, path);
		if (rc) {
			snprintf(err, errlen, "%s: pin failed: %s", path,
				 strerror(-rc));
			return -1;
		}
	}
	return 0;
}

int trigger_arm(const struct arm_args *a, unsigned int action, char *err,
		size_t errlen)
{
	const struct trigger_def *t = a->trigger;
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = t->name);
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *state;
	struct rodata ro;
	char dir[256], path[300], desc[512], msg[FIRE_MSG_LEN];
	const void *bytes;
	size_t size;
	long long act = action;
	int n = 0, rc;

	libbpf_set_print(keep_libbpf_log);
	snprintf(dir, sizeof(dir), "%s/%s", PIN_ROOT, t->name);
	if (!access(dir, F_OK)) {
		snprintf(err, errlen,
			 "trigger %s is already armed (%s); disarm it first",
			 t->name, dir);
		return -1;
	}
	bytes = t->elf_bytes(&size);
	obj = bpf_object__open_mem(bytes, size, &opts);
	if (!obj) {
		snprintf(err, errlen, "cannot open BPF object of %s: %s",
			 t->name, strerror(errno));
		return -1;
	}

	snprintf(msg, sizeof(msg), "bpf_panic trigger %s fired: %s", t->name,
		 args_describe(a, desc, sizeof(desc)));
	if (action == FIRE_CRASH_KEXEC && !t->kfunc_ok) {
		snprintf(
			err, errlen,
			"%s cannot fire with crash_kexec (not a tracing program): "
			"it needs bpf_panic (triggerctl check)",
			t->name);
		goto fail;
	}
	if (rodata_open(&ro, obj)) {
		snprintf(err, errlen, "BPF object of %s has no .rodata",
			 t->name);
		goto fail;
	}
	if (set_params(&ro, a, err, errlen) ||
	    set_var(&ro, "cfg_action", &act, 0, 0, err, errlen) ||
	    set_var(&ro, "cfg_msg", msg, strlen(msg), 1, err, errlen) ||
	    set_targets(obj, &ro, a, err, errlen)) {
		free(ro.buf);
		goto fail;
	}
	if (rodata_commit(&ro)) {
		snprintf(err, errlen, "cannot set the parameters of %s",
			 t->name);
		goto fail;
	}
	if (set_sysctl(a, err, errlen))
		goto fail;

	/* Only a program that may call bpf_panic() carries the flag: a stock
	 * kernel does not know it, and the kfunc path does not need it.
	 */
	bpf_object__for_each_program(prog, obj) {
		if (action == FIRE_BPF_PANIC)
			bpf_program__set_flags(prog, bpf_program__flags(prog) |
							     BPF_F_DESTRUCTIVE);
	}

	libbpf_log_len = 0;
	libbpf_log[0] = '\0';
	rc = bpf_object__load(obj);
	if (rc) {
		fprintf(stderr, "%s", libbpf_log);
		snprintf(err, errlen,
			 "loading %s failed: %s (verifier log above)", t->name,
			 strerror(-rc));
		goto fail;
	}

	rc = mkdir_p(dir);
	if (rc) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
		goto fail;
	}
	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *link = attach_one(prog, a);

		if (!link) {
			snprintf(err, errlen, "attaching %s/%s failed: %s",
				 t->name, bpf_program__name(prog),
				 strerror(errno));
			goto fail_unpin;
		}
		snprintf(path, sizeof(path), "%s/link%d", dir, n++);
		rc = bpf_link__pin(link, path);
		if (rc) {
			snprintf(err, errlen, "%s: pin failed: %s", path,
				 strerror(-rc));
			bpf_link__destroy(link);
			goto fail_unpin;
		}
		/* the pin holds it now */
		bpf_link__disconnect(link);
		bpf_link__destroy(link);
	}
	state = bpf_object__find_map_by_name(obj, ".data.fire");
	snprintf(path, sizeof(path), "%s/state", dir);
	if (!state || (rc = bpf_map__pin(state, path))) {
		snprintf(err, errlen, "%s: cannot pin the state map", path);
		goto fail_unpin;
	}
	if (pin_own_maps(obj, dir, err, errlen))
		goto fail_unpin;
	bpf_object__close(obj);
	return 0;

fail_unpin:
	trigger_disarm(t->name);
fail:
	bpf_object__close(obj);
	return -1;
}

int trigger_disarm(const char *name)
{
	char dir[256], path[600];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(dir, sizeof(dir), "%s/%s", PIN_ROOT, name);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && !err)
			err = -errno;
	}
	closedir(d);
	if (rmdir(dir) && !err)
		err = -errno;
	return err;
}

int trigger_read_state(const char *name, struct trigger_state *state)
{
	char path[300];
	int fd, zero = 0, err = 0;

	snprintf(path, sizeof(path), "%s/%s/state", PIN_ROOT, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(fd, &zero, state))
		err = -errno;
	close(fd);
	return err;
}

/* Number of keys in the pinned map at @path, or -errno. */
static long count_keys(const char *path)
{
	__u8 key[64], next[64];
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	long n = 0;
	int fd, rc;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	rc = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (rc || info.key_size > sizeof(key)) {
		close(fd);
		return rc ?: -EOVERFLOW;
	}
	for (rc = bpf_map_get_next_key(fd, NULL, next); !rc;
	     rc = bpf_map_get_next_key(fd, key, next)) {
		memcpy(key, next, info.key_size);
		n++;
	}
	close(fd);
	/* libbpf returns -errno; -ENOENT: past the last key */
	return rc == -ENOENT ? n : rc;
}

int trigger_map_counts(const char *name, char *buf, size_t len)
{
	char dir[256], path[600];
	struct dirent *de;
	size_t used = 0;
	DIR *d;

	buf[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/%s", PIN_ROOT, name);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && used < len) {
		long n;

		if (strncmp(de->d_name, "map-", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = count_keys(path);
		if (n < 0)
			used += snprintf(buf + used, len - used, "%s%s=?(%s)",
					 used ? " " : "", de->d_name + 4,
					 strerror((int)-n));
		else
			used += snprintf(buf + used, len - used, "%s%s=%ld",
					 used ? " " : "", de->d_name + 4, n);
	}
	closedir(d);
	return 0;
}
