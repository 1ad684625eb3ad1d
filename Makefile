# bpf-panic kdump appliance. `make demo` and `make test` are the entry points;
# every target installs (apt-get) and builds what it needs first.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

BUILD ?= build
# Kernel builds, Debian's kernels and snapshots are cached here, outside the
# clone, keyed by their inputs: the same place bpk uses (bpk/config.c).
export BPK_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/bpf-panic-kdump
export BUILD := $(abspath $(BUILD))

CC := gcc
CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -g

DEB_PKGS := linux-source-6.1 kexec-tools makedumpfile crash libbpf-dev bpftool \
	clang llvm dracut-core qemu-system-x86 bison flex libelf-dev zlib1g-dev dwarves \
	bc libssl-dev cpio xz-utils gzip lz4 busybox-static gcc make perl python3 shellcheck \
	clang-format git procps \
	python3-drgn python3-jsonschema python3-pyflakes gdb kmod scdoc man-db \
	libjansson-dev
# campaigns run their attempts through GNU parallel (rsync: its --sshlogin
# file transfers)
DEB_PKGS += parallel rsync
# the analysis toolbox: a root with current crash and drgn (mmdebstrap),
# run unprivileged (bubblewrap)
DEB_PKGS += mmdebstrap bubblewrap
# the wait-for graph beside the report (dot)
DEB_PKGS += graphviz

