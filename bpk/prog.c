// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpk.h"
#include "digest.h"
#include "proc.h"
#include "prog.h"
#include "table.h"
#include "userprog.h"

/* As the built-in triggers are built (Makefile), warnings not fatal: they
 * are the user's to read
 */
#define PROG_CFLAGS \
	"-g", "-O2", "-Wall", "-target", "bpf", "-D__TARGET_ARCH_x86"

/* The SDK's include directories: the install's, else the clone's */
static int sdk_dirs(const char **dirs)
{
	static const char *d[3];
	static int n;

	if (!n && paths.sdk && is_dir(paths.sdk)) {
		/* installed: ROOT/include/bpk/ holds the header, fire.h and
		 * vmlinux.h
		 */
		d[n++] = paths.sdk;
	} else if (!n) {
		d[n++] = xasprintf("%s/triggers/sdk", paths.top);
		d[n++] = xasprintf("%s/triggers", paths.top);
		d[n++] = xasprintf("%s/triggers", paths.build);
	}
	for (int i = 0; i < n; i++)
		dirs[i] = d[i];
	return n;
}

const char *prog_sdk_cflags(void)
{
	static char *flags;
	const char *dirs[3];
	int n;

	if (flags)
		return flags;
	n = sdk_dirs(dirs);
	for (int i = 0; i < n; i++) {
		char *more = xasprintf("%s%s-I%s", flags ? flags : "",
				       flags ? " " : "", dirs[i]);

		free(flags);
		flags = more;
	}
	return flags;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* NAME of NAME.bpf.c, NAME.bpf.o, NAME.c, NAME.o; '-' read as '_' */
static char *name_of(const char *file)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	static const char *const tails[] = { ".bpf.c", ".bpf.o", ".c", ".o",
					     NULL };
	char *name = xstrdup(base);

	for (int i = 0; tails[i]; i++)
		if (ends_with(name, tails[i])) {
			name[strlen(name) - strlen(tails[i])] = '\0';
			break;
		}
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	if (!userprog_name_ok(name))
		usage_error(
			"--prog %s: its name '%s' (from the file's name) must be 1-31 of a-z, 0-9, _ and - (it names the run and the fire record)",
			file, name);
	if (trigger_find(name))
		usage_error(
			"--prog %s: '%s' is a built-in trigger's name; name the file otherwise",
			file, name);
	return name;
}

static bool is_elf(const char *file)
{
	char magic[4];
	FILE *f = fopen(file, "rb");
	bool elf;

	if (!f)
		usage_error("--prog %s: %s", file, strerror(errno));
	elf = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);
	fclose(f);
	return elf;
}

/* clang's flags after @argv[*n]: PROG_CFLAGS, then the SDK's directories,
 * one -IDIR word each (a directory with a space in its name stays whole)
 */
static void add_cflags(const char **argv, int *n)
{
	static const char *const fixed[] = { PROG_CFLAGS };
	const char *dirs[3];
	int k = sdk_dirs(dirs);

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		argv[(*n)++] = fixed[i];
	for (int i = 0; i < k; i++)
		argv[(*n)++] = xasprintf("-I%s", dirs[i]);
}

/*
 * The cache key: what clang compiles (the source preprocessed, with every
 * header it includes), clang's version and the flags. A header the source
 * includes changing changes the key; a comment does not.
 */
static char *cache_key(const char *file)
{
	const char *argv[24];
	char *out = NULL, *err = NULL, *ver = NULL, hex[33];
	const char *const vargv[] = { "clang", "--version", NULL };
	struct digest *d;
	int n = 0, rc;

	argv[n++] = "clang";
	argv[n++] = "-E";
	add_cflags(argv, &n);
	argv[n++] = file;
	argv[n] = NULL;
	rc = proc_capture(argv, &out, &err);
	if (rc == 127 || rc < 0)
		die("--prog %s: cannot run clang (apt install clang)", file);
	if (rc) {
		fputs(err ? err : "", stderr);
		usage_error("--prog %s: clang cannot preprocess it (above)",
			    file);
	}
	if (proc_capture(vargv, &ver, NULL))
		die("clang --version failed");
	d = digest_new();
	digest_add_str(d, ver);
	digest_add_str(d, prog_sdk_cflags());
	digest_add_str(d, out);
	digest_end(d, hex, 32);
	free(out);
	free(err);
	free(ver);
	return xstrdup(hex);
}

