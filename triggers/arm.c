// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* vasprintf */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "arm.h"
#include "fire.h"
#include "loadfail.h"
#include "names.h"
#include "pinned.h"
#include "sysctl.h"
#include "tracefs.h"

#ifndef BPF_F_DESTRUCTIVE
#error "build against the patched kernel's UAPI header (BPF_F_DESTRUCTIVE)"
#endif

/*
 * libbpf's own messages (verifier logs): kept, and shown only on failure.
 * A verifier log can run to megabytes (a loop it walks to its 1M
 * instruction limit); what says why is at its two ends: the program's name
 * at the start, the verifier's verdict at the end. So the first
 * LOG_HEAD bytes stay, and past them the oldest text makes room.
 */
#define LOG_HEAD (8 * 1024)
#define LOG_CUT "\n[... verifier log cut here ...]\n"
static char libbpf_log[64 * 1024];
static size_t libbpf_log_len;
static int libbpf_log_cut;

static void keep_text(const char *text, size_t n)
{
	size_t room = sizeof(libbpf_log) - 1 - libbpf_log_len;

	/* one message can be the whole verifier log: its two ends */
	if (n > sizeof(libbpf_log) / 2) {
		size_t tail = sizeof(libbpf_log) / 2 - LOG_HEAD;

		keep_text(text, LOG_HEAD / 2);
		keep_text(LOG_CUT, sizeof(LOG_CUT) - 1);
		keep_text(text + n - tail, tail);
		return;
	}
	if (n > room) {
		size_t drop = n - room, keep_from = LOG_HEAD;

		if (!libbpf_log_cut) {
			/* the marker goes where the cut is, once */
			memcpy(libbpf_log + LOG_HEAD, LOG_CUT,
			       sizeof(LOG_CUT) - 1);
			keep_from += sizeof(LOG_CUT) - 1;
			drop += sizeof(LOG_CUT) - 1;
			libbpf_log_cut = 1;
		} else {
			keep_from += sizeof(LOG_CUT) - 1;
		}
		memmove(libbpf_log + keep_from, libbpf_log + keep_from + drop,
			libbpf_log_len - keep_from - drop);
		libbpf_log_len -= drop;
	}
	memcpy(libbpf_log + libbpf_log_len, text, n);
	libbpf_log_len += n;
	libbpf_log[libbpf_log_len] = '\0';
}