KERNEL_INPUTS := kernel-series/series kernel-series/source-version \
	kernel-series/appliance.config kernel-series/build-kernel.sh \
	$(wildcard kernel-series/*.patch)
# KERNEL=debian on the command line picks the kernel a run boots (make
# run/demo); inside this Makefile KERNEL stays our build's directory.
RUN_KERNEL := $(if $(filter command line,$(origin KERNEL)),$(KERNEL),ours)
override KERNEL := $(BUILD)/kernel
KERNEL_OK := $(BUILD)/kernel.ok
KERNEL_STAMP := $(BUILD)/kernel.stamp
KHDR := $(KERNEL)/src/tools/include/uapi

.PHONY: all deps kernel check-series mutants guard selftest test clean distclean help
help:
	@echo 'make demo            set up everything, run the demo trigger, print its report'
	@echo 'make test            make check, then every booted test (tests/*.test.sh)'
	@echo 'make check           what needs no QEMU: lint, unit tests (ASan/UBSan), CLI tests'
	@echo 'make all             build the kernel, the images, triggerctl, bpk, the tools'
	@echo 'make run TRIGGER=name ARGS="k=v ..." [WORKLOAD=file KERNEL=debian ...]   one run'
	@echo 'make campaign TRIGGER=name ATTEMPTS=n JOBS=j ...   many attempts (bpk campaign)'
	@echo 'make crash|drgn [RUN=id]   the analyzers on a run (bpk crash, bpk drgn)'
	@echo 'make bench           the loop, its phases and costs, side by side (bench/)'
	@echo 'make fuzz [FUZZ_SECONDS=n]   libFuzzer on the parsers of guest bytes'
	@echo 'make asan            bpk under ASan/UBSan: the unit and command-line tests against it'
	@echo 'make debian-kernel   fetch Debian'"'"'s stock kernel of linux-source-6.1'"'"'s version'
	@echo 'make check-series    build the tree after each patch of the series (slow)'
	@echo 'make mutants         each gate of the series removed in turn: the tests catch it (slow)'
	@echo 'make install [PREFIX=/usr/local]   bpk, bpk(1), bash completion; make uninstall'
	@echo 'make deps            install the Debian packages (as root)'
	@echo 'make clean | distclean   remove build/ (distclean: the kernel cache too)'
	@echo 'bpk --help and man bpk (build/bpk.1) describe the command itself.'
all: kernel guard selftest appliance triggers examples host-tools bpk

# Hangs on demand for the wait-for analysis (tests/63-hangs): a module
# built out of tree against our kernel's cached build, never loaded here.
# Against Debian's kernel: its headers, downloaded once into the cache.
HANG_KO := $(BUILD)/hang/bpk_hang-ours.ko
HANG_DEB_KO := $(BUILD)/hang/bpk_hang-debian.ko
$(HANG_KO): tests/hang/bpk_hang.c tests/hang/Kbuild tests/hang/build.sh $(KERNEL_OK)
	tests/hang/build.sh $(KERNEL) $@
$(HANG_DEB_KO): tests/hang/bpk_hang.c tests/hang/Kbuild tests/hang/build-debian.sh $(BUILD)/debian-kernel.ok
	tests/hang/build-debian.sh $(BUILD)/debian-kernel $@

# The analysis toolbox (analysis/toolbox.sh): made once into the cache, then
# only checked against its manifest (a tenth of a second). When it cannot be
# made here, runs still report with Debian 12's crash and drgn, and say why.
.PHONY: toolbox
toolbox: $(BUILD)/deps.ok
	analysis/toolbox.sh root >/dev/null || echo "make: no analysis toolbox (the reason above): reports use Debian 12's crash and drgn" >&2
# sid's too, for the tests only: 63-hangs reads a dump with its drgn, the
# one with drgn's own locking helpers (the test user cannot make it)
.PHONY: toolbox-sid
toolbox-sid: $(BUILD)/deps.ok
	analysis/toolbox.sh root sid >/dev/null || echo "make: no sid toolbox (the reason above): 63-hangs will say so" >&2

deps: $(BUILD)/deps.ok
$(BUILD)/deps.ok: Makefile lib/install-deps.sh
	@mkdir -p $(@D)
	lib/install-deps.sh $(DEB_PKGS)
	touch $@

# The patched kernel: bzImage, vmlinux and the patched tree, behind a symlink
# into the cache. build-kernel.sh answers from the cache, keyed by the
# inputs' content, when nothing changed. kernel.ok names the cache entry and
# is rewritten only when that changes (write-if-changed, as makedumpfile-opts
# below): a touched input reruns build-kernel.sh, but rebuilds nothing that
# depends on the kernel. kernel.stamp records when the inputs were checked.
kernel: $(KERNEL_OK)
$(KERNEL_STAMP): $(KERNEL_INPUTS) | $(BUILD)/deps.ok
	kernel-series/build-kernel.sh $(KERNEL)
	@readlink -f $(KERNEL) | cmp -s - $(KERNEL_OK) || readlink -f $(KERNEL) > $(KERNEL_OK)
	@touch $@
$(KERNEL_OK): $(KERNEL_STAMP)
	@test -s $@ || readlink -f $(KERNEL) > $@

# Slow (three incremental kernel builds): the tree builds after each patch.
check-series: $(KERNEL_OK)
	kernel-series/check-each-patch.sh $(KERNEL)

# Slow (an incremental kernel build and a boot per gate, about 20 min):
# each gate of the series removed in turn (tests/selftest/mutants), and
# the selftest, or the guard tests where the selftest must not go, run on
# that kernel: every one must fail.
mutants: bpk $(BUILD)/selftest-initramfs.cpio.gz $(BUILD)/guard-initramfs.cpio.gz
	tests/selftest/mutate.sh

# --- guard tests of the series (the patched appliance kernel)
GUARD_SRCS := $(wildcard tests/guard/*.c tests/guard/*.h)
GUARD_JOBS := $(wildcard tests/guard/jobs/*)
# the guest's side of the protocol: every image has it (mkinitramfs.sh,
# the dracut module)
GUEST_LIB := appliance/guest/bpk-lib.sh
guard: $(BUILD)/guard-initramfs.cpio.gz

# Static: the guest has no dynamic loader. The patched tree's UAPI header
# comes first, so BPF_FUNC_panic and BPF_F_DESTRUCTIVE are the kernel's own.
$(BUILD)/guard: $(GUARD_SRCS) $(KERNEL_OK)
	$(CC) $(CFLAGS) -I$(KHDR) -static -o $@ $(filter %.c,$^) -lbpf -lelf -lz

$(BUILD)/guard-initramfs.cpio.gz: $(BUILD)/guard appliance/mkinitramfs.sh appliance/guest/init $(GUEST_LIB) \
		$(GUARD_JOBS) tests/guard/panic-message
	appliance/mkinitramfs.sh $@ $(BUILD)/guard=/bin/guard \
		$(foreach j,$(GUARD_JOBS),$(j)=/etc/bpk/jobs/$(notdir $(j))) \
		tests/guard/panic-message=/etc/bpk/panic-message

# The series' own selftest (prog_tests/bpf_panic.c and progs/bpf_panic.c
# of the patched tree), built with the selftest's headers into
# tests/selftest/runner.c, a minimal test_progs, and run in the guest
# (tests/24-selftest). The
# selftest's sources are built as upstream builds them (-Wall -Werror).
ST := $(KERNEL)/src/tools/testing/selftests/bpf
SELFTEST := $(BUILD)/bpf-panic-selftest
SELFTEST_JOBS := $(wildcard tests/selftest/jobs/*)
# Its BPF side as the bpf tree builds it: progs/bpf_panic.c against our
# kernel's vmlinux.h and the tree's own bpf_helpers.h, whose
# bpf_helper_defs.h is generated from the tree's UAPI (bpf_panic() is in
# it), then a skeleton.
STB := $(BUILD)/selftest
$(STB)/bpf/bpf_helper_defs.h: $(KERNEL_OK)
	@mkdir -p $(@D)
	python3 $(KERNEL)/src/scripts/bpf_doc.py --header --file $(KERNEL)/src/tools/include/uapi/linux/bpf.h > $@.tmp
	cp $(KERNEL)/src/tools/lib/bpf/bpf_helpers.h $(KERNEL)/src/tools/lib/bpf/bpf_tracing.h \
		$(KERNEL)/src/tools/lib/bpf/bpf_core_read.h $(@D)/
	mv $@.tmp $@
# The source is the kernel tree's, which kernel.ok stands for: it may not
# exist yet when make reads this (a fresh clone). TB is set further down:
# the triggers' dir, where vmlinux.h is made.
$(STB)/%.bpf.o: $(STB)/bpf/bpf_helper_defs.h $(BUILD)/triggers/vmlinux.h $(KERNEL_OK)
	clang -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 -I$(STB) -I$(TB) -I$(ST) -I$(KHDR) \
		-idirafter /usr/include/x86_64-linux-gnu -c $(ST)/progs/$*.c -o $@
.PRECIOUS: $(STB)/%.bpf.o $(STB)/%.skel.h $(STB)/%.lskel.h
$(STB)/%.skel.h: $(STB)/%.bpf.o
	bpftool gen skeleton $< name $* > $@.tmp
	mv $@.tmp $@
$(STB)/%.lskel.h: $(STB)/%.bpf.o
	bpftool gen skeleton -L $< name $*_lskel > $@.tmp
	mv $@.tmp $@
ST_CFLAGS = -std=gnu11 -O2 -g -Wall -Werror -static -I$(STB) -I$(ST) -I$(KERNEL)/src/tools/include \
	-I$(KHDR) -I$(KERNEL)/src/tools/lib -I$(KERNEL)/src/tools/arch/x86/include
$(SELFTEST): tests/selftest/runner.c $(STB)/bpf_panic.skel.h $(KERNEL_OK)
	$(CC) $(ST_CFLAGS) -o $@ tests/selftest/runner.c $(ST)/prog_tests/bpf_panic.c $(ST)/cap_helpers.c \
		-lbpf -lelf -lz
# The tree's own kfunc_call test (test_progs -t kfunc_call), built the same
# way: its destructive subtest loads the do-nothing destructive test kfunc,
# which the series must leave loadable.
KFUNC_CALL_TEST := $(BUILD)/kfunc-call-test
KFUNC_CALL_SKELS := $(addprefix $(STB)/,kfunc_call_fail.skel.h kfunc_call_test.skel.h \
	kfunc_call_test.lskel.h kfunc_call_test_subprog.skel.h kfunc_call_test_subprog.lskel.h \
	kfunc_call_destructive.skel.h)
$(KFUNC_CALL_TEST): tests/selftest/runner.c $(KFUNC_CALL_SKELS) $(KERNEL_OK)
	$(CC) $(ST_CFLAGS) -DTEST=kfunc_call -DTEST_FUNC=test_kfunc_call -o $@ tests/selftest/runner.c \
		$(ST)/prog_tests/kfunc_call.c $(ST)/network_helpers.c $(ST)/cap_helpers.c -lbpf -lelf -lz
# The kernel with one gate removed (a test-only patch, built incrementally
# over the kernel's tree in an overlay): the crash_kexec kfunc's call-time
# check, which the selftest observes without ever panicking; it must fail
# there (tests/24-selftest). make mutants does the same for every gate.
SELFTEST_MUTANT := tests/selftest/mutants/17-kfunc-call.patch
SELFTEST_BROKEN := $(BUILD)/bzImage-mutant-kfunc-call
$(SELFTEST_BROKEN): $(SELFTEST_MUTANT) tests/selftest/build-variant.sh $(KERNEL_OK)
	tests/selftest/build-variant.sh $(KERNEL) $(SELFTEST_MUTANT) $@
selftest: $(BUILD)/selftest-initramfs.cpio.gz $(SELFTEST_BROKEN)
$(BUILD)/selftest-initramfs.cpio.gz: $(SELFTEST) $(KFUNC_CALL_TEST) appliance/mkinitramfs.sh appliance/guest/init \
		$(GUEST_LIB) $(SELFTEST_JOBS)
	appliance/mkinitramfs.sh $@ $(SELFTEST)=/bin/bpf-panic-selftest $(KFUNC_CALL_TEST)=/bin/kfunc-call-test \
		$(foreach j,$(SELFTEST_JOBS),$(j)=/etc/bpk/jobs/$(notdir $(j)))

# --- triggers: CO-RE programs against our kernel's BTF, one loader
TB := $(BUILD)/triggers
# the SDK: the header a trigger program includes and what is behind it
SDK_HDRS := $(wildcard triggers/sdk/bpk/*.h)
TRIGGER_NAMES := $(patsubst triggers/%.bpf.c,%,$(wildcard triggers/*.bpf.c))
TRIGGER_SKELS := $(TRIGGER_NAMES:%=$(TB)/%.skel.h)
TRIGGERCTL_SRCS := $(filter-out %.bpf.c,$(wildcard triggers/*.c)) $(TB)/names-gen.c
TRIGGERCTL := $(TB)/triggerctl
.PHONY: triggers
triggers: $(TRIGGERCTL)

# Generated from the kernel, write-if-changed: the same BTF (or syscall
# table) leaves every BPF object (or triggerctl) alone. A .stamp records the
# generation, so that an unchanged file older than kernel.ok is not
# generated again on every make.
$(TB)/vmlinux.h.stamp: $(KERNEL_OK)
	@mkdir -p $(@D)
	bpftool btf dump file $(KERNEL)/vmlinux format c > $(TB)/vmlinux.h.tmp
	@if cmp -s $(TB)/vmlinux.h.tmp $(TB)/vmlinux.h; then rm $(TB)/vmlinux.h.tmp; \
	else mv $(TB)/vmlinux.h.tmp $(TB)/vmlinux.h; fi
	@touch $@
$(TB)/vmlinux.h: $(TB)/vmlinux.h.stamp
	@test -s $@ || bpftool btf dump file $(KERNEL)/vmlinux format c > $@

$(TB)/%.bpf.o: triggers/%.bpf.c $(SDK_HDRS) triggers/fire.h $(TB)/vmlinux.h
	clang -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 -I$(TB) -Itriggers/sdk -Itriggers -c $< -o $@

$(TB)/%.skel.h: $(TB)/%.bpf.o
	bpftool gen skeleton $< name $*_bpf > $@

$(TB)/names-gen.stamp: triggers/gen-names.sh $(KERNEL_OK)
	@mkdir -p $(@D)
	triggers/gen-names.sh $(KERNEL)/src $(TB)/names-gen.c
	@touch $@
$(TB)/names-gen.c: $(TB)/names-gen.stamp
	@test -s $@ || triggers/gen-names.sh $(KERNEL)/src $@

# Static, so that the same binary runs in the guest and (list) on the host.
$(TRIGGERCTL): $(TRIGGERCTL_SRCS) $(wildcard triggers/*.h) $(TRIGGER_SKELS)
	$(CC) $(CFLAGS) -I$(KHDR) -I$(TB) -Itriggers -static -o $@ $(TRIGGERCTL_SRCS) -lbpf -lelf -lz

# Example workloads that need a binary (a uprobe target, a memory hog):
# static, since they run in the guest.
EXAMPLE_BINS := $(patsubst triggers/examples/%.c,$(BUILD)/examples/%,$(wildcard triggers/examples/*.c))
.PHONY: examples
examples: $(EXAMPLE_BINS)
$(BUILD)/examples/%: triggers/examples/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<

# --- the appliance guest: kdump initramfs (dracut) and root initramfs
AB := $(BUILD)/appliance
MAKEDUMPFILE_OPTS ?= -d 31
KDUMP_IMG := $(AB)/kdump.img
ROOT_IMG := $(AB)/root.cpio.gz
.PHONY: appliance
appliance: $(ROOT_IMG)

# Passed through the environment, so a quote in the options cannot break
# the recipe's own quoting.
$(AB)/makedumpfile-opts: export MAKEDUMPFILE_OPTS := $(MAKEDUMPFILE_OPTS)
$(AB)/makedumpfile-opts: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' "$$MAKEDUMPFILE_OPTS" | cmp -s - $@ || printf '%s\n' "$$MAKEDUMPFILE_OPTS" > $@

$(KDUMP_IMG): appliance/mkkdump.sh $(wildcard appliance/kdump/99bpkdump/*) $(GUEST_LIB) $(AB)/makedumpfile-opts | $(BUILD)/deps.ok
	appliance/mkkdump.sh $@ "$$(cat $(AB)/makedumpfile-opts)"

# The crash kernel is the same bzImage; kexec comes with its libraries.
$(ROOT_IMG): appliance/mkinitramfs.sh appliance/guest/init $(GUEST_LIB) $(wildcard appliance/guest/jobs/*) \
		$(KDUMP_IMG) $(TRIGGERCTL) $(KERNEL_OK)
	appliance/mkinitramfs.sh $@ $(KERNEL)/bzImage=/boot/bzImage $(KDUMP_IMG)=/boot/kdump.img \
		$$(command -v kexec)=/sbin/kexec $(TRIGGERCTL)=/bin/triggerctl \
		$(foreach j,$(wildcard appliance/guest/jobs/*),$(j)=/etc/bpk/jobs/$(notdir $(j)))

.PHONY: FORCE
FORCE:

# --- host side: bpk, one C program (bpk/, with the collector's code in
# collector/ and the trigger table and parameter parser triggerctl uses),
# and the report's fire-record decoder
BK := $(BUILD)/bpk
BPK := $(BK)/bpk
BPK_GEN := $(BK)/gen/causes.h $(BK)/gen/patterns.h
COLLECTOR_LIB := collector/collect.c collector/flat.c collector/status.c collector/guestlog.c collector/hostdump.c
# bpk checks names and parameters against the trigger table; it needs no
# BPF program bytes (TABLE_WITHOUT_PROGRAMS)
BPK_TABLE := triggers/table.c triggers/params.c triggers/names.c triggers/describe.c triggers/userprog.c $(TB)/names-gen.c
BPK_CORE := $(filter-out bpk/main.c,$(wildcard bpk/*.c))
BPK_SRCS := bpk/main.c $(BPK_CORE) $(COLLECTOR_LIB) $(BPK_TABLE)
BPK_HDRS := $(wildcard bpk/*.h collector/*.h triggers/*.h)
BPK_INC := -Ibpk -Icollector -Itriggers -I$(BK)/gen
BPK_LIBS := -lbpf -lelf -lz -ljansson -lcrypto
.PHONY: bpk

# The cause vocabulary is the run record schema's; the console texts are
# lib/console-patterns: both generated into C, never written twice.
$(BK)/gen/causes.h: analysis/run.schema.json bpk/gen-causes.py
	@mkdir -p $(@D)
	bpk/gen-causes.py $< $@
$(BK)/gen/patterns.h: lib/console-patterns bpk/gen-patterns.awk
	@mkdir -p $(@D)
	awk -f bpk/gen-patterns.awk $< > $@.tmp && mv $@.tmp $@

# The clone and build it belongs to are compiled in: an installed copy
# reads them from its bpk.conf instead (make install).
$(BPK): $(BPK_SRCS) $(BPK_HDRS) $(BPK_GEN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DTABLE_WITHOUT_PROGRAMS -DBPK_TOP='"$(CURDIR)"' -DBPK_BUILD='"$(BUILD)"' \
		$(BPK_INC) -o $@ $(BPK_SRCS) $(BPK_LIBS)

# --- make check: what needs no QEMU, in under two minutes: the unit tests
# of the C modules (the run record, the JSON writer, the guest protocol,
# argv building, every parser of guest bytes), with ASan and UBSan, and the
# command-line tests.
CB := $(BUILD)/collector
UNIT_TESTS := $(BK)/record-test $(BK)/json-writer-test $(BK)/protocol-test $(BK)/prog-test $(BK)/kconfig-test \
	$(BK)/rsearch-test $(BK)/argsfile-test $(BK)/prog-test.bpf.o $(CB)/unit-tests
ASAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
$(BK)/record-test: bpk/tests/record-test.c bpk/record.c bpk/json_writer.c bpk/tests/check.h bpk/record.h bpk/json_writer.h $(BPK_GEN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN) $(BPK_INC) -o $@ $(filter %.c,$^) -ljansson
$(BK)/json-writer-test: bpk/tests/json-writer-test.c bpk/json_writer.c bpk/tests/check.h bpk/json_writer.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN) $(BPK_INC) -o $@ $(filter %.c,$^) -ljansson
$(BK)/protocol-test: bpk/tests/protocol-test.c bpk/protocol.c bpk/escape.c bpk/qemu.c bpk/util.c bpk/proc.c \
		bpk/digest.c bpk/supervise.c bpk/livedump.c collector/guestlog.c bpk/tests/check.h $(BPK_HDRS) $(BPK_GEN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN) -DBPK_TOP='"$(CURDIR)"' -DBPK_BUILD='"$(BUILD)"' $(BPK_INC) -o $@ \
		$(filter %.c,$^) bpk/config.c -lcrypto
$(BK)/kconfig-test: bpk/tests/kconfig-test.c bpk/kconfig.c bpk/util.c bpk/escape.c bpk/config.c bpk/json_writer.c bpk/proc.c \
		bpk/tests/check.h $(BPK_HDRS) $(BPK_GEN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN) -DBPK_TOP='"$(CURDIR)"' -DBPK_BUILD='"$(BUILD)"' $(BPK_INC) -o $@ \
		$(filter %.c,$^) -ljansson -lcrypto
$(BK)/rsearch-test: bpk/tests/rsearch-test.c bpk/rsearch.c bpk/tests/check.h bpk/rsearch.h bpk/protocol.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN) $(BPK_INC) -o $@ $(filter %.c,$^)
$(BK)/argsfile-test: bpk/tests/argsfile-test.c bpk/argsfile.c bpk/util.c bpk/escape.c bpk/proc.c bpk/config.c bpk/json_writer.c \
		bpk/tests/check.h $(BPK_HDRS) $(BPK_GEN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN) -DBPK_TOP='"$(CURDIR)"' -DBPK_BUILD='"$(BUILD)"' $(BPK_INC) -o $@ \
		$(filter %.c,$^) -ljansson -lcrypto
# a user's program read as a trigger, on an object built as bpk builds one
$(BK)/prog-test.bpf.o: bpk/tests/prog-test.bpf.c $(SDK_HDRS) triggers/fire.h $(TB)/vmlinux.h
	@mkdir -p $(@D)
	clang -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 -I$(TB) -Itriggers/sdk -Itriggers -c $< -o $@
$(BK)/prog-test: bpk/tests/prog-test.c triggers/userprog.c triggers/loadfail.c triggers/params.c \
		triggers/table.c triggers/names.c $(TB)/names-gen.c bpk/tests/check.h $(wildcard triggers/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN) -DTABLE_WITHOUT_PROGRAMS -Ibpk -Itriggers -o $@ $(filter %.c,$^) -lbpf -lelf -lz
# the collector's own code and what it links of bpk's
COLLECTOR_DEPS := $(COLLECTOR_LIB) bpk/record.c bpk/json_writer.c bpk/protocol.c bpk/escape.c
$(CB)/unit-tests: collector/unit-tests.c $(COLLECTOR_DEPS) analysis/fire_decode.c $(BPK_HDRS) \
		$(wildcard analysis/*.h) $(BPK_GEN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN) $(BPK_INC) -Ianalysis -o $@ collector/unit-tests.c \
		$(COLLECTOR_DEPS) analysis/fire_decode.c -ljansson

# bpk itself under ASan and UBSan: make asan runs the unit tests and the
# command-line tests against it (tests/check/36-asan-cli.test.sh), and
# make check and make test do the same.
BPK_ASAN := $(BK)/asan/bpk
$(BPK_ASAN): $(BPK_SRCS) $(BPK_HDRS) $(BPK_GEN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN) -DTABLE_WITHOUT_PROGRAMS -DBPK_TOP='"$(CURDIR)"' -DBPK_BUILD='"$(BUILD)"' \
		$(BPK_INC) -o $@ $(BPK_SRCS) $(BPK_LIBS)
.PHONY: asan
asan: $(BPK_ASAN) $(UNIT_TESTS) $(BPK) $(BPK_MAN) $(TRIGGERCTL) $(DEBIAN_OK) $(RUN_DEPS)
	tests/run-all.sh tests/check/30-unit.test.sh tests/check/36-asan-cli.test.sh

FIRE_DECODE := $(BUILD)/analysis/fire-decode
$(FIRE_DECODE): analysis/fire-decode.c analysis/fire_decode.c analysis/fire_decode.h triggers/fire.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itriggers -o $@ analysis/fire-decode.c analysis/fire_decode.c

# crash starts twice as fast on a vmlinux with a .gdb_index: an indexed copy,
# shared in the cache by build ID (analysis/crash-vmlinux.sh)
CRASH_INDEX := $(BUILD)/analysis/crash-index.ok
$(CRASH_INDEX): $(KERNEL_OK) analysis/crash-vmlinux.sh
	@mkdir -p $(@D)
	analysis/crash-vmlinux.sh --build $(KERNEL)/vmlinux
	touch $@

.PHONY: host-tools analysis
host-tools analysis: $(BPK) $(FIRE_DECODE) $(UNIT_TESTS) $(CRASH_INDEX)

# --- fuzzing: libFuzzer targets for every parser of guest bytes and the
# record reader; make fuzz FUZZ_SECONDS=N runs each for N seconds
FUZZ_SECONDS ?= 60
FZ := $(BUILD)/fuzz
FUZZ_CC := clang
FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined $(BPK_INC) -Ianalysis
FUZZ_TARGETS := $(patsubst bpk/fuzz/fuzz-%.c,$(FZ)/fuzz-%,$(wildcard bpk/fuzz/fuzz-*.c))
$(FZ)/fuzz-record: bpk/fuzz/fuzz-record.c bpk/record.c bpk/json_writer.c $(BPK_GEN)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c,$^) -ljansson
$(FZ)/fuzz-flat: bpk/fuzz/fuzz-flat.c collector/flat.c collector/flat.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c,$^)
$(FZ)/fuzz-status: bpk/fuzz/fuzz-status.c collector/status.c collector/status.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c,$^)
$(FZ)/fuzz-guestlog: bpk/fuzz/fuzz-guestlog.c collector/guestlog.c bpk/protocol.c $(BPK_GEN)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c,$^)
$(FZ)/fuzz-fire: bpk/fuzz/fuzz-fire.c analysis/fire_decode.c analysis/fire_decode.h triggers/fire.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Itriggers -o $@ $(filter %.c,$^)
$(FZ)/fuzz-params: bpk/fuzz/fuzz-params.c triggers/table.c triggers/params.c triggers/names.c $(TB)/names-gen.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DTABLE_WITHOUT_PROGRAMS -o $@ $(filter %.c,$^)
$(FZ)/fuzz-escape: bpk/fuzz/fuzz-escape.c bpk/escape.c bpk/escape.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.c,$^)
.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_TARGETS)
fuzz: $(FUZZ_TARGETS)
	@for t in $(FUZZ_TARGETS); do \
		n=$${t##*/fuzz-}; mkdir -p $(FZ)/corpus/$$n; \
		echo "fuzz $$n for $(FUZZ_SECONDS) s"; \
		$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(FZ)/corpus/$$n bpk/fuzz/seeds/$$n 2>$(FZ)/$$n.log \
			|| { tail -30 $(FZ)/$$n.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units' $(FZ)/$$n.log; \
	done

# --- field bugs: Debian's stock kernel (KERNEL=debian) and the host's
# programs in the guest (bpk/hostfs.c, appliance/guest/preinit)
DK := $(BUILD)/debian-kernel
FB := $(BUILD)/field
DEBIAN_OK := $(BUILD)/debian-kernel.ok
DEB_KDUMP_IMG := $(AB)/debian/kdump.img
DEB_ROOT_IMG := $(AB)/debian/root.cpio.gz
dk_val = $$(sed -n 's/^$(1)=//p' $(DK)/ok)
.PHONY: debian-kernel debian-appliance
# Fetched once into the cache (about 943 MB downloaded, 448 MB kept); again
# only when linux-source-6.1 changes version (its tarball is the input).
debian-kernel: $(DEBIAN_OK)
$(DEBIAN_OK): appliance/debian-kernel.sh $(wildcard /usr/src/linux-source-6.1.tar.xz) | $(BUILD)/deps.ok
	appliance/debian-kernel.sh fetch $(DK)
	touch $@
# Its vmlinux (the -dbg package, 819 MiB): a run fetches it when it reads a
# dump; the tests and the CO-RE probe below need it before.
.PHONY: debian-kernel-debug
DEBIAN_DBG_OK := $(BUILD)/debian-kernel-debug.ok
debian-kernel-debug: $(DEBIAN_DBG_OK)
$(DEBIAN_DBG_OK): $(DEBIAN_OK)
	appliance/debian-kernel.sh debug $(DK) >/dev/null
	touch $@

# Any release the archive serves (bpk run --kernel debian:RELEASE, which
# resolves RELEASE and passes DEB_KVER=<kver>): the same pieces, under
# build/kernels/debian-<kver>/.
DR := $(BUILD)/kernels/debian-$(DEB_KVER)
dr_val = $$(sed -n 's/^$(1)=//p' $(DR)/kernel/ok)
.PHONY: debian-release debian-release-deps
debian-release: $(DR)/kernel.ok
$(DR)/kernel.ok: appliance/debian-kernel.sh | $(BUILD)/deps.ok
	@test -n "$(DEB_KVER)" || { echo "make: DEB_KVER=<kernel release> is needed (bpk run --kernel debian:RELEASE sets it)" >&2; exit 2; }
	appliance/debian-kernel.sh fetch $(DR)/kernel $(DEB_KVER)
	touch $@
$(DR)/kdump.img: appliance/mkkdump.sh $(wildcard appliance/kdump/99bpkdump/*) $(GUEST_LIB) $(AB)/makedumpfile-opts $(DR)/kernel.ok
	appliance/mkkdump.sh $@ "$$(cat $(AB)/makedumpfile-opts)" --kver "$(call dr_val,kver)" \
		--kmoddir "$(DR)/kernel/modules/lib/modules/$(call dr_val,kver)" --drivers "$(call dr_val,kdump_modules)"
$(DR)/root.cpio.gz: appliance/mkroot-debian.sh appliance/mkinitramfs.sh appliance/guest/init appliance/guest/preinit $(GUEST_LIB) \
		$(wildcard appliance/guest/jobs/*) $(DR)/kdump.img $(TRIGGERCTL) $(DR)/kernel.ok
	appliance/mkroot-debian.sh $@ $(DR)/kernel $(DR)/kdump.img \
		$$(command -v kexec)=/sbin/kexec $(TRIGGERCTL)=/bin/triggerctl \
		$(foreach j,$(wildcard appliance/guest/jobs/*),$(j)=/etc/bpk/jobs/$(notdir $(j)))
# with its vmlinux, for the tests (a run fetches it itself)
$(DR)/debug.ok: $(DR)/kernel.ok
	appliance/debian-kernel.sh debug $(DR)/kernel >/dev/null
	touch $@

# A kernel the user built (bpk run --kernel PATH: USER_KIMAGE=<its bzImage>,
# USER_KKEY=<its hash>): our capture image (no modules: its drivers are
# built in, which bpk checks in its config) and a root image carrying it
# as the capture kernel.
UKD := $(BUILD)/kernels/path-$(USER_KKEY)
$(UKD)/root.cpio.gz: appliance/mkinitramfs.sh appliance/guest/init $(GUEST_LIB) $(wildcard appliance/guest/jobs/*) \
		$(KDUMP_IMG) $(TRIGGERCTL) $(USER_KIMAGE)
	@test -n "$(USER_KIMAGE)" -a -n "$(USER_KKEY)" || { echo "make: USER_KIMAGE= and USER_KKEY= are needed (bpk run --kernel PATH sets them)" >&2; exit 2; }
	appliance/mkinitramfs.sh $@ $(USER_KIMAGE)=/boot/bzImage $(KDUMP_IMG)=/boot/kdump.img \
		$$(command -v kexec)=/sbin/kexec $(TRIGGERCTL)=/bin/triggerctl \
		$(foreach j,$(wildcard appliance/guest/jobs/*),$(j)=/etc/bpk/jobs/$(notdir $(j)))
debian-appliance: $(DEB_ROOT_IMG)
$(DEB_KDUMP_IMG): appliance/mkkdump.sh $(wildcard appliance/kdump/99bpkdump/*) $(GUEST_LIB) $(AB)/makedumpfile-opts $(DEBIAN_OK)
	appliance/mkkdump.sh $@ "$$(cat $(AB)/makedumpfile-opts)" --kver "$(call dk_val,kver)" \
		--kmoddir "$(DK)/modules/lib/modules/$(call dk_val,kver)" --drivers "$(call dk_val,kdump_modules)"
$(DEB_ROOT_IMG): appliance/mkroot-debian.sh appliance/mkinitramfs.sh appliance/guest/init appliance/guest/preinit $(GUEST_LIB) \
		$(wildcard appliance/guest/jobs/*) $(DEB_KDUMP_IMG) $(TRIGGERCTL) $(DEBIAN_OK)
	appliance/mkroot-debian.sh $@ $(DK) $(DEB_KDUMP_IMG) \
		$$(command -v kexec)=/sbin/kexec $(TRIGGERCTL)=/bin/triggerctl \
		$(foreach j,$(wildcard appliance/guest/jobs/*),$(j)=/etc/bpk/jobs/$(notdir $(j)))
# A dynamically linked example: it runs in the host's user space.
FIELD_EXAMPLE_BINS := $(BUILD)/examples/uprobe-dyn
$(BUILD)/examples/uprobe-dyn: triggers/examples/uprobe.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<
# The Debian-kernel tests' guest: the Debian root image with the arm-all job.
DEB_TEST_IMG := $(BUILD)/debian-test-initramfs.cpio.gz
$(DEB_TEST_IMG): appliance/mkroot-debian.sh appliance/mkinitramfs.sh appliance/guest/init $(GUEST_LIB) \
		appliance/guest/preinit tests/field/jobs/arm-all $(DEB_KDUMP_IMG) $(TRIGGERCTL) $(DEBIAN_OK) \
		$(FB)/core-probe $(FB)/core_probe.bpf.o
	appliance/mkroot-debian.sh $@ $(DK) $(DEB_KDUMP_IMG) $$(command -v kexec)=/sbin/kexec $(TRIGGERCTL)=/bin/triggerctl \
		tests/field/jobs/arm-all=/etc/bpk/jobs/arm-all $(FB)/core-probe=/bin/core-probe \
		$(FB)/core_probe.bpf.o=/etc/bpk/core_probe.bpf.o
# A CO-RE probe built against Debian's BTF, reading task_struct.cgroups,
# which our kernel (no CONFIG_CGROUPS) lacks: loaded there, the reason must
# name the field (tests/73-core-failure).
$(FB)/vmlinux.h: $(DEBIAN_DBG_OK)
	@mkdir -p $(@D)
	bpftool btf dump file $(DK)/vmlinux format c > $@
$(FB)/core_probe.bpf.o: tests/field/core_probe.bpf.c $(FB)/vmlinux.h
	clang -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 -I$(FB) -c $< -o $@
$(FB)/core-probe: tests/field/core-probe.c triggers/loadfail.c triggers/loadfail.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itriggers -static -o $@ tests/field/core-probe.c triggers/loadfail.c -lbpf -lelf -lz
CORE_TEST_IMG := $(FB)/core-probe-initramfs.cpio.gz
$(CORE_TEST_IMG): appliance/mkinitramfs.sh appliance/guest/init $(GUEST_LIB) tests/field/jobs/core-probe \
		$(FB)/core-probe $(FB)/core_probe.bpf.o
	appliance/mkinitramfs.sh $@ tests/field/jobs/core-probe=/etc/bpk/jobs/core-probe \
		$(FB)/core-probe=/bin/core-probe $(FB)/core_probe.bpf.o=/etc/bpk/core_probe.bpf.o
FIELD_TEST_DEPS := $(DEB_ROOT_IMG) $(DEB_TEST_IMG) $(FIELD_EXAMPLE_BINS) $(CORE_TEST_IMG) $(DEBIAN_DBG_OK)
# make bench's field section boots Debian's kernel too
bench: $(DEB_ROOT_IMG)

# --- running it: bpk owns a run; these targets are its short forms.
DEMO_TRIGGER := syscall_errno
DEMO_ARGS := syscall=openat errno=ENOENT comm=bpk-demo
RUN_DEPS := $(ROOT_IMG) $(TRIGGERCTL) $(BPK) $(FIRE_DECODE) $(EXAMPLE_BINS) $(CRASH_INDEX) $(FIELD_EXAMPLE_BINS)
# what bpk run brings up to date before it boots (make run-deps, or
# debian-run-deps for --kernel debian)
.PHONY: run-deps debian-run-deps path-run-deps
run-deps: $(RUN_DEPS)
debian-run-deps: $(RUN_DEPS) $(DEB_ROOT_IMG)
debian-release-deps: $(RUN_DEPS) $(DR)/root.cpio.gz
path-run-deps: $(RUN_DEPS) $(UKD)/root.cpio.gz
RUN_DEPS += $(if $(filter debian,$(RUN_KERNEL)),$(DEB_ROOT_IMG))
# KERNEL=debian, HOST_FS=auto|on|off, SHARE="dir ...", SHARE_RW=dir
FIELD_RUN_ARGS = $(if $(filter-out ours,$(RUN_KERNEL)),--kernel "$(RUN_KERNEL)") \
	$(if $(HOST_FS),--host-fs "$(HOST_FS)") $(foreach d,$(SHARE),--share "$(d)") \
	$(if $(SHARE_RW),--share-rw "$(SHARE_RW)")
RUNS ?= runs
.PHONY: demo run crash drgn
demo: $(RUN_DEPS) toolbox
	$(BPK) --runs "$(RUNS)" run $(DEMO_TRIGGER) $(DEMO_ARGS) --workload triggers/examples/syscall_errno.sh \
		--timeout 300 --no-build --crash $(FIELD_RUN_ARGS)

# make run TRIGGER=name ARGS="k=v ..." WORKLOAD=file [REPEAT=n] [TIMEOUT=s] [MEM=1G] [RUNS=dir]
#   [PANIC_ON_OOPS=0] [PANIC_ON_WARN=1]
run: $(RUN_DEPS)
	@test -n "$(TRIGGER)" || { echo "make run: TRIGGER= is required (bpk list)" >&2; exit 2; }
	$(BPK) --runs "$(RUNS)" run "$(TRIGGER)" $(ARGS) \
		$(if $(WORKLOAD),--workload "$(WORKLOAD)") --repeat "$(or $(REPEAT),1)" \
		--timeout "$(or $(TIMEOUT),300)" --mem "$(or $(MEM),1G)" --no-build --crash \
		$(if $(filter 0,$(PANIC_ON_OOPS)),--no-panic-on-oops) $(if $(filter 1,$(PANIC_ON_WARN)),--panic-on-warn) \
		$(FIELD_RUN_ARGS)

# make campaign TRIGGER=name ARGS="k=v ..." WORKLOAD=file ATTEMPTS=n JOBS=j
#   [RUNS=dir] [FRESH=1] [TIMEOUT=s] [MEM=1G] [SSHLOGIN=list]
.PHONY: campaign
campaign: $(RUN_DEPS)
	@test -n "$(TRIGGER)" || { echo "make campaign: TRIGGER= is required (bpk list)" >&2; exit 2; }
	$(BPK) --runs "$(RUNS)" campaign "$(TRIGGER)" $(ARGS) --attempts "$(or $(ATTEMPTS),10)" --jobs "$(or $(JOBS),1)" \
		--workload "$(or $(WORKLOAD),triggers/examples/syscall_errno.sh)" \
		--timeout "$(or $(TIMEOUT),120)" --mem "$(or $(MEM),1G)" $(if $(filter 1,$(FRESH)),--fresh) \
		$(if $(SSHLOGIN),--sshlogin "$(SSHLOGIN)")

# make crash [RUN=id] / make drgn [RUN=id]: the report, then the analyzer
# on that vmcore (default: the newest run that has one)
crash: $(BPK) $(FIRE_DECODE)
	$(BPK) --runs "$(RUNS)" crash $(RUN)
drgn: $(BPK)
	$(BPK) --runs "$(RUNS)" drgn $(RUN)

# --- benchmarks (make bench): guest programs and the trigger-cost image.
# After RUN_DEPS: a rule's prerequisites are expanded when it is read.
BB := $(BUILD)/bench
BENCH_BINS := $(BB)/dirty $(BB)/dirty-hold $(BB)/hotloop $(BB)/empty-loader
$(BB)/dirty: bench/guest/dirty.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<
$(BB)/dirty-hold: bench/guest/dirty.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DHOLD -static -o $@ $<
$(BB)/hotloop: bench/guest/hotloop.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<
$(BB)/empty.bpf.o: bench/guest/empty.bpf.c $(TB)/vmlinux.h
	@mkdir -p $(@D)
	clang -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 -I$(TB) -c $< -o $@
$(BB)/empty.skel.h: $(BB)/empty.bpf.o
	bpftool gen skeleton $< name empty_bpf > $@
$(BB)/empty-loader: bench/guest/empty-loader.c $(BB)/empty.skel.h
	$(CC) $(CFLAGS) -I$(BB) -static -o $@ $< -lbpf -lelf -lz
$(BB)/cost.cpio.gz: appliance/mkinitramfs.sh appliance/guest/init $(GUEST_LIB) $(TRIGGERCTL) $(BENCH_BINS) \
		bench/guest/jobs/bench-cost
	appliance/mkinitramfs.sh $@ $(TRIGGERCTL)=/bin/triggerctl bench/guest/jobs/bench-cost=/etc/bpk/jobs/bench-cost \
		$(foreach b,$(BENCH_BINS),$(b)=/bench/$(notdir $(b)))

# --- bpk's man page (scdoc source, generated here) and bash completion;
# make install puts bpk under $(DESTDIR)$(PREFIX) with bpk.conf pointing
# at this clone's build, cache and runs, and a manifest, which make
# uninstall removes exactly.
PREFIX ?= /usr/local
DESTDIR ?=
BPK_MAN := $(BUILD)/bpk.1
bpk: $(BPK) $(BPK_MAN)
.PHONY: install uninstall
$(BPK_MAN): bpk/bpk.1.scd | $(BUILD)/deps.ok
	@mkdir -p $(@D)
	scdoc < $< > $@
install: $(BPK_MAN) $(BPK) bpk/bpk.bash-completion bpk/install.sh $(RUN_DEPS)
	bpk/install.sh install "$(DESTDIR)$(PREFIX)" $(BPK_MAN) "$(CURDIR)" "$(BUILD)" "$(BPK_CACHE)" "$(abspath $(RUNS))" "$(PREFIX)"
uninstall:
	bpk/install.sh uninstall "$(DESTDIR)$(PREFIX)"

.PHONY: bench
bench: $(RUN_DEPS) $(BENCH_BINS) $(BB)/cost.cpio.gz
	bench/run-bench.sh

# bpk-probe: the trigger tests' own in-guest workloads (interrupted syscalls,
# preempted tasks, a bounded D state ...); static, threads included.
PROBE := $(BUILD)/tests/bpk-probe
PROBE_SRCS := $(wildcard tests/triggers/probe/*.c tests/triggers/probe/*.h)
$(PROBE): $(PROBE_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -pthread -o $@ $(filter %.c,$^)

# The trigger tests' guest: triggerctl, every example workload, bpk-probe,
# the dry-run job.
TRIGGER_TEST_IMG := $(BUILD)/trigger-test-initramfs.cpio.gz
EXAMPLE_SCRIPTS := $(wildcard triggers/examples/*.sh)
$(TRIGGER_TEST_IMG): appliance/mkinitramfs.sh appliance/guest/init $(GUEST_LIB) $(TRIGGERCTL) \
		$(EXAMPLE_BINS) $(EXAMPLE_SCRIPTS) $(PROBE) tests/triggers/jobs/trigger-dry
	appliance/mkinitramfs.sh $@ $(TRIGGERCTL)=/bin/triggerctl $(PROBE)=/bin/bpk-probe \
		tests/triggers/jobs/trigger-dry=/etc/bpk/jobs/trigger-dry \
		$(foreach e,$(EXAMPLE_SCRIPTS) $(EXAMPLE_BINS),$(e)=/examples/$(notdir $(e)))

# make check: no QEMU; make test: make check first, then the booted tests.
CHECK_TESTS := $(sort $(wildcard tests/check/*.test.sh))
.PHONY: check
# (43 checks tp=/func= names against Debian's kernel too, which needs its
# guest image built; 90 drives make campaign, which wants what a run needs)
check: $(UNIT_TESTS) $(BPK) $(BPK_ASAN) $(BPK_MAN) $(FIRE_DECODE) $(TRIGGERCTL) $(FUZZ_TARGETS) $(DEBIAN_OK) $(DEB_ROOT_IMG) $(RUN_DEPS)
	tests/run-all.sh $(CHECK_TESTS)
# What is compiled needs the packages' headers and libraries (libjansson,
# libelf, libbpf): in a parallel make, not before they are installed.
$(UNIT_TESTS) $(FUZZ_TARGETS) $(BPK) $(BPK_ASAN) $(TRIGGERCTL) $(FIRE_DECODE): | $(BUILD)/deps.ok

test: toolbox toolbox-sid $(HANG_KO) $(HANG_DEB_KO) $(TRIGGER_TEST_IMG) $(KERNEL_OK) $(BUILD)/guard-initramfs.cpio.gz $(BUILD)/selftest-initramfs.cpio.gz $(SELFTEST_BROKEN) $(RUN_DEPS) $(UNIT_TESTS) $(BPK_ASAN) $(BPK_MAN) $(FUZZ_TARGETS)
	tests/run-all.sh $(CHECK_TESTS) $(sort $(wildcard tests/*.test.sh))
test: $(FIELD_TEST_DEPS)

clean:
	rm -rf $(BUILD)

# Also drops every cached kernel build.
distclean: clean
	rm -rf $(BPK_CACHE)

# bench is declared above RUN_DEPS: its prerequisites named there expand empty
bench: $(RUN_DEPS)