static char *compile(const char *file, const char *name)
{
	char *key = cache_key(file), *dir, *obj, *tmp;
	const char *argv[24];
	struct spawn s = { .argv = argv, .in = -1, .out = 2, .err = 2 };
	int64_t t0 = now_ms();
	char took[32];
	pid_t pid;
	int n = 0, rc;

	/* PROG/KEY/NAME.bpf.o: the object's file name is the trigger's name,
	 * as for one the user gives (a campaign's attempts run it)
	 */
	dir = xasprintf("%s/prog/%s", paths.cache, key);
	obj = xasprintf("%s/%s.bpf.o", dir, name);
	if (file_exists(obj)) {
		p_info("%s: compiled before (%s)", file, obj);
		free(key);
		free(dir);
		return obj;
	}
	if (mkdir_p(dir, 0755) || access(dir, W_OK))
		die("%s: %s: the compiled program cannot be cached there (BPK_CACHE)",
		    dir, strerror(errno));
	tmp = xasprintf("%s.tmp.%d", obj, (int)getpid());
	argv[n++] = "clang";
	add_cflags(argv, &n);
	argv[n++] = "-c";
	argv[n++] = file;
	argv[n++] = "-o";
	argv[n++] = tmp;
	argv[n] = NULL;
	pid = proc_spawn(&s);
	rc = pid < 0 ? -1 : proc_wait(pid);
	if (rc) {
		unlink(tmp);
		usage_error(
			"--prog %s: clang could not compile it (its diagnostics above)",
			file);
	}
	if (rename(tmp, obj))
		die("%s: %s", obj, strerror(errno));
	p_info("compiled %s in %s (cached: %s)", file,
	       fmt_ms(now_ms() - t0, took, sizeof(took)), obj);
	free(tmp);
	free(key);
	free(dir);
	return obj;
}

char *prog_prepare(const char *file, char **name, bool *compiled)
{
	char err[512], *obj;

	if (has_control(file))
		usage_error("--prog: a control character in the file name");
	if (access(file, R_OK))
		usage_error("--prog %s: %s", file, strerror(errno));
	*name = name_of(file);
	if (compiled)
		*compiled = false;
	if (is_elf(file)) {
		obj = abs_path(file);
	} else if (ends_with(file, ".c")) {
		obj = compile(file, *name);
		if (compiled)
			*compiled = true;
	} else {
		usage_error(
			"--prog %s: neither a BPF object (ELF) nor a C source (.bpf.c)",
			file);
	}
	if (userprog_load(obj, *name, file, err, sizeof(err)))
		usage_error("--prog %s", err);
	return obj;
}

static void usage_sdk(void)
{
	printf("usage: bpk sdk --cflags\n"
	       "\n"
	       "The compiler flags of your own trigger programs: where\n"
	       "<bpk/trigger.bpf.h>, fire.h and the kernel's vmlinux.h are. bpk run\n"
	       "--prog FILE.bpf.c compiles with them itself:\n"
	       "  clang -g -O2 -target bpf -D__TARGET_ARCH_x86 $(bpk sdk --cflags) -c F.bpf.c\n");
}

