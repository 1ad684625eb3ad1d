// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "fire.h"
#include "params.h"
#include "userprog.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif
/* an object is a few KiB; this bounds what a wrong file makes us read */
#define USERPROG_MAX_BYTES (16 << 20)
#define MAX_KERNEL_NAMES 64
/* a program's own parameters: with the common ones (5) and target=, what
 * args_parse holds (MAX_ARGS)
 */
#define MAX_OWN_PARAMS (MAX_ARGS - 6)

/* cfg_* of the header itself: the common parameters and the loader's own */
static const char *const header_vars[] = { "cfg_pid",	"cfg_comm",
					   "cfg_count", "cfg_action",
					   "cfg_msg",	"cfg_trigger",
					   NULL };

static struct trigger_def def;
static struct param_def *params;
static void *bytes;
static size_t nbytes;
static const char *ksyms[MAX_KERNEL_NAMES], *kwhats[MAX_KERNEL_NAMES];
static int nkernel;

static const void *userprog_bytes(size_t *size)
{
	*size = nbytes;
	return bytes;
}

void userprog_unload(void)
{
	for (struct param_def *p = params; p && p->key; p++) {
		/* target= is the only one not allocated */
		if (p->type == PT_SYMBOL && !p->var)
			continue;
		free((char *)p->key);
		free((char *)p->var);
		free((char *)p->def);
		free((char *)p->help);
	}
	free(params);
	params = NULL;
	for (int i = 0; i < nkernel; i++) {
		free((char *)ksyms[i]);
		free((char *)kwhats[i]);
	}
	nkernel = 0;
	free((char *)def.name);
	free((char *)def.summary);
	memset(&def, 0, sizeof(def));
	free(bytes);
	bytes = NULL;
	nbytes = 0;
}

const struct trigger_def *userprog_def(void)
{
	return def.name ? &def : NULL;
}

int userprog_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= FIRE_NAME_LEN)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	return 1;
}

static int read_all(const char *path, char *err, size_t errlen)
{
	struct stat st;
	ssize_t got;
	size_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > USERPROG_MAX_BYTES) {
		snprintf(err, errlen, "%s: %s", path,
			 S_ISREG(st.st_mode) ?
				 "larger than 16 MiB: not a trigger program" :
				 "not a regular file");
		close(fd);
		return -1;
	}
	nbytes = (size_t)st.st_size;
	bytes = malloc(nbytes ? nbytes : 1);
	if (!bytes) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	while (done < nbytes) {
		got = read(fd, (char *)bytes + done, nbytes - done);
		if (got <= 0) {
			snprintf(err, errlen, "%s: %s", path,
				 got ? strerror(errno) : "shorter than it was");
			close(fd);
			return -1;
		}
		done += (size_t)got;
	}
	close(fd);
	return 0;
}

/* The ELF header says: a relocatable little-endian 64-bit BPF object. */
static int check_elf(const char *path, char *err, size_t errlen)
{
	const unsigned char *b = bytes;
	unsigned int machine;

	if (nbytes < 64 || memcmp(b, "\177ELF", 4)) {
		snprintf(
			err, errlen,
			"%s: not an ELF object (a .bpf.o from clang -target bpf, or a .bpf.c)",
			path);
		return -1;
	}
	machine = b[5] == 2 ? (unsigned int)(b[18] << 8 | b[19]) :
			      (unsigned int)(b[19] << 8 | b[18]);
	if (machine != EM_BPF) {
		snprintf(
			err, errlen,
			"%s: an ELF object for machine %u (%s), not BPF: compile it with clang -target bpf",
			path, machine,
			machine == 62  ? "x86-64" :
			machine == 183 ? "aarch64" :
			machine == 3   ? "i386" :
			machine == 243 ? "riscv" :
					 "another architecture");
		return -1;
	}
	if (b[4] != 2 || b[5] != 1) {
		snprintf(
			err, errlen,
			"%s: a %s BPF object; this guest is x86_64, little-endian 64-bit (clang -target bpf on x86_64, or bpfel)",
			path, b[5] != 1 ? "big-endian (bpfeb)" : "32-bit");
		return -1;
	}
	if (b[16] != 1 || b[17] != 0) {
		snprintf(err, errlen,
			 "%s: not a relocatable object (clang -c makes one)",
			 path);
		return -1;
	}
	return 0;
}

