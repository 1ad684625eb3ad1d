# bpf-panic kdump appliance. `make demo` and `make test` are the entry points;
# every target installs (apt-get) and builds what it needs first.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

BUILD ?= build
# Kernel builds are cached here, outside the clone, keyed by their inputs.
export BPK_CACHE ?= $(HOME)/.cache/bpf-panic-kdump
export BUILD := $(abspath $(BUILD))

CC := gcc
CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -g

DEB_PKGS := linux-source-6.1 kexec-tools makedumpfile crash libbpf-dev bpftool \
	clang llvm dracut-core qemu-system-x86 bison flex libelf-dev zlib1g-dev dwarves \
	bc libssl-dev cpio xz-utils gzip busybox-static gcc make perl python3 shellcheck \
	clang-format git procps

KERNEL_INPUTS := kernel-series/series kernel-series/source-version \
	kernel-series/appliance.config kernel-series/build-kernel.sh \
	$(wildcard kernel-series/*.patch)
KERNEL := $(BUILD)/kernel
KERNEL_OK := $(BUILD)/kernel.ok
KHDR := $(KERNEL)/src/tools/include/uapi

.PHONY: all deps kernel check-series guard test clean distclean
all: kernel guard

deps: $(BUILD)/deps.ok
$(BUILD)/deps.ok: Makefile lib/install-deps.sh
	@mkdir -p $(@D)
	lib/install-deps.sh $(DEB_PKGS)
	touch $@

# The patched kernel: bzImage, vmlinux and the patched tree, behind a symlink
# into the cache. build-kernel.sh answers from the cache when nothing changed.
kernel: $(KERNEL_OK)
$(KERNEL_OK): $(KERNEL_INPUTS) $(BUILD)/deps.ok
	kernel-series/build-kernel.sh $(KERNEL)
	touch $@

# Slow (three incremental kernel builds): the tree builds after each patch.
check-series: $(KERNEL_OK)
	kernel-series/check-each-patch.sh $(KERNEL)

# --- guard tests of the series (issue: the patched appliance kernel)
GUARD_SRCS := $(wildcard tests/guard/*.c tests/guard/*.h)
GUARD_JOBS := $(wildcard tests/guard/jobs/*)
guard: $(BUILD)/guard-initramfs.cpio.gz

# Static: the guest has no dynamic loader. The patched tree's UAPI header
# comes first, so BPF_FUNC_panic and BPF_F_DESTRUCTIVE are the kernel's own.
$(BUILD)/guard: $(GUARD_SRCS) $(KERNEL_OK)
	$(CC) $(CFLAGS) -I$(KHDR) -static -o $@ $(filter %.c,$^) -lbpf -lelf -lz

$(BUILD)/guard-initramfs.cpio.gz: $(BUILD)/guard appliance/mkinitramfs.sh appliance/guest/init \
		$(GUARD_JOBS) tests/guard/panic-message
	appliance/mkinitramfs.sh $@ $(BUILD)/guard=/bin/guard \
		$(foreach j,$(GUARD_JOBS),$(j)=/etc/bpk/jobs/$(notdir $(j))) \
		tests/guard/panic-message=/etc/bpk/panic-message

test: $(KERNEL_OK) $(BUILD)/guard-initramfs.cpio.gz
	tests/run-all.sh

clean:
	rm -rf $(BUILD)

# Also drops every cached kernel build.
distclean: clean
	rm -rf $(BPK_CACHE)
