// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpk.h"
#include "digest.h"

struct digest {
	EVP_MD_CTX *ctx;
};

struct digest *digest_new(void)
{
	struct digest *d = xcalloc(1, sizeof(*d));

	d->ctx = EVP_MD_CTX_new();
	if (!d->ctx || !EVP_DigestInit_ex(d->ctx, EVP_sha256(), NULL))
		die("SHA-256: libcrypto failed to start a digest");
	return d;
}

void digest_add(struct digest *d, const void *data, size_t len)
{
	if (!EVP_DigestUpdate(d->ctx, data, len))
		die("SHA-256: libcrypto failed");
}

void digest_add_str(struct digest *d, const char *s)
{
	/* with its NUL: "ab" "c" and "a" "bc" differ */
	digest_add(d, s, strlen(s) + 1);
}

int digest_add_file(struct digest *d, const char *path)
{
	char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		if (!n)
			break;
		digest_add(d, buf, (size_t)n);
	}
	close(fd);
	return 0;
}

void digest_end(struct digest *d, char *hex, size_t hexlen)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_DigestFinal_ex(d->ctx, md, &n))
		die("SHA-256: libcrypto failed");
	EVP_MD_CTX_free(d->ctx);
	free(d);
	for (size_t i = 0; i < hexlen / 2 && i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[hexlen] = '\0';
}
