// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "status.h"

const char *status_get(const struct capture_status *st, const char *key)
{
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->key[i], key))
			return st->val[i];
	return NULL;
}

int status_parse(const char *text, struct capture_status *st, char *err,
		 size_t errlen)
{
	int lineno = 0, ended = 0;

	memset(st, 0, sizeof(*st));
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *eq = memchr(line, '=', len);

		lineno++;
		if (len && line[len - 1] == '\r')
			len--;
		if (ended && len) {
			snprintf(err, errlen, "line %d: text after \"end\"",
				 lineno);
			return -1;
		}
		if (len == 3 && !strncmp(line, "end", 3)) {
			ended = 1;
		} else if (len) {
			size_t klen;

			if (!eq || eq == line) {
				snprintf(err, errlen, "line %d: not key=value",
					 lineno);
				return -1;
			}
			klen = (size_t)(eq - line);
			if (st->n == STATUS_MAX_FIELDS ||
			    klen >= STATUS_KEY_LEN ||
			    len - klen - 1 >= STATUS_VAL_LEN) {
				snprintf(err, errlen,
					 "line %d: too many or too long fields",
					 lineno);
				return -1;
			}
			memcpy(st->key[st->n], line, klen);
			if (status_get(st, st->key[st->n])) {
				snprintf(err, errlen, "line %d: %s given twice",
					 lineno, st->key[st->n]);
				return -1;
			}
			memcpy(st->val[st->n], eq + 1, len - klen - 1);
			st->n++;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (!ended) {
		snprintf(err, errlen,
			 "no \"end\" line: the record was cut short");
		return -1;
	}
	if (!status_get(st, "status")) {
		snprintf(err, errlen, "no status= field");
		return -1;
	}
	return 0;
}
