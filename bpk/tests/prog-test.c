// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of what reads a user's trigger program: its trigger_def from
 * the object (triggers/userprog.c: parameters by BTF type, defaults,
 * attachment, the kernel names to check) on a real object built by make
 * (prog-test.bpf.c, argv[1]), and the verifier's words and source line
 * taken from libbpf's log (triggers/loadfail.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "loadfail.h"
#include "params.h"
#include "table.h"
#include "userprog.h"

static const struct param_def *param(const struct trigger_def *t,
				     const char *key)
{
	for (const struct param_def *d = t->params; d->key; d++)
		if (!strcmp(d->key, key))
			return d;
	return NULL;
}

static void want_param(const struct trigger_def *t, const char *key,
		       enum param_type type, const char *def,
		       unsigned long long max)
{
	const struct param_def *d = param(t, key);
	char name[64];

	snprintf(name, sizeof(name), "userprog.param.%s", key);
	check(name,
	      d && d->type == type && d->def && !strcmp(d->def, def) &&
		      d->max == max,
	      "%s", d ? "" : "missing");
	if (d)
		printf("    %s: %s default %s max %llu (%s)\n", key,
		       param_type_name(d->type), d->def, d->max, d->help);
}

static void test_userprog(const char *obj)
{
	const struct trigger_def *t;
	const char *syms[8], *whats[8];
	char err[512] = "";
	struct arm_args a;
	char *argv[4];
	int rc, n;

	rc = userprog_load(obj, "prog_test", "prog-test.bpf.c", err,
			   sizeof(err));
	check("userprog.load", rc == 0, "rc %d %s", rc, vis(err));
	t = trigger_find("prog_test");
	check("userprog.found", t && t == userprog_def(), "%p", (void *)t);
	if (!t)
		return;
	check("userprog.summary", !strcmp(t->summary, "prog-test.bpf.c"), "%s",
	      t->summary);
	want_param(t, "u8", PT_UINT, "200", 255);
	want_param(t, "s16", PT_INT, "-5", 32767);
	want_param(t, "u32", PT_UINT, "7", 4294967295ULL);
	want_param(t, "s64", PT_INT, "-9", 9223372036854775807ULL);
	want_param(t, "u64", PT_UINT, "11", 0);
	want_param(t, "flag", PT_FLAG, "1", 0);
	want_param(t, "text", PT_STRING, "abc", 7);
	check("userprog.no_header_vars",
	      !param(t, "pid") && !param(t, "msg") && !param(t, "trigger"),
	      "the header's cfg_* are not the program's parameters");
	check("userprog.attach", t->attach == ATTACH_AUTO && !t->kfunc_ok,
	      "attach %d kfunc_ok %d (a tp program is no tracing program)",
	      t->attach, t->kfunc_ok);
	n = userprog_kernel_names(syms, whats, 8);
	check("userprog.kernel_names",
	      n == 3 && !strcmp(syms[0], "pipe_write") &&
		      !strcmp(syms[1], "str__sched__trace_system_name") &&
		      !strcmp(syms[2], "__tracepoint_sched_process_fork"),
	      "%d: %s %s %s", n, n > 0 ? syms[0] : "", n > 1 ? syms[1] : "",
	      n > 2 ? syms[2] : "");
	check("userprog.kernel_names.what",
	      n > 0 && !strcmp(whats[0],
			       "SEC(\"fentry/pipe_write\") of program enter"),
	      "%s", n > 0 ? whats[0] : "");
	/* the parser bpk and triggerctl share, on the derived types */
	argv[0] = "s16=-32768";
	argv[1] = "u8=255";
	argv[2] = "text=1234567";
	rc = args_parse(t, 3, argv, &a, err, sizeof(err));
	check("userprog.args.edges", rc == 0, "rc %d %s", rc, err);
	argv[0] = "s16=-32769";
	rc = args_parse(t, 1, argv, &a, err, sizeof(err));
	check("userprog.args.below", rc && strstr(err, "out of range"), "%s",
	      err);
	argv[0] = "u8=256";
	rc = args_parse(t, 1, argv, &a, err, sizeof(err));
	check("userprog.args.above", rc && strstr(err, "out of range"), "%s",
	      err);
	argv[0] = "text=12345678";
	rc = args_parse(t, 1, argv, &a, err, sizeof(err));
	check("userprog.args.long", rc && strstr(err, "longer than 7"), "%s",
	      err);
	argv[0] = "s64=1x";
	rc = args_parse(t, 1, argv, &a, err, sizeof(err));
	check("userprog.args.not_number", rc && strstr(err, "not a whole"),
	      "%s", err);
}

