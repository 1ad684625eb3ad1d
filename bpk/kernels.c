// SPDX-License-Identifier: GPL-2.0
/*
 * The kernels a guest can boot: ours (the patched 6.1 built by make
 * kernel), Debian's stock linux-image of linux-source-6.1's version (make
 * debian-kernel) or of any release the archive serves (debian:RELEASE),
 * and a kernel the user built (a path); their symbol tables, read with
 * libelf, or the names of a Debian kernel's BTF until its debug package is
 * fetched.
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

#include <bpf/btf.h>

#include "bpk.h"
#include "digest.h"
#include "kconfig.h"
#include "kernels.h"
#include "proc.h"

/*
 * The crashkernel= reservations, measured with a 1 GiB guest as the
 * smallest that dumps, then doubled: ours needs 48M (44M and 40M die
 * "deadlocked on memory" while unpacking the capture image); Debian's
 * needs 112M (96M does not: its kernel needs 63 MiB to decompress and run
 * in place against our 25, and its capture image carries modules). Any
 * other Debian kernel is measured on its first run, and the machine keeps
 * what it measured (measure.c); a kernel of the user's own takes Debian's unless given
 * --crashkernel (bpk kernels --measure PATH finds its smallest).
 */
#define OURS_CRASHKERNEL "192M"
#define DEBIAN_CRASHKERNEL "256M"

char *kv_get(const char *path, const char *key)
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

char *debian_kernel_script(void)
{
	return path_join(paths.top, "appliance/debian-kernel.sh");
}

/* The Debian kernel entry's facts (its "ok" file), into @k. */
static void debian_entry(struct kernel_info *k)
{
	char *ok = path_join(k->dir, "ok");
	char *pkg = kv_get(ok, "package"), *ver = kv_get(ok, "version");
	char *name = entry_name(k->dir);
	char *ck = kernel_reservation(name);

	k->release = kv_get(ok, "kver");
	k->dbg_package = kv_get(ok, "dbg_package");
	if (pkg && ver)
		k->package = xasprintf("%s %s", pkg, ver);
	if (k->release)
		k->modules = xasprintf("%s/modules/lib/modules/%s", k->dir,
				       k->release);
	/* measured for this kernel on this machine (bpk kernels --measure) */
	if (ck && *ck) {
		k->default_crashkernel = ck;
		k->measured = true;
	} else {
		free(ck);
	}
	k->btf_names = path_join(k->dir, "btf-names");
	{
		char *missing = kv_get(ok, "missing_modules");

		if (missing && strstr(missing, "9p"))
			k->no_hostfs =
				xasprintf("%s has no 9p modules (missing: %s)",
					  pkg ? pkg : k->dir, missing);
		free(missing);
	}
	free(pkg);
	free(ver);
	free(ok);
	free(name);
}

void kernel_refresh(struct kernel_info *k)
{
	if (strcmp(k->flavor, "debian"))
		return;
	free(k->release);
	free(k->package);
	free(k->modules);
	free(k->dbg_package);
	free(k->btf_names);
	free(k->no_hostfs);
	k->release = k->package = k->modules = NULL;
	k->dbg_package = k->btf_names = k->no_hostfs = NULL;
	/* a release fetched since kernel_resolve: its entry has a name now */
	free(k->name);
	k->name = entry_name(k->dir);
	debian_entry(k);
}

/* debian:RELEASE, resolved by apt through debian-kernel.sh (the one place
 * that knows the archive's names): bad input there is bad input here.
 */
static void resolve_debian_release(const char *spec, struct kernel_info *k)
{
	const char *rel = spec + strlen("debian:");
	char *script = debian_kernel_script();
	const char *argv[] = { script, "resolve", rel, NULL };
	char *out = NULL, *err = NULL, pkg[256], ver[256], kver[256];
	char *kdir, *msg;
	int rc;

	if (!*rel)
		usage_error(
			"--kernel debian: names no release (debian:6.1.0-50-amd64, debian:6.12, debian:6.12-rt ...; bpk kernels lists them)");
	rc = proc_capture(argv, &out, &err);
	/* its last line says why; the script's own name is not the user's */
	msg = last_line(err);
	if (!strncmp(msg, "debian-kernel.sh: error: ", 25))
		msg += 25;
	if (rc == 2)
		usage_error("--kernel %s", msg);
	if (rc || !out || sscanf(out, "%255s %255s %255s", pkg, ver, kver) != 3)
		die("--kernel %s: cannot resolve it with apt (%s resolve): %s",
		    spec, script, *msg ? msg : "no output");
	k->flavor = "debian";
	k->spec = xasprintf("debian:%s", kver);
	kdir = xasprintf("%s/kernels/debian-%s", paths.build, kver);
	k->dir = path_join(kdir, "kernel");
	k->image = path_join(k->dir, "vmlinuz");
	k->root_img = path_join(kdir, "root.cpio.gz");
	k->default_crashkernel = DEBIAN_CRASHKERNEL;
	k->preinit = true;
	k->make_target = "debian-release-deps";
	k->make_vars[0] = xasprintf("DEB_KVER=%s", kver);
	debian_entry(k);
	/* the default Debian kernel's reservation is the measured one */
	{
		char *mine = abs_path(k->dir);
		char *dflt_dir = path_join(paths.build, "debian-kernel");
		char *dflt = abs_path(dflt_dir);

		if (mine && dflt && !strcmp(mine, dflt))
			k->measured = true;
		free(mine);
		free(dflt);
		free(dflt_dir);
	}
	if (!k->release)
		k->release = xstrdup(kver);
	if (!k->package)
		k->package = xasprintf("%s %s", pkg, ver);
	free(kdir);
	free(out);
	free(err);
	free(script);
}