static int keep_libbpf_log(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	char *text = NULL;
	int n;

	if (level == LIBBPF_DEBUG)
		return 0;
	n = vasprintf(&text, fmt, ap);
	if (n > 0)
		keep_text(text, (size_t)n);
	free(text);
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
	if (size == 1 || size == 2) {
		long long n = *(const long long *)val;
		__u8 b = (__u8)n;
		__u16 h = (__u16)n;

		/* the parser checked the type's range; this is the backstop */
		if (n > (size == 1 ? UINT8_MAX : UINT16_MAX) ||
		    n < (size == 1 ? INT8_MIN : INT16_MIN)) {
			snprintf(err, errlen, "%lld does not fit in %zu bits",
				 n, size * 8);
			return -1;
		}
		memcpy(dst, size == 1 ? (void *)&b : (void *)&h, size);
	} else if (size == sizeof(__u32)) {
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

/* The BTF target of an ATTACH_BTF trigger on a function: its name. */
static const char *btf_target(const struct arm_args *a, char *buf, size_t len)
{
	snprintf(buf, len, "%s", args_get(a, a->trigger->attach_param)->text);
	return buf;
}

/*
 * func_error's fexit program must know how wide the return value is: above
 * its size the register holds what the function left there. A type that
 * cannot hold -1 .. -4095 (void, bool, an unsigned char or short, a struct)
 * is refused.
 */
static int set_ret_bytes(struct btf *btf, int func_id, struct rodata *ro,
			 const char *key, const char *text, char *err,
			 size_t errlen)
{
	const struct btf_type *proto, *rt;
	long long bytes;
	size_t size;
	int id;

	if (!rodata_var(ro, "cfg_ret_bytes", &size))
		return 0;
	proto = btf__type_by_id(btf, btf__type_by_id(btf, func_id)->type);
	if (!proto->type) {
		snprintf(err, errlen,
			 "%s=%s returns void: it cannot return an error", key,
			 text);
		return -1;
	}
	/* through typedefs, const and volatile */
	id = btf__resolve_type(btf, proto->type);
	rt = id < 0 ? NULL : btf__type_by_id(btf, id);
	bytes = id < 0 ? 0 : btf__resolve_size(btf, id);
	if (rt && btf_is_int(rt) && (btf_int_encoding(rt) & BTF_INT_BOOL)) {
		snprintf(err, errlen,
			 "%s=%s returns bool: it cannot return an error", key,
			 text);
		return -1;
	}
	if (rt && btf_is_int(rt) && !(btf_int_encoding(rt) & BTF_INT_SIGNED) &&
	    bytes < 4) {
		snprintf(
			err, errlen,
			"%s=%s returns an unsigned %lld-byte value: it cannot hold an error",
			key, text, bytes);
		return -1;
	}
	if (!rt || !(btf_is_int(rt) || btf_is_enum(rt) || btf_is_ptr(rt)) ||
	    (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)) {
		snprintf(
			err, errlen,
			"%s=%s returns no integer or pointer: it cannot return an error",
			key, text);
		return -1;
	}
	if (btf_is_ptr(rt))
		printf("note: %s=%s returns a pointer: an ERR_PTR() is an error, "
		       "NULL is not\n",
		       key, text);
	return set_var(ro, "cfg_ret_bytes", &bytes, 0, 0, err, errlen);
}

/*
 * tp=category:name: the category and the event must exist in tracefs, the
 * kernel's list (a tp_btf program is attached by name alone, so a wrong
 * category would go unnoticed). syscalls:sys_enter_NAME / sys_exit_NAME are
 * events of raw_syscalls' two tracepoints, not tracepoints of their own:
 * for them the program on sys_enter or sys_exit that keeps only that
 * syscall is loaded, else the generic one, pointed at the tracepoint.
 */
static int set_tracepoint(struct bpf_object *obj, struct btf *btf,
			  struct rodata *ro, const char *key, const char *text,
			  char *err, size_t errlen)
{
	const char *name = strchr(text, ':') + 1, *sys = NULL, *keep;
	char cat[ARG_TEXT_LEN], tp[ARG_TEXT_LEN + 16], why[256];
	struct bpf_program *prog;
	long long nr = -1;
	long num;
	int rc;

	snprintf(cat, sizeof(cat), "%.*s", (int)(name - 1 - text), text);
	if (tracefs_event_check(cat, name, why, sizeof(why))) {
		snprintf(err, errlen, "%s=%s: %s", key, text, why);
		return -1;
	}
	sys = syscall_event_name(text);
	if (sys && !name_lookup(syscall_entries, sys, &num)) {
		nr = num;
		keep = strncmp(name, "sys_enter_", 10) ? "tracepoint_sys_exit" :
							 "tracepoint_sys_enter";
	} else if (sys) {
		snprintf(err, errlen, "%s=%s: no syscall %s on x86_64", key,
			 text, sys);
		return -1;
	} else {
		snprintf(tp, sizeof(tp), "btf_trace_%s", name);
		if (btf__find_by_name_kind(btf, tp, BTF_KIND_TYPEDEF) < 0) {
			snprintf(
				err, errlen,
				"%s=%s: an event, but no BTF tracepoint %s to attach to",
				key, text, tp);
			return -1;
		}
		keep = "tracepoint";
	}
	if (set_var(ro, "cfg_syscall", &nr, 0, 0, err, errlen))
		return -1;
	bpf_object__for_each_program(prog, obj) {
		if (strcmp(bpf_program__name(prog), keep)) {
			rc = bpf_program__set_autoload(prog, false);
		} else {
			rc = sys ? 0 :
				   bpf_program__set_attach_target(prog, 0,
								  name);
		}
		if (rc) {
			snprintf(err, errlen, "%s=%s: cannot attach there: %s",
				 key, text, strerror(-rc));
			return -1;
		}
	}
	return 0;
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
	char name[ARG_TEXT_LEN];
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
	if (strchr(text, ':')) {
		rc = set_tracepoint(obj, btf, ro, key, text, err, errlen);
		btf__free(btf);
		return rc;
	}
	btf_target(a, name, sizeof(name));
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id < 0) {
		snprintf(err, errlen,
			 "%s=%s: not a function in this kernel's BTF (inlined, "
			 "or not built in?)",
			 key, text);
		rc = -1;
	} else {
		rc = set_ret_bytes(btf, id, ro, key, text, err, errlen);
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

/* Set a trigger's sysctl (hung_task: kernel.hung_task_timeout_secs), the
 * value it had kept in @dir for disarm.
 */
static int set_sysctl(const struct arm_args *a, const char *dir, char *err,
		      size_t errlen)
{
	const struct trigger_def *t = a->trigger;
	const char *val;
	char why[384];

	if (!t->sysctl_path)
		return 0;
	val = args_get(a, t->sysctl_param)->text;
	if (sysctl_save_and_set(t->sysctl_path, val, dir, why, sizeof(why))) {
		snprintf(err, errlen, "%s=%s: %s", t->sysctl_param, val, why);
		return -1;
	}
	return 0;
}

static struct bpf_link *attach_one(struct bpf_program *prog,
				   const struct arm_args *a)
{
	const struct trigger_def *t = a->trigger;
	char path[ARG_TEXT_LEN], *sym;

	const char *sec = bpf_program__section_name(prog);

	/* a bare SEC("uprobe") or SEC("uretprobe") goes on target=; every
	 * other program by its SEC() name
	 */
	if (t->attach != ATTACH_UPROBE ||
	    (strcmp(sec, "uprobe") && strcmp(sec, "uretprobe")))
		return bpf_program__attach(prog);
	snprintf(path, sizeof(path), "%s", args_get(a, t->attach_param)->text);
	sym = strchr(path, ':');
	*sym++ = '\0';
	{
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = sym,
			    .retprobe = !strcmp(sec, "uretprobe"));

		/* pid -1: every process that runs the binary */
		return bpf_program__attach_uprobe_opts(prog, -1, path, 0,
						       &opts);
	}
}

/* Pin @link as @dir/link<n>, n counting up; the pin then holds it. */
static int pin_link(struct bpf_link *link, const char *dir, int *n, char *err,
		    size_t errlen)
{
	char path[300];
	int rc;

	snprintf(path, sizeof(path), "%s/link%d", dir, (*n)++);
	rc = bpf_link__pin(link, path);
	if (rc) {
		snprintf(err, errlen, "%s: pin failed: %s", path,
			 strerror(-rc));
		bpf_link__destroy(link);
		return -1;
	}
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	return 0;
}

/*
 * A cpu-clock sampling event on every online CPU, every 10 ms, each with
 * @prog attached and pinned. The link holds its perf event: the sampling
 * goes on after we exit, until the pin is removed.
 */
static int attach_cpu_clock(struct bpf_program *prog, const char *dir, int *n,
			    char *err, size_t errlen)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 10 * 1000 * 1000, /* ns */
	};
	int cpus = libbpf_num_possible_cpus(), attached = 0;

	if (cpus <= 0) {
		snprintf(err, errlen, "cannot count the CPUs: %s",
			 strerror(-cpus));
		return -1;
	}
	for (int cpu = 0; cpu < cpus; cpu++) {
		struct bpf_link *link;
		int pfd;

		pfd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
				   PERF_FLAG_FD_CLOEXEC);
		if (pfd < 0 && errno == ENODEV)
			continue; /* possible, but not online */
		if (pfd < 0) {
			snprintf(err, errlen,
				 "perf_event_open(cpu-clock, cpu %d): %s", cpu,
				 strerror(errno));
			return -1;
		}
		link = bpf_program__attach_perf_event(prog, pfd);
		if (!link) {
			snprintf(
				err, errlen,
				"attaching %s to the cpu-clock event of cpu %d: %s",
				bpf_program__name(prog), cpu, strerror(errno));
			close(pfd);
			return -1;
		}
		if (pin_link(link, dir, n, err, errlen))
			return -1;
		attached++;
	}
	if (!attached) {
		snprintf(err, errlen, "no online CPU to sample");
		return -1;
	}
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

