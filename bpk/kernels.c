// SPDX-License-Identifier: GPL-2.0
/*
 * The kernels a guest can boot: ours (the patched 6.1 built by make
 * kernel) and Debian's stock linux-image of linux-source-6.1's version
 * (make debian-kernel), and their symbol tables, read with libelf.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpk.h"
#include "kernels.h"

/*
 * The crashkernel= reservations, measured with a 1 GiB guest as the
 * smallest that dumps, then doubled: ours needs 48M (44M and 40M die
 * "deadlocked on memory" while unpacking the capture image); Debian's
 * needs 112M (96M does not: its kernel needs 63 MiB to decompress and run
 * in place against our 25, and its capture image carries modules).
 */
#define OURS_CRASHKERNEL "192M"
#define DEBIAN_CRASHKERNEL "256M"

/* @key's value in a key=value file (Debian's kernel entry's "ok"). */
static char *kv_get(const char *path, const char *key)
{
	char *text = read_file(path, 1 << 16, NULL), *line, *val = NULL;
	size_t klen = strlen(key);

	if (!text)
		return NULL;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, key, klen) && line[klen] == '=')
			val = line + klen + 1;
	val = val ? xstrdup(val) : NULL;
	free(text);
	return val;
}

static char *entry_name(const char *dir)
{
	char *real = abs_path(dir), *base;

	if (!real)
		return xstrdup(dir);
	base = xstrdup(strrchr(real, '/') ? strrchr(real, '/') + 1 : real);
	free(real);
	return base;
}

void kernel_resolve(const char *flavor, struct kernel_info *k)
{
	const char *root = getenv("BPK_ROOT_IMG");

	memset(k, 0, sizeof(*k));
	if (!strcmp(flavor, "ours")) {
		k->flavor = "ours";
		k->dir = path_join(paths.build, "kernel");
		k->image = path_join(k->dir, "bzImage");
		k->root_img = root && *root ?
				      xstrdup(root) :
				      path_join(paths.build,
						"appliance/root.cpio.gz");
		k->default_crashkernel = OURS_CRASHKERNEL;
		k->make_target = "run-deps";
	} else if (!strcmp(flavor, "debian")) {
		char *ok;
		char *pkg, *ver;

		k->flavor = "debian";
		k->dir = path_join(paths.build, "debian-kernel");
		k->image = path_join(k->dir, "vmlinuz");
		k->root_img =
			root && *root ?
				xstrdup(root) :
				path_join(paths.build,
					  "appliance/debian/root.cpio.gz");
		k->default_crashkernel = DEBIAN_CRASHKERNEL;
		k->preinit = true;
		k->make_target = "debian-run-deps";
		ok = path_join(k->dir, "ok");
		pkg = kv_get(ok, "package");
		ver = kv_get(ok, "version");
		k->release = kv_get(ok, "kver");
		if (pkg && ver)
			k->package = xasprintf("%s %s", pkg, ver);
		if (k->release)
			k->modules = xasprintf("%s/modules/lib/modules/%s",
					       k->dir, k->release);
		free(pkg);
		free(ver);
		free(ok);
	} else {
		usage_error("--kernel '%s' must be ours or debian", flavor);
	}
	k->vmlinux = path_join(k->dir, "vmlinux");
	k->config = path_join(k->dir, "config");
	k->name = entry_name(k->dir);
}

char *kernel_missing(const struct kernel_info *k)
{
	struct strv m = { 0 };
	char *out;
	size_t n = 0;

	if (!file_exists(k->image))
		strv_addf(&m, "%s (the %s kernel: make %s)", k->image,
			  k->flavor,
			  !strcmp(k->flavor, "ours") ? "kernel" :
						       "debian-kernel");
	if (!file_exists(k->vmlinux))
		strv_addf(&m, "%s (its vmlinux: make %s)", k->vmlinux,
			  !strcmp(k->flavor, "ours") ? "kernel" :
						       "debian-kernel");
	if (!file_exists(k->root_img))
		strv_addf(&m, "%s (the guest image: make %s)", k->root_img,
			  !strcmp(k->flavor, "ours") ? "appliance" :
						       "debian-appliance");
	for (int i = 0; i < m.n; i++)
		n += strlen(m.v[i]) + 2;
	out = xcalloc(1, n + 1);
	for (int i = 0; i < m.n; i++) {
		if (i)
			strcat(out, ", ");
		strcat(out, m.v[i]);
	}
	strv_free(&m);
	return out;
}

/* Mark every name of @names found in @path's symbol table. */
static int scan_elf(const char *path, const char *const *names, bool *found,
		    char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	int rc = -1, tables = 0;

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file (%s)", path,
			 elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t count;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		tables++;
		count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || !sym.st_name)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			for (int j = 0; names[j]; j++)
				if (!found[j] && !strcmp(name, names[j]))
					found[j] = true;
		}
	}
	if (!tables) {
		snprintf(err, errlen, "%s: no symbol table", path);
		goto out;
	}
	rc = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

static bool all_found(const char *const *names, const bool *found)
{
	for (int i = 0; names[i]; i++)
		if (!found[i])
			return false;
	return true;
}

/* Every .ko under @dir, until all names are found. */
static int scan_modules(const char *dir, const char *const *names, bool *found)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return 0;
	while ((de = readdir(d)) && !all_found(names, found)) {
		char *p;
		size_t n = strlen(de->d_name);
		char ignored[256];

		if (de->d_name[0] == '.')
			continue;
		p = path_join(dir, de->d_name);
		if (is_dir(p))
			scan_modules(p, names, found);
		else if (n > 3 && !strcmp(de->d_name + n - 3, ".ko"))
			/* a module that cannot be read names nothing */
			scan_elf(p, names, found, ignored, sizeof(ignored));
		free(p);
	}
	closedir(d);
	return 0;
}

int kernel_has_symbols(const struct kernel_info *k, const char *const *names,
		       bool *found, char *err, size_t errlen)
{
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -1;
	}
	for (int i = 0; names[i]; i++)
		found[i] = false;
	if (scan_elf(k->vmlinux, names, found, err, errlen))
		return -1;
	if (k->modules && !all_found(names, found))
		scan_modules(k->modules, names, found);
	return 0;
}

int elf_has_symbol(const char *elf_path, const char *name, bool *found,
		   char *err, size_t errlen)
{
	const char *names[] = { name, NULL };

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -1;
	}
	*found = false;
	return scan_elf(elf_path, names, found, err, errlen);
}