int do_sdk(int argc, char **argv)
{
	if (argc == 1 &&
	    (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		usage_sdk();
		return 0;
	}
	if (argc != 1 || strcmp(argv[0], "--cflags"))
		usage_error("sdk: --cflags is what it prints (bpk sdk --help)");
	printf("%s\n", prog_sdk_cflags());
	return 0;
}

/* The template: it compiles and fires as it is (bpk new-trigger --help) */
static const char template_text[] =
	"// SPDX-License-Identifier: GPL-2.0\n"
	"/*\n"
	" * @NAME@: a trigger program of your own for the bpf-panic kdump appliance.\n"
	" *\n"
	" * As written it fires when unlinkat(2) or unlink(2) fails with errno=\n"
	" * (ENOENT, 2, by default), which this command does:\n"
	" *\n"
	" *   bpk run --prog @NAME@.bpf.c comm=unlink -- unlink /no/such/file\n"
	" *\n"
	" * Change the condition to the one of your bug. bpk list --prog\n"
	" * @NAME@.bpf.c shows its parameters; docs/own-triggers.md has the rest.\n"
	" */\n"
	"#include <bpk/trigger.bpf.h>\n"
	"\n"
	"/*\n"
	" * Parameters: every const volatile cfg_* global is a k=v of bpk run\n"
	" * --prog (here errno=), its initial value the default. Integers of any\n"
	" * width, bool and char arrays; bpk checks a value against the type\n"
	" * before anything boots. comm=, pid=, count= and dry_run are there too.\n"
	" */\n"
	"const volatile __s32 cfg_errno = 2; /* the error to catch: ENOENT */\n"
	"\n"
	"/*\n"
	" * The attachment is the SEC() name: fexit/FUNC runs as the kernel\n"
	" * function FUNC returns, with its arguments and its return value\n"
	" * (the kernel's BTF gives their types). Others: kprobe/FUNC,\n"
	" * kretprobe/FUNC, fentry/FUNC, tp/CATEGORY/NAME, tp_btf/NAME,\n"
	" * raw_tp/NAME, uprobe (with target=/path:symbol), perf_event.\n"
	" */\n"
	"SEC(\"fexit/do_unlinkat\")\n"
	"int BPF_PROG(on_unlink_error, int dfd, struct filename *name, int ret)\n"
	"{\n"
	"\t/* the condition; bpk_task_selected() applies comm= and pid= */\n"
	"\tif (ret != -cfg_errno || !bpk_task_selected())\n"
	"\t\treturn 0;\n"
	"\t/*\n"
	"\t * Fire: the fire record (in the dump, in the report) gets this\n"
	"\t * detail text, in BPF_SNPRINTF's format (%%s reads kernel memory).\n"
	"\t */\n"
	"\tbpk_fire(\"errno=%%d path=%%s\", -ret, BPF_CORE_READ(name, name));\n"
	"\treturn 0;\n"
	"}\n";

static void usage_new_trigger(void)
{
	printf("usage: bpk new-trigger NAME\n"
	       "\n"
	       "Write NAME.bpf.c in the current directory: a commented trigger program\n"
	       "of your own that compiles and fires as it is, with\n"
	       "  bpk run --prog NAME.bpf.c comm=unlink -- unlink /no/such/file\n"
	       "NAME: 1-31 of a-z, 0-9 and _, not a built-in trigger's name. An\n"
	       "existing file is never overwritten.\n");
}

int do_new_trigger(int argc, char **argv)
{
	char *file, *text;
	const char *at;
	FILE *f;
	int fd;

	if (argc == 1 &&
	    (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		usage_new_trigger();
		return 0;
	}
	if (argc != 1 || argv[0][0] == '-')
		usage_error(
			"new-trigger: give one NAME (bpk new-trigger --help)");
	if (!userprog_name_ok(argv[0]))
		usage_error(
			"new-trigger: '%s': a name is 1-31 of a-z, 0-9 and _ (it names the runs and the fire record)",
			argv[0]);
	if (trigger_find(argv[0]))
		usage_error("new-trigger: '%s' is a built-in trigger's name",
			    argv[0]);
	file = xasprintf("%s.bpf.c", argv[0]);
	/* the template's @NAME@, and its %% as printf wants them */
	{
		size_t len = 0;
		char *p;

		for (at = template_text; *at; at++)
			len += *at == '@' ? strlen(argv[0]) : 1;
		text = p = xmalloc(len + 1);
		for (at = template_text; *at; at++) {
			if (!strncmp(at, "@NAME@", 6)) {
				p = stpcpy(p, argv[0]);
				at += 5;
			} else if (at[0] == '%' && at[1] == '%') {
				*p++ = '%';
				at++;
			} else {
				*p++ = *at;
			}
		}
		*p = '\0';
	}
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		usage_error("new-trigger: %s: %s", file,
			    errno == EEXIST ?
				    "exists already; not overwritten" :
				    strerror(errno));
	f = fdopen(fd, "w");
	if (!f || fputs(text, f) == EOF || fclose(f))
		die("new-trigger: %s: %s", file, strerror(errno));
	p_info("wrote %s; try it: bpk run --prog %s comm=unlink -- unlink /no/such/file",
	       file, file);
	free(text);
	free(file);
	return 0;
}