/*
 * Does any program refer to cfg_msg? Only the fire path does (bpf_panic()
 * is given it), so a program that never calls bpk_fire() or
 * trigger_match() has no relocation against it in its code sections.
 */
static int calls_fire(const char *path, char *err, size_t errlen)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstr, symidx = 0;
	int found = 0, symtab_seen = 0;

	if (elf_version(EV_CURRENT) == EV_NONE ||
	    !(elf = elf_memory(bytes, nbytes)) ||
	    elf_getshdrstrndx(elf, &shstr)) {
		snprintf(err, errlen, "%s: libelf cannot read it: %s", path,
			 elf_errmsg(-1));
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Sym sym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		symtab_seen = 1;
		for (size_t i = 0;
		     d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize;
		     i++) {
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, "cfg_msg"))
				symidx = i;
		}
	}
	if (!symtab_seen || !symidx) {
		snprintf(
			err, errlen,
			"%s: no cfg_msg in its symbols: it does not include <bpk/trigger.bpf.h> (bpk sdk --cflags)",
			path);
		elf_end(elf);
		return -1;
	}
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, target;
		Elf_Data *d;
		Elf_Scn *tscn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_REL)
			continue;
		tscn = elf_getscn(elf, sh.sh_info);
		if (!tscn || !gelf_getshdr(tscn, &target) ||
		    !(target.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0;
		     d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize;
		     i++) {
			GElf_Rel rel;

			if (!gelf_getrel(d, (int)i, &rel))
				break;
			if (GELF_R_SYM(rel.r_info) == symidx) {
				found = 1;
				break;
			}
		}
	}
	elf_end(elf);
	if (!found) {
		snprintf(
			err, errlen,
			"%s: no program calls bpk_fire() (or trigger_match()): it would never fire",
			path);
		return -1;
	}
	return 0;
}

static int kernel_name(const char *sym, const char *prog, const char *sec)
{
	char what[256];

	if (nkernel == MAX_KERNEL_NAMES)
		return 0;
	snprintf(what, sizeof(what), "SEC(\"%s\") of program %s", sec, prog);
	ksyms[nkernel] = strdup(sym);
	kwhats[nkernel] = strdup(what);
	if (!ksyms[nkernel] || !kwhats[nkernel])
		return -1;
	nkernel++;
	return 0;
}

int userprog_kernel_names(const char **syms, const char **whats, int max)
{
	int n = nkernel < max ? nkernel : max;

	for (int i = 0; i < n; i++) {
		syms[i] = ksyms[i];
		whats[i] = kwhats[i];
	}
	return n;
}

static int has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/*
 * One program's SEC(): the kinds the appliance attaches, and the kernel
 * names they point at. Sets *@uprobe, *@perf, *@tracing for it.
 */