/*
 * The arguments as given, "key=value" words one after another, each ended
 * by a NUL, in a pinned one-entry map: what triggerctl rearm loads the
 * trigger again with. Re-arming is a reload: a program loaded before
 * kernel.destructive_bpf_enabled was last switched off stays disarmed.
 */
static int pin_args(const struct arm_args *a, const char *dir, char *err,
		    size_t errlen)
{
	char blob[ARGS_BLOB_LEN] = { 0 }, pin[300];
	size_t used = 0;
	int rc, n;

	for (int i = 0; i < a->n; i++) {
		const struct arg_value *v = &a->vals[i];

		if (!v->given)
			continue;
		if (v->def->type == PT_FLAG)
			n = snprintf(blob + used, sizeof(blob) - used, "%s",
				     v->num ? v->def->key : "");
		else
			n = snprintf(blob + used, sizeof(blob) - used, "%s=%s",
				     v->def->key, v->text);
		if (n < 0 || (size_t)n + 1 >= sizeof(blob) - used) {
			snprintf(err, errlen, "%s: the arguments do not fit",
				 dir);
			return -1;
		}
		used += n ? (size_t)n + 1 : 0;
	}
	snprintf(pin, sizeof(pin), "%s/args", dir);
	rc = pinned_value_save(pin, "args", blob, sizeof(blob));
	if (rc) {
		snprintf(err, errlen, "%s: cannot keep the arguments: %s", pin,
			 strerror(-rc));
		return -1;
	}
	return 0;
}