/* The release a bzImage says it is (its setup header's kernel_version
 * string), or NULL.
 */
static char *bzimage_release(const char *image, bool *is_bzimage)
{
	unsigned char hdr[0x210];
	char ver[128];
	unsigned int off;
	FILE *f = fopen(image, "rb");
	size_t n;

	*is_bzimage = false;
	if (!f)
		return NULL;
	n = fread(hdr, 1, sizeof(hdr), f);
	if (n < sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		fclose(f);
		return NULL;
	}
	*is_bzimage = true;
	off = (unsigned int)(hdr[0x20e] | hdr[0x20f] << 8);
	/* 0: the image names no version */
	if (!off || fseek(f, off + 0x200, SEEK_SET) ||
	    !fgets(ver, sizeof(ver), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	ver[strcspn(ver, " \n")] = '\0';
	/* a release is printable words: anything else is not one */
	if (!*ver || has_control(ver))
		return NULL;
	return xstrdup(ver);
}

/* The first of @names that exists under @dir, or NULL. */
static char *first_in(const char *dir, const char *const *names)
{
	for (int i = 0; names[i]; i++) {
		char *p = path_join(dir, names[i]);

		if (file_exists(p) && !is_dir(p))
			return p;
		free(p);
	}
	return NULL;
}

/* A kernel of the user's own: a build dir, or a bzImage with its vmlinux
 * and .config beside it. What is wrong with it is bad input, said before
 * anything is built or booted.
 */
static void resolve_path(const char *spec, struct kernel_info *k)
{
	static const char *const images[] = { "arch/x86/boot/bzImage",
					      "bzImage", "vmlinuz", NULL };
	static const char *const configs[] = { ".config", "config", NULL };
	char *abs = abs_path(spec), *dir, hex[17], *kdir;
	struct digest *d;
	bool bz;

	if (!abs)
		usage_error(
			"--kernel %s: %s (not ours, debian, debian:RELEASE or the path of a kernel)",
			spec, strerror(errno));
	if (is_dir(abs)) {
		dir = xstrdup(abs);
		k->image = first_in(dir, images);
		if (!k->image)
			usage_error(
				"--kernel %s: no kernel image in this directory (arch/x86/boot/bzImage, bzImage or vmlinuz)",
				spec);
	} else {
		char *slash;

		k->image = xstrdup(abs);
		dir = xstrdup(abs);
		slash = strrchr(dir, '/');
		*slash = '\0';
	}
	k->release = bzimage_release(k->image, &bz);
	if (!bz)
		usage_error(
			"--kernel %s: %s is not an x86 bzImage (no HdrS boot header)",
			spec, k->image);
	k->vmlinux = path_join(dir, "vmlinux");
	if (!file_exists(k->vmlinux))
		usage_error(
			"--kernel %s: no vmlinux in %s (crash and drgn read the dump with it, and bpk checks names against it)",
			spec, dir);
	k->config = first_in(dir, configs);
	if (!k->config)
		usage_error(
			"--kernel %s: no .config or config in %s (bpk checks that the kernel has what the appliance needs)",
			spec, dir);
	{
		char *config = read_file(k->config, 1 << 24, NULL);
		char *fs = kconfig_value(config, "CONFIG_9P_FS");
		char *net = kconfig_value(config, "CONFIG_NET_9P_VIRTIO");

		/* its modules do not come with it: built in or nothing */
		if (!fs || strcmp(fs, "y") || !net || strcmp(net, "y"))
			k->no_hostfs = xasprintf(
				"its config has CONFIG_9P_FS=%s, CONFIG_NET_9P_VIRTIO=%s (both =y are needed)",
				fs ? fs : "(not set)", net ? net : "(not set)");
		free(fs);
		free(net);
		free(config);
	}
	d = digest_new();
	if (digest_add_file(d, k->image))
		die("--kernel %s: cannot read %s: %s", spec, k->image,
		    strerror(errno));
	digest_end(d, hex, 16);
	k->flavor = "path";
	k->spec = xstrdup(abs);
	k->dir = dir;
	k->name = xasprintf("path-%s", hex);
	kdir = xasprintf("%s/kernels/%s", paths.build, k->name);
	k->root_img = path_join(kdir, "root.cpio.gz");
	k->default_crashkernel = DEBIAN_CRASHKERNEL;
	k->make_target = "path-run-deps";
	k->make_vars[0] = xasprintf("USER_KIMAGE=%s", k->image);
	k->make_vars[1] = xasprintf("USER_KKEY=%s", hex);
	free(kdir);
	free(abs);
}

void kernel_resolve(const char *spec, struct kernel_info *k)
{
	const char *root = getenv("BPK_ROOT_IMG");

	memset(k, 0, sizeof(*k));
	if (!strcmp(spec, "ours")) {
		k->flavor = "ours";
		k->dir = path_join(paths.build, "kernel");
		k->image = path_join(k->dir, "bzImage");
		k->root_img = path_join(paths.build, "appliance/root.cpio.gz");
		k->default_crashkernel = OURS_CRASHKERNEL;
		k->measured = true;
		k->make_target = "run-deps";
		{
			bool bz;

			k->release = bzimage_release(k->image, &bz);
		}
	} else if (!strcmp(spec, "debian")) {
		k->flavor = "debian";
		k->dir = path_join(paths.build, "debian-kernel");
		k->image = path_join(k->dir, "vmlinuz");
		k->root_img =
			path_join(paths.build, "appliance/debian/root.cpio.gz");
		k->default_crashkernel = DEBIAN_CRASHKERNEL;
		k->measured = true;
		k->preinit = true;
		k->make_target = "debian-run-deps";
		debian_entry(k);
	} else if (!strncmp(spec, "debian:", 7)) {
		resolve_debian_release(spec, k);
	} else if (strchr(spec, '/') || file_exists(spec)) {
		resolve_path(spec, k);
	} else {
		usage_error(
			"--kernel '%s': not ours, debian, debian:RELEASE or the path of a kernel (a build dir or a bzImage)",
			spec);
	}
	if (!k->spec)
		k->spec = xstrdup(spec);
	if (root && *root) {
		free(k->root_img);
		k->root_img = xstrdup(root);
	}
	if (!k->vmlinux)
		k->vmlinux = path_join(k->dir, "vmlinux");
	if (!k->config)
		k->config = path_join(k->dir, "config");
	if (!k->name)
		k->name = entry_name(k->dir);
}

char *kernel_missing(const struct kernel_info *k)
{
	struct strv m = { 0 };
	char *out, *how;
	bool ours = !strcmp(k->flavor, "ours");

	how = k->make_vars[0] ?
		      xasprintf("make %s %s%s%s", k->make_target,
				k->make_vars[0], k->make_vars[1] ? " " : "",
				k->make_vars[1] ? k->make_vars[1] : "") :
	      ours ? xstrdup("make kernel") :
		     xstrdup("make debian-kernel");
	if (!file_exists(k->image))
		strv_addf(&m, "%s (the %s kernel: %s)", k->image, k->spec, how);
	/* a Debian kernel's vmlinux is fetched when a dump is analysed */
	if (strcmp(k->flavor, "debian") && !file_exists(k->vmlinux))
		strv_addf(&m, "%s (its vmlinux: %s)", k->vmlinux, how);
	if (!file_exists(k->root_img))
		strv_addf(&m, "%s (the guest image: %s)", k->root_img,
			  k->make_vars[0] ? how :
			  ours		  ? "make appliance" :
					    "make debian-appliance");
	out = strv_join(&m, ", ");
	strv_free(&m);
	free(how);
	return out;
}

const char *kernel_symbols_from(const struct kernel_info *k)
{
	static char buf[4096];

	if (!file_exists(k->vmlinux) && k->btf_names &&
	    file_exists(k->btf_names))
		snprintf(
			buf, sizeof(buf),
			"%s: the names of its BTF, its debug package not fetched yet",
			k->btf_names);
	else
		snprintf(buf, sizeof(buf), "%s", k->vmlinux);
	return buf;
}

/*
 * Mark the names found in a Debian kernel's btf-names ("func NAME", "tp
 * NAME"): functions by name, __tracepoint_NAME by its tracepoint. BTF does
 * not name trace event categories (str__CAT__trace_system_name): they are
 * checked by the kernel when the program attaches.
 */
static int scan_btf_names(const char *path, const char *const *names,
			  bool *found, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (int j = 0; names[j]; j++)
		if (!strncmp(names[j], "str__", 5))
			found[j] = true;
	while (fgets(line, sizeof(line), f)) {
		bool tp = !strncmp(line, "tp ", 3);
		const char *name;

		if (!tp && strncmp(line, "func ", 5))
			continue;
		line[strcspn(line, "\n")] = '\0';
		name = line + (tp ? 3 : 5);
		for (int j = 0; names[j]; j++) {
			const char *want = names[j];

			if (tp && strncmp(want, "__tracepoint_", 13))
				continue;
			if (tp)
				want += 13;
			if (!found[j] && !strcmp(name, want))
				found[j] = true;
		}
	}
	fclose(f);
	return 0;
}

/* The value of BPF_FUNC_panic in enum bpf_func_id, -1 if none. */
long long btf_panic_helper_id(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, (unsigned int)id);
	e = btf_enum(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off),
			    "BPF_FUNC_panic"))
			return e->val;
	return -1;
}

