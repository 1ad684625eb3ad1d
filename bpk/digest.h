/* SPDX-License-Identifier: GPL-2.0 */
/* SHA-256 for cache keys (snapshots, the KVM probe): OpenSSL's libcrypto. */
#ifndef BPK_DIGEST_H
#define BPK_DIGEST_H

#include <stddef.h>

struct digest;

struct digest *digest_new(void);
void digest_add(struct digest *d, const void *data, size_t len);
void digest_add_str(struct digest *d, const char *s);
/* Add a file's contents; 0, or -1 with errno. */
int digest_add_file(struct digest *d, const char *path);
/* The first @hexlen hex digits of the digest into @hex (hexlen + 1 bytes),
 * and free @d.
 */
void digest_end(struct digest *d, char *hex, size_t hexlen);

#endif