int trigger_saved_args(const char *name, char *blob, size_t len)
{
	char pin[300];
	int err;

	if (len < ARGS_BLOB_LEN)
		return -EINVAL;
	snprintf(pin, sizeof(pin), "%s/%s/args", PIN_ROOT, name);
	err = pinned_value_load(pin, blob);
	blob[ARGS_BLOB_LEN - 1] = '\0';
	return err;
}

/*
 * The verifier refused a program: say which, where in its source (the
 * file and line of its BTF line info, found by the source text the
 * verifier printed) and what the verifier said, on one line. 1 with @err,
 * 0 when the log holds no verifier log.
 */
static int verifier_refused(struct bpf_object *obj, const void *bytes,
			    size_t size, char *err, size_t errlen)
{
	char prog[64], src[160], why[200], file[96], at[300] = "";
	struct bpf_program *p;
	unsigned int line;

	if (!verifier_rejection(libbpf_log, prog, sizeof(prog), src,
				sizeof(src), why, sizeof(why)))
		return 0;
	p = bpf_object__find_program_by_name(obj, prog);
	if (src[0] && p &&
	    source_line_of(bytes, size, bpf_program__section_name(p), src, file,
			   sizeof(file), &line))
		snprintf(at, sizeof(at), " at %s:%u `%s`", file, line, src);
	else if (src[0])
		snprintf(at, sizeof(at), " at `%s`", src);
	snprintf(
		err, errlen,
		"the verifier refused program %s%s: %s (its verifier log: console.log)",
		prog, at, why[0] ? why : "(no reason printed)");
	return 1;
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
	/*
	 * The pin directory is the lock: mkdir() is atomic, so of two arms at
	 * once exactly one creates it and the other is told the trigger is
	 * armed, before it loads anything. From here on, every failure
	 * removes the directory and what is in it (trigger_disarm).
	 */
	if (mkdir(PIN_ROOT, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", PIN_ROOT, strerror(errno));
		return -1;
	}
	if (mkdir(dir, 0700)) {
		if (errno == EEXIST)
			snprintf(
				err, errlen,
				"trigger %s is already armed (%s); disarm it first",
				t->name, dir);
		else
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	bytes = t->elf_bytes(&size);
	obj = bpf_object__open_mem(bytes, size, &opts);
	if (!obj) {
		snprintf(err, errlen, "cannot open BPF object of %s: %s",
			 t->name, strerror(errno));
		goto fail;
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
	    set_var(&ro, "cfg_trigger", t->name, strlen(t->name), 1, err,
		    errlen) ||
	    set_targets(obj, &ro, a, err, errlen)) {
		free(ro.buf);
		goto fail;
	}
	if (rodata_commit(&ro)) {
		snprintf(err, errlen, "cannot set the parameters of %s",
			 t->name);
		goto fail;
	}

	/* Only a program that may call bpf_panic() carries the flag: a stock
	 * kernel does not know it, and the kfunc path does not need it.
	 */
	bpf_object__for_each_program(prog, obj) {
		if (action == FIRE_BPF_PANIC)
			bpf_program__set_flags(prog, bpf_program__flags(prog) |
							     BPF_F_DESTRUCTIVE);
	}

	libbpf_log_len = 0;
	libbpf_log_cut = 0;
	libbpf_log[0] = '\0';
	rc = bpf_object__load(obj);
	if (rc) {
		char why[256]; /* what this kernel lacks, if that is it */

		/* the reason below starts a line of its own */
		fprintf(stderr, "%s%s", libbpf_log,
			libbpf_log_len &&
					libbpf_log[libbpf_log_len - 1] != '\n' ?
				"\n" :
				"");
		if (load_failure_reason(libbpf_log, why, sizeof(why)))
			snprintf(
				err, errlen,
				"loading %s failed: %s (its verifier log: console.log)",
				t->name, why);
		else if (verifier_refused(obj, bytes, size, err, errlen))
			;
		else
			snprintf(
				err, errlen,
				"loading %s failed: %s (its verifier log: console.log)",
				t->name, strerror(-rc));
		goto fail;
	}

	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		if (t->attach == ATTACH_PERF_CPU_CLOCK) {
			if (attach_cpu_clock(prog, dir, &n, err, errlen))
				goto fail;
			continue;
		}
		link = attach_one(prog, a);
		if (!link) {
			snprintf(err, errlen, "attaching %s/%s failed: %s",
				 t->name, bpf_program__name(prog),
				 strerror(errno));
			goto fail;
		}
		if (pin_link(link, dir, &n, err, errlen))
			goto fail;
	}
	state = bpf_object__find_map_by_name(obj, ".data.fire");
	snprintf(path, sizeof(path), "%s/state", dir);
	if (!state || (rc = bpf_map__pin(state, path))) {
		snprintf(err, errlen, "%s: cannot pin the state map", path);
		goto fail;
	}
	if (pin_own_maps(obj, dir, err, errlen) ||
	    pin_args(a, dir, err, errlen))
		goto fail;
	/* last: a failure before this leaves the sysctl untouched */
	if (set_sysctl(a, dir, err, errlen))
		goto fail;
	bpf_object__close(obj);
	return 0;

fail:
	trigger_disarm(t->name);
	bpf_object__close(obj);
	return -1;
}

int trigger_disarm(const char *name)
{
	const struct trigger_def *t;
	char dir[256], path[600];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(dir, sizeof(dir), "%s/%s", PIN_ROOT, name);
	d = opendir(dir);
	if (!d)
		return -errno;
	/* first, while its saved value is still pinned */
	t = trigger_find(name);
	if (t && t->sysctl_path)
		err = sysctl_restore(t->sysctl_path, dir);
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

	snprintf(path, sizeof(path), "%s/%s/state", PIN_ROOT, name);
	return pinned_value_load(path, state);
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