bool kernel_has_bpf_panic(const struct kernel_info *k)
{
	struct btf *btf;
	long long id;

	if (!strcmp(k->flavor, "ours"))
		return true;
	/* Debian's kernels are stock: the series is ours */
	if (strcmp(k->flavor, "path"))
		return false;
	btf = btf__parse(k->vmlinux, NULL);
	if (!btf)
		return false;
	id = btf_panic_helper_id(btf);
	btf__free(btf);
	return id >= 0;
}

char *kernel_vmlinux_path(const struct kernel_info *k)
{
	char *dir, *v;

	if (file_exists(k->vmlinux)) {
		v = abs_path(k->vmlinux);
		return v ? v : xstrdup(k->vmlinux);
	}
	dir = abs_path(k->dir);
	v = dir ? path_join(dir, "vmlinux") : xstrdup(k->vmlinux);
	free(dir);
	return v;
}

int kernel_config_missing(const struct kernel_info *k, struct strv *out,
			  char *err, size_t errlen)
{
	char *config = read_file(k->config, 1 << 24, NULL);

	if (!config) {
		snprintf(err, errlen, "%s: %s", k->config, strerror(errno));
		return -1;
	}
	/* a Debian kernel comes with its modules */
	kconfig_missing(config,
			k->modules != NULL || !strcmp(k->flavor, "debian"),
			out);
	free(config);
	return 0;
}

