/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file of command-line words: how a campaign hands the user's words to
 * its attempts. GNU parallel's command template is code ({} is replaced,
 * {= =} is Perl), so a word a user pasted from a bug report must never be
 * in it: parallel's command line holds only words bpk wrote, and
 * "bpk --args-file FILE" puts the file's words in place of those two.
 *
 * The format: each word followed by one NUL byte, nothing else (a word
 * may hold any other byte).
 */
#ifndef BPK_ARGSFILE_H
#define BPK_ARGSFILE_H

#include <stddef.h>

#include "bpk.h"

#define ARGS_FILE_OPT "--args-file"
/* Bounds on a file read: it is a command line, not data. */
#define ARGS_FILE_MAX_BYTES (1U << 20)
#define ARGS_FILE_MAX_WORDS 4096

/* Write @words to @path (mode 0600, whole or not at all). 0, or -1 with
 * the reason naming the file in @err.
 */
int args_file_write(const char *path, const struct strv *words, char *err,
		    size_t errlen);

/*
 * @argv with each "--args-file FILE" before a "--" replaced by FILE's
 * words, into @out (argv[0] first). A word of a file is never read as
 * --args-file again. 0, or -1 with the reason naming the file in @err: a
 * missing value, a file that cannot be read, is too large, holds too many
 * words or does not end in a NUL byte.
 */
int args_file_expand(int argc, char **argv, struct strv *out, char *err,
		     size_t errlen);

#endif