static int check_sec(const char *path, struct bpf_program *prog, int *uprobe,
		     int *perf, int *tracing, char *err, size_t errlen)
{
	const char *sec = bpf_program__section_name(prog);
	const char *name = bpf_program__name(prog), *arg = strchr(sec, '/');
	enum bpf_prog_type type = bpf_program__type(prog);
	char sym[160];
	int rc = 0;

	*uprobe = *perf = *tracing = 0;
	arg = arg ? arg + 1 : "";
	if (type == BPF_PROG_TYPE_KPROBE &&
	    (has_prefix(sec, "kprobe/") || has_prefix(sec, "kretprobe/")) &&
	    *arg) {
		snprintf(sym, sizeof(sym), "%.*s", (int)strcspn(arg, "+"), arg);
		rc = kernel_name(sym, name, sec);
	} else if (type == BPF_PROG_TYPE_KPROBE &&
		   (!strcmp(sec, "uprobe") || !strcmp(sec, "uretprobe"))) {
		*uprobe = 1;
	} else if (type == BPF_PROG_TYPE_TRACEPOINT &&
		   (has_prefix(sec, "tp/") || has_prefix(sec, "tracepoint/")) &&
		   strchr(arg, '/')) {
		/* syscalls/sys_enter_NAME are events of raw_syscalls' two
		 * tracepoints, with no symbols of their own: attaching checks
		 * them
		 */
		if (has_prefix(arg, "syscalls/"))
			return 0;
		snprintf(sym, sizeof(sym), "str__%.*s__trace_system_name",
			 (int)(strchr(arg, '/') - arg), arg);
		rc = kernel_name(sym, name, sec);
		snprintf(sym, sizeof(sym), "__tracepoint_%s",
			 strchr(arg, '/') + 1);
		rc |= kernel_name(sym, name, sec);
	} else if (type == BPF_PROG_TYPE_RAW_TRACEPOINT &&
		   (has_prefix(sec, "raw_tp/") ||
		    has_prefix(sec, "raw_tracepoint/")) &&
		   *arg) {
		snprintf(sym, sizeof(sym), "__tracepoint_%s", arg);
		rc = kernel_name(sym, name, sec);
	} else if (type == BPF_PROG_TYPE_TRACING &&
		   has_prefix(sec, "tp_btf/") && *arg) {
		snprintf(sym, sizeof(sym), "__tracepoint_%s", arg);
		rc = kernel_name(sym, name, sec);
		*tracing = 1;
	} else if (type == BPF_PROG_TYPE_TRACING &&
		   (has_prefix(sec, "fentry/") || has_prefix(sec, "fexit/")) &&
		   *arg) {
		rc = kernel_name(arg, name, sec);
		*tracing = 1;
	} else if (type == BPF_PROG_TYPE_PERF_EVENT &&
		   !strcmp(sec, "perf_event")) {
		*perf = 1;
	} else {
		snprintf(
			err, errlen,
			"%s: program %s: SEC(\"%s\") is not one the appliance attaches (kprobe/FUNC, kretprobe/FUNC, fentry/FUNC, fexit/FUNC, tp/CAT/NAME, tp_btf/NAME, raw_tp/NAME, uprobe with target=, perf_event)",
			path, name, sec);
		return -1;
	}
	if (rc)
		snprintf(err, errlen, "%s: out of memory", path);
	return rc;
}

/* The text of a default from .rodata's initial bytes. */
static char *default_text(const struct btf_type *t, const void *val,
			  size_t size)
{
	char buf[160];

	if (btf_is_array(t)) {
		snprintf(buf, sizeof(buf), "%.*s", (int)strnlen(val, size),
			 (const char *)val);
		return strdup(buf);
	}
	if (btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL))
		return strdup(*(const __u8 *)val ? "1" : "0");
	{
		int sgn = btf_is_int(t) ?
				  !!(btf_int_encoding(t) & BTF_INT_SIGNED) :
				  btf_is_enum(t) && btf_kflag(t);
		__s64 s = 0;
		__u64 u = 0;

		switch (size) {
		case 1:
			s = *(const __s8 *)val, u = *(const __u8 *)val;
			break;
		case 2:
			s = *(const __s16 *)val, u = *(const __u16 *)val;
			break;
		case 4:
			s = *(const __s32 *)val, u = *(const __u32 *)val;
			break;
		default:
			memcpy(&s, val, 8), memcpy(&u, val, 8);
		}
		if (sgn)
			snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)s);
		else
			snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)u);
	}
	return strdup(buf);
}

/*
 * One cfg_* variable of .rodata as a parameter: integers of 1, 2, 4 or 8
 * bytes (signed or not; enums as their integer), bool, char arrays.
 */
/* Is type @id volatile, through its const and typedef qualifiers? */
static int is_volatile(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t &&
	       (btf_is_const(t) || btf_is_typedef(t) || btf_is_volatile(t))) {
		if (btf_is_volatile(t))
			return 1;
		t = btf__type_by_id(btf, t->type);
	}
	/* an array's qualifiers are its elements' */
	return t && btf_is_array(t) && is_volatile(btf, btf_array(t)->type);
}

