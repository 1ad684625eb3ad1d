// SPDX-License-Identifier: GPL-2.0
/*
 * Files of command-line words (argsfile.c): every byte of a word comes back
 * as it went in, in its place in argv, and bad files are refused with the
 * file named.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "argsfile.h"
#include "check.h"
#include "json_writer.h"

/* what bpk's util.c needs of main.c */
bool json_output;
json_writer_t *json_wtr;
const char *bin_name = "argsfile-test";

static char dir[] = "/tmp/argsfile-test.XXXXXX";

static char *joined(const struct strv *s)
{
	static char buf[4096];
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < s->n && o < sizeof(buf); i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s[%s]",
				      i ? " " : "", s->v[i]);
	return buf;
}

static void raw(const char *path, const char *bytes, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(bytes, 1, len, f) != len || fclose(f))
		abort();
}

int main(void)
{
	static const char *const hostile[] = {
		"file={=$_=`id`; chomp=}",
		"{}",
		"{#}",
		"{1}",
		"$(id)",
		"`id`",
		"a b",
		"'q' \"d\"",
		"\\",
		"-- not the end",
		"\n\x1b]0;T\a",
	};
	struct strv w = { 0 }, out = { 0 };
	char err[1024], *path, *bad;
	char *argv[] = { "bpk", "--runs",   "r",    "run", "--args-file",
			 NULL,	"--kernel", "ours", NULL };
	int rc;

	if (!mkdtemp(dir))
		abort();
	path = xasprintf("%s/words", dir);
	argv[5] = path;
	strv_add(&w, "trigger");
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++)
		strv_add(&w, hostile[i]);
	rc = args_file_write(path, &w, err, sizeof(err));
	check("write", rc == 0, "%s", rc ? err : "written");

	rc = args_file_expand(8, argv, &out, err, sizeof(err));
	{
		bool same = rc == 0 && out.n == 4 + w.n + 2;

		for (int i = 0; same && i < w.n; i++)
			same = !strcmp(out.v[4 + i], w.v[i]);
		same = same && !strcmp(out.v[3], "run") &&
		       !strcmp(out.v[out.n - 2], "--kernel");
		check("expand.byte_for_byte_in_place", same, "%s",
		      rc ? err : vis(joined(&out)));
	}
	strv_free(&out);

	/* a -- from the file ends the options: later words are the
	 * command's, and an --args-file among them is a word too
	 */
	{
		struct strv d = { 0 };
		char *dd = xasprintf("%s/dd", dir);
		char *av[] = {
			"bpk", "--args-file", dd, "--args-file", dd, NULL
		};

		strv_add(&d, "t");
		strv_add(&d, "--");
		strv_add(&d, "cmd");
		args_file_write(dd, &d, err, sizeof(err));
		rc = args_file_expand(5, av, &out, err, sizeof(err));
		check("expand.dashdash_ends",
		      rc == 0 && out.n == 6 &&
			      !strcmp(out.v[4], "--args-file") &&
			      !strcmp(out.v[5], dd),
		      "%s", rc ? err : joined(&out));
		strv_free(&out);
		strv_free(&d);
		free(dd);
	}
	/* after a -- of argv's own, --args-file is a word */
	{
		char *av[] = { "bpk", "run", "--", "--args-file", path, NULL };

		rc = args_file_expand(5, av, &out, err, sizeof(err));
		check("expand.after_dashdash_untouched",
		      rc == 0 && out.n == 5 && !strcmp(out.v[3], "--args-file"),
		      "%s", rc ? err : joined(&out));
		strv_free(&out);
	}
	/* refused, the file named */
	{
		char *av[] = { "bpk", "--args-file", NULL, NULL };

		bad = xasprintf("%s/missing", dir);
		av[2] = bad;
		rc = args_file_expand(3, av, &out, err, sizeof(err));
		check("refused.missing", rc == -1 && strstr(err, bad), "%s",
		      rc ? err : "accepted");
		strv_free(&out);
		free(bad);

		bad = xasprintf("%s/unended", dir);
		raw(bad, "run\0trigger", 11);
		av[2] = bad;
		rc = args_file_expand(3, av, &out, err, sizeof(err));
		check("refused.cut_short",
		      rc == -1 && strstr(err, bad) && strstr(err, "NUL"), "%s",
		      rc ? err : "accepted");
		strv_free(&out);
		free(bad);

		rc = args_file_expand(2, av, &out, err, sizeof(err));
		check("refused.no_value",
		      rc == -1 && strstr(err, "needs a file"), "%s",
		      rc ? err : "accepted");
		strv_free(&out);
	}
	{
		struct strv many = { 0 };
		char *av[] = { "bpk", "--args-file", NULL, NULL };

		bad = xasprintf("%s/many", dir);
		for (int i = 0; i <= ARGS_FILE_MAX_WORDS; i++)
			strv_add(&many, "w");
		args_file_write(bad, &many, err, sizeof(err));
		av[2] = bad;
		rc = args_file_expand(3, av, &out, err, sizeof(err));
		check("refused.too_many_words",
		      rc == -1 && strstr(err, "more than"), "%s",
		      rc ? err : "accepted");
		strv_free(&out);
		strv_free(&many);
		unlink(bad);
		free(bad);
	}
	/* written whole or not at all: no temporary file is left */
	{
		char *tmp = xasprintf("%s.tmp", path);

		check("write.no_tmp_left", access(tmp, F_OK) != 0, "%s %s", tmp,
		      access(tmp, F_OK) ? "absent" : "left");
		free(tmp);
	}
	strv_free(&w);
	{
		char *cmd = xasprintf("rm -rf %s", dir);

		if (system(cmd))
			return 1;
		free(cmd);
	}
	free(path);
	return checks_done("argsfile");
}