static void test_refusals(const char *obj)
{
	char err[512] = "";
	int rc;

	rc = userprog_load(obj, "Bad-Name", NULL, err, sizeof(err));
	check("userprog.bad_name", rc && strstr(err, "must be 1-31"), "%s",
	      err);
	rc = userprog_load("/nonexistent.bpf.o", "x", NULL, err, sizeof(err));
	check("userprog.missing", rc && strstr(err, "/nonexistent.bpf.o: "),
	      "%s", err);
	rc = userprog_load("/proc/self/exe", "x", NULL, err, sizeof(err));
	check("userprog.not_bpf", rc && strstr(err, "not BPF"), "%s", err);
	rc = userprog_load(obj, "first", NULL, err, sizeof(err));
	rc |= !userprog_load(obj, "second", NULL, err, sizeof(err)) ? 2 : 0;
	check("userprog.one_only", rc == 0 && strstr(err, "loaded already"),
	      "%s", err);
	userprog_unload();
	check("userprog.unloaded", !userprog_def() && !trigger_find("first"),
	      "nothing loaded");
}

static const char log_ok[] =
	"libbpf: prog 'enter': BPF program load failed: Permission denied\n"
	"libbpf: prog 'enter': -- BEGIN PROG LOAD LOG --\n"
	"reg type unsupported for arg#0 function enter#5\n"
	"0: R1=ctx(off=0,imm=0) R10=fp0\n"
	"; char c = buf[cfg_idx];\n"
	"0: (18) r1 = 0xffff9b0e80037108       ; R1_w=map_value\n"
	"6: (71) r8 = *(u8 *)(r2 +0)\n"
	"invalid access to map value, value_size=16 off=100 size=1\n"
	"R2 min value is outside of the allowed memory range\n"
	"processed 5 insns (limit 1000000) max_states_per_insn 0\n"
	"-- END PROG LOAD LOG --\n"
	"libbpf: prog 'enter': failed to load: -13\n";

static const char log_cut[] =
	"libbpf: prog 'spin': -- BEGIN PROG LOAD LOG --\n"
	"0: R1=ctx() R10=fp0\n"
	"\n[... verifier log cut here ...]\n"
	"; while (x)\n"
	"4: (67) r0 <<= 32                     ; R0_w=scalar(smax=9223372032559808512,\n"
	"BPF program is too large. Processed 1000001 insn\n"
	"processed 1000001 insns (limit 1000000)\n"
	"-- END PROG LOAD LOG --\n";

static void test_verifier(void)
{
	char prog[64], src[160], why[200];
	int rc;

	rc = verifier_rejection(log_ok, prog, sizeof(prog), src, sizeof(src),
				why, sizeof(why));
	check("verifier.prog", rc == 1 && !strcmp(prog, "enter"), "%d %s", rc,
	      prog);
	check("verifier.source", !strcmp(src, "char c = buf[cfg_idx];"), "%s",
	      src);
	check("verifier.why",
	      !strcmp(why,
		      "invalid access to map value, value_size=16 off=100 size=1"),
	      "%s", why);
	rc = verifier_rejection(log_cut, prog, sizeof(prog), src, sizeof(src),
				why, sizeof(why));
	check("verifier.cut",
	      rc == 1 && !strcmp(prog, "spin") && !strcmp(src, "while (x)") &&
		      !strcmp(why,
			      "BPF program is too large. Processed 1000001 insn"),
	      "%s | %s | %s", prog, src, why);
	rc = verifier_rejection("libbpf: failed to open: -2\n", prog,
				sizeof(prog), src, sizeof(src), why,
				sizeof(why));
	check("verifier.none", rc == 0, "rc %d", rc);
}

static void test_source_line(const char *obj)
{
	size_t size = 0;
	char file[96] = "", *bytes = NULL;
	unsigned int line = 0;
	FILE *f = fopen(obj, "rb");
	long n;
	int rc;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(bytes = malloc((size_t)n)) ||
	    fread(bytes, 1, (size_t)n, f) != (size_t)n) {
		check("lineinfo.read", false, "%s: cannot read", obj);
		if (f)
			fclose(f);
		free(bytes);
		return;
	}
	fclose(f);
	size = (size_t)n;
	rc = source_line_of(bytes, size, "fentry/pipe_write",
			    "if (cfg_flag && cfg_u8 > 3)", file, sizeof(file),
			    &line);
	check("lineinfo.found",
	      rc == 1 && !strcmp(file, "prog-test.bpf.c") && line == 16,
	      "%d %s:%u", rc, file, line);
	rc = source_line_of(bytes, size, "fentry/pipe_write", "no such line",
			    file, sizeof(file), &line);
	check("lineinfo.absent", rc == 0, "rc %d", rc);
	rc = source_line_of(bytes, size / 2, "fentry/pipe_write",
			    "if (cfg_flag && cfg_u8 > 3)", file, sizeof(file),
			    &line);
	/* half an object has no section table (clang puts it last): no
	 * line can be read from it, and none is made up
	 */
	check("lineinfo.truncated", rc == 0, "rc %d (want 0: nothing found)",
	      rc);
	free(bytes);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: prog-test PROG-TEST.bpf.o\n");
		return 2;
	}
	/* refusals first: once one loads, another is refused as a second */
	test_refusals(argv[1]);
	test_userprog(argv[1]);
	test_verifier();
	test_source_line(argv[1]);
	return checks_done("prog-test");
}