static int make_param(const char *path, const struct btf *btf,
		      const struct btf_var_secinfo *vs, const char *rodata,
		      size_t rosize, struct param_def *p, char *err,
		      size_t errlen)
{
	const struct btf_type *var = btf__type_by_id(btf, vs->type);
	const char *vname = btf__name_by_offset(btf, var->name_off);
	const struct btf_type *decl = btf__type_by_id(btf, var->type);
	int id = btf__resolve_type(btf, var->type);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const char *tname;
	char help[200];
	size_t size = vs->size;

	/* the declared type's name (__u16, pid_t): past const and volatile */
	while (decl && (btf_is_const(decl) || btf_is_volatile(decl)))
		decl = btf__type_by_id(btf, decl->type);
	tname = decl ? btf__name_by_offset(btf, decl->name_off) : "";

	p->key = strdup(vname + 4);
	p->var = strdup(vname);
	/* without volatile, clang folds the initial value into the code:
	 * what the loader writes would never be read
	 */
	if (!is_volatile(btf, var->type)) {
		snprintf(
			err, errlen,
			"%s: %s: declare it const volatile (without volatile the compiler uses its initial value, and a k=v would change nothing)",
			path, vname);
		return -1;
	}
	if (!t || vs->offset + size > rosize) {
		snprintf(err, errlen, "%s: %s: its type cannot be read", path,
			 vname);
		return -1;
	}
	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		int eid = btf__resolve_type(btf, a->type);
		const struct btf_type *e = eid < 0 ? NULL :
						     btf__type_by_id(btf, eid);

		if (!e || !btf_is_int(e) || e->size != 1 || a->nelems < 2) {
			snprintf(
				err, errlen,
				"%s: %s: an array of other than char cannot be a parameter (integers, bool and char arrays can)",
				path, vname);
			return -1;
		}
		p->type = PT_STRING;
		/* what one k=v word holds (params.h) */
		p->max = a->nelems - 1 < ARG_TEXT_LEN - 1 ? a->nelems - 1 :
							    ARG_TEXT_LEN - 1;
		snprintf(help, sizeof(help), "text, at most %llu characters",
			 p->max);
	} else if (btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL)) {
		p->type = PT_FLAG;
		snprintf(help, sizeof(help), "bool: given alone, or =0 / =1");
	} else if ((btf_is_int(t) || btf_is_enum(t)) &&
		   (size == 1 || size == 2 || size == 4 || size == 8)) {
		int sgn = btf_is_int(t) ?
				  !!(btf_int_encoding(t) & BTF_INT_SIGNED) :
				  btf_kflag(t);
		unsigned int bits = (unsigned int)size * 8;

		if (sgn) {
			p->type = PT_INT;
			p->max = (1ULL << (bits - 1)) - 1;
			snprintf(help, sizeof(help), "%s: %lld to %llu",
				 *tname ? tname : "signed",
				 -(long long)p->max - 1, p->max);
		} else {
			p->type = PT_UINT;
			/* 0: no limit but what a long long holds */
			p->max = bits == 64 ? 0 : (1ULL << bits) - 1;
			snprintf(help, sizeof(help), "%s: 0 to %llu",
				 *tname ? tname : "unsigned",
				 bits == 64 ? (unsigned long long)INT64_MAX :
					      p->max);
		}
	} else {
		snprintf(
			err, errlen,
			"%s: %s: a %s cannot be a parameter (integers, bool and char arrays can)",
			path, vname,
			btf_is_ptr(t) ? "pointer" :
			btf_is_struct(t) || btf_is_union(t) ?
					"struct or union" :
			btf_is_float(t) ? "floating-point number" :
					  "type of this kind");
		return -1;
	}
	p->def = default_text(t, rodata + vs->offset, size);
	p->help = strdup(help);
	/* the default goes through the parser as a given value would */
	if (p->def && ((p->type == PT_STRING && strlen(p->def) > p->max) ||
		       (p->type == PT_UINT && p->def[0] &&
			strtoull(p->def, NULL, 10) > INT64_MAX))) {
		snprintf(
			err, errlen,
			"%s: %s: its initial value %.40s%s is beyond what a parameter takes (%s)",
			path, vname, p->def, strlen(p->def) > 40 ? "..." : "",
			p->type == PT_STRING ? "127 characters" :
					       "0 to 9223372036854775807");
		return -1;
	}
	if (!p->key || !p->var || !p->def || !p->help) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	return 0;
}

