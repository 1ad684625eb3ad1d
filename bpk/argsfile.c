// SPDX-License-Identifier: GPL-2.0
/* Files of command-line words (argsfile.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "argsfile.h"

int args_file_write(const char *path, const struct strv *words, char *err,
		    size_t errlen)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f;
	int rc = -1;

	f = fopen(tmp, "wxe");
	if (!f) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	for (int i = 0; i < words->n; i++)
		fwrite(words->v[i], 1, strlen(words->v[i]) + 1, f);
	if (fflush(f) || ferror(f) || fsync(fileno(f))) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		fclose(f);
		goto out;
	}
	if (fclose(f)) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (rename(tmp, path)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

/* @path's words onto @out. */
static int read_words(const char *path, struct strv *out, char *err,
		      size_t errlen)
{
	size_t len = 0;
	char *text = read_file(path, ARGS_FILE_MAX_BYTES, &len);
	int words = 0;

	if (!text) {
		snprintf(err, errlen, "%s %s: %s", ARGS_FILE_OPT, path,
			 errno == EFBIG ? "more than 1 MiB of words" :
					  strerror(errno));
		return -1;
	}
	if (len && text[len - 1] != '\0') {
		snprintf(
			err, errlen,
			"%s %s: its last word does not end in a NUL byte (cut short?)",
			ARGS_FILE_OPT, path);
		free(text);
		return -1;
	}
	for (size_t o = 0; o < len; o += strlen(text + o) + 1) {
		if (++words > ARGS_FILE_MAX_WORDS) {
			snprintf(err, errlen, "%s %s: more than %d words",
				 ARGS_FILE_OPT, path, ARGS_FILE_MAX_WORDS);
			free(text);
			return -1;
		}
		strv_add(out, text + o);
	}
	free(text);
	return 0;
}

int args_file_expand(int argc, char **argv, struct strv *out, char *err,
		     size_t errlen)
{
	bool dashdash = false;
	int i, first;

	for (i = 0; i < argc; i++) {
		if (i > 0 && !strcmp(argv[i], "--"))
			break;
		if (i == 0 || strcmp(argv[i], ARGS_FILE_OPT)) {
			strv_add(out, argv[i]);
			continue;
		}
		if (i + 1 >= argc || !*argv[i + 1]) {
			snprintf(err, errlen, "%s needs a file", ARGS_FILE_OPT);
			return -1;
		}
		first = out->n;
		if (read_words(argv[++i], out, err, errlen))
			return -1;
		/* a "--" from the file ends the options: what follows it is
		 * a command's words, expanded no more
		 */
		for (int w = first; w < out->n; w++)
			if (!strcmp(out->v[w], "--"))
				dashdash = true;
		if (dashdash) {
			i++;
			break;
		}
	}
	for (; i < argc; i++)
		strv_add(out, argv[i]);
	return 0;
}