/* A kernel that is not ours: does its config have what the appliance
 * needs? Refused before boot, every option lacking named.
 */
void kernel_refuse_unfit(const struct kernel_info *k)
{
	struct strv lack = { 0 };
	char err[1024];
	char *all;

	if (!strcmp(k->flavor, "ours"))
		return;
	if (kernel_config_missing(k, &lack, err, sizeof(err)))
		usage_error("--kernel %s: cannot check its config: %s", k->spec,
			    err);
	if (!lack.n)
		return;
	all = strv_join(&lack, "; ");
	usage_error(
		"--kernel %s: this kernel lacks what the appliance needs (bpk check --kernel %s): %s",
		k->spec, k->spec, all);
}

int kernel_fetch_vmlinux(const char *vmlinux, char *err, size_t errlen)
{
	char *dir = xstrdup(vmlinux), *slash = strrchr(dir, '/'), *ok, *dbg;
	char *kver, *script;
	int rc;

	if (file_exists(vmlinux)) {
		free(dir);
		return 0;
	}
	if (slash)
		*slash = '\0';
	ok = path_join(dir, "ok");
	dbg = kv_get(ok, "dbg_package");
	kver = kv_get(ok, "kver");
	free(ok);
	if (!dbg || !kver) {
		snprintf(err, errlen, "%s: no such file", vmlinux);
		free(dbg);
		free(kver);
		free(dir);
		return -1;
	}
	script = debian_kernel_script();
	p_info("the dump is read with %s's debug symbols: fetching %s once, into the cache",
	       kver, dbg);
	{
		const char *argv[] = { script, "debug", dir, NULL };

		rc = proc_run_shown(argv);
	}
	if (rc || !file_exists(vmlinux))
		snprintf(err, errlen, "%s debug %s failed (exit %d)", script,
			 dir, rc);
	free(script);
	free(dbg);
	free(kver);
	free(dir);
	return rc || !file_exists(vmlinux) ? -1 : 0;
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
	if (!file_exists(k->vmlinux) && k->btf_names &&
	    file_exists(k->btf_names)) {
		if (scan_btf_names(k->btf_names, names, found, err, errlen))
			return -1;
	} else if (scan_elf(k->vmlinux, names, found, err, errlen)) {
		return -1;
	}
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