static int make_params(const char *path, struct bpf_object *obj, char *err,
		       size_t errlen)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	struct bpf_map *ro = bpf_object__find_map_by_name(obj, ".rodata");
	const char *init;
	size_t rosize = 0;
	int id, n = 0;

	/* the own ones, target=, the end */
	params = calloc(MAX_OWN_PARAMS + 2, sizeof(*params));
	if (!params) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	init = ro ? bpf_map__initial_value(ro, &rosize) : NULL;
	if (id < 0 || !init) {
		snprintf(
			err, errlen,
			"%s: no .rodata: it does not include <bpk/trigger.bpf.h> (bpk sdk --cflags)",
			path);
		return -1;
	}
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (unsigned short i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);
		const char *vname = btf__name_by_offset(btf, var->name_off);
		int header = 0;

		if (strncmp(vname, "cfg_", 4) || !vname[4])
			continue;
		for (const char *const *h = header_vars; *h; h++)
			header |= !strcmp(*h, vname);
		if (header)
			continue;
		if (n == MAX_OWN_PARAMS) {
			snprintf(err, errlen,
				 "%s: more than %d cfg_* parameters", path,
				 MAX_OWN_PARAMS);
			return -1;
		}
		if (!strcmp(vname, "cfg_dry_run")) {
			snprintf(
				err, errlen,
				"%s: %s: dry_run is a parameter every trigger has; name the variable otherwise",
				path, vname);
			return -1;
		}
		if (!strcmp(vname, "cfg_target")) {
			snprintf(
				err, errlen,
				"%s: cfg_target: target= is the uprobe's target, set by bpk; name the variable otherwise",
				path);
			return -1;
		}
		if (make_param(path, btf, vs, init, rosize, &params[n], err,
			       errlen))
			return -1;
		n++;
	}
	return n;
}

int userprog_load(const char *path, const char *name, const char *source,
		  char *err, size_t errlen)
{
	const char *shown = source ? source : path;
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = name);
	struct bpf_object *obj;
	struct bpf_program *prog;
	int n, progs = 0, uprobes = 0, perfs = 0, tracing = 0;

	if (!userprog_name_ok(name)) {
		snprintf(
			err, errlen,
			"%s: the name '%s' must be 1-31 of a-z, 0-9 and _ (it names the run and the fire record)",
			shown, name);
		return -1;
	}
	if (def.name) {
		snprintf(err, errlen, "%s: a program (%s) is loaded already",
			 shown, def.name);
		return -1;
	}
	if (read_all(path, err, errlen) || check_elf(shown, err, errlen))
		goto fail_bytes;
	obj = bpf_object__open_mem(bytes, nbytes, &opts);
	if (!obj) {
		snprintf(err, errlen, "%s: libbpf cannot open it: %s", shown,
			 strerror(errno));
		goto fail_bytes;
	}
	if (!bpf_object__btf(obj)) {
		snprintf(err, errlen,
			 "%s: no BTF in it (compile with clang -g)", shown);
		goto fail;
	}
	if (calls_fire(shown, err, errlen))
		goto fail;
	bpf_object__for_each_program(prog, obj) {
		int u, p, t;

		if (check_sec(shown, prog, &u, &p, &t, err, errlen))
			goto fail;
		progs++;
		uprobes += u;
		perfs += p;
		tracing += t;
	}
	if (!progs) {
		snprintf(err, errlen,
			 "%s: no program in it (a function with a SEC())",
			 shown);
		goto fail;
	}
	if (perfs && perfs != progs) {
		snprintf(
			err, errlen,
			"%s: perf_event programs and others in one object: the appliance attaches a perf_event trigger's every program to the cpu-clock event",
			shown);
		goto fail;
	}
	n = make_params(shown, obj, err, errlen);
	if (n < 0)
		goto fail;
	if (uprobes) {
		params[n].key = "target";
		params[n].type = PT_SYMBOL;
		params[n].help = "the uprobe programs' /path/to/binary:symbol";
		params[n].max = 0;
	}
	def.name = strdup(name);
	def.summary = strdup(shown);
	def.elf_bytes = userprog_bytes;
	def.params = params;
	def.attach = perfs   ? ATTACH_PERF_CPU_CLOCK :
		     uprobes ? ATTACH_UPROBE :
			       ATTACH_AUTO;
	def.attach_param = uprobes ? "target" : NULL;
	/* the kfunc is callable from tracing programs only */
	def.kfunc_ok = tracing == progs;
	bpf_object__close(obj);
	if (!def.name || !def.summary) {
		snprintf(err, errlen, "%s: out of memory", shown);
		goto fail_bytes;
	}
	return 0;
fail:
	bpf_object__close(obj);
fail_bytes:
	/* what this attempt made: its parameters, names, bytes */
	userprog_unload();
	return -1;
}
