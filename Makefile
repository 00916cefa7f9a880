# shiftbind: one entry point.  `make help` lists the targets.
#
# Everything large (kernel tree and builds, debootstrapped guest, images)
# lives in $(SHIFTBIND_CACHE), keyed by what it was built from; out/ holds
# this checkout's small build outputs, logs and results.
#
# KERNEL, TEST_KERNELS and DEBUG_KERNEL (make's command line or the
# environment; both reach the scripts' environment) choose the kernel
# bases: the scripts read them, and scripts/lib.sh holds their defaults.

SHELL := /bin/bash
SHIFTBIND_CACHE ?= /var/cache/shiftbind
OUT ?= $(CURDIR)/out
BUILD := $(OUT)/build
export SHIFTBIND_CACHE
export SHIFTBIND_OUT := $(OUT)

CC ?= gcc
# The project's warning list: one definition, oci-hook's.
include oci-hook/warnings.mk
PROBE_CFLAGS := -O2 -static $(WARNINGS)

.PHONY: help deps kernel kernel-debug guest userspace oci-hook deb test demo \
	shell fuzz boot-soak kernel-tree kernel-export kernel-bisect clean clean-cache

help:
	@echo "shiftbind targets:"
	@echo "  make demo           boot the guest and show containers on a shared image"
	@echo "  make test           build what is stale, run every test, print 'N passed, N failed'"
	@echo "                      (SUITES=smoke,host runs only those suites; the host suites"
	@echo "                      run once, the guest suites on each kernel of TEST_KERNELS)"
	@echo "  make shell          interactive shell in the guest (serial console; Ctrl-a x quits)"
	@echo "                      (KERNEL_VARIANT=debug: on the KASAN/lockdep/kmemleak kernel)"
	@echo "  make bench          measure container start and file access, shift vs chown copy"
	@echo "                      (out/bench.json; docs/benchmarks.md and -BASE.svg, per KERNEL)"
	@echo "  make kernel         build the patched kernel (cached in $(SHIFTBIND_CACHE)/kernel)"
	@echo "  make kernel-debug   build the debugging kernel (KASAN, lockdep, kmemleak, failslab)"
	@echo "  make guest          build the guest root image (cached in $(SHIFTBIND_CACHE)/guest)"
	@echo "  make deb            Debian packages in $(OUT)/deb: shiftbind (the hook and"
	@echo "                      the CLI, debian/) and each kernel's linux-image, -headers"
	@echo "  make kernel-tree    git work tree of the kernel, one commit per patch"
	@echo "                      ($(SHIFTBIND_CACHE)/kernel/dev-BASE; KERNEL_TREE=DIR elsewhere)"
	@echo "  make kernel-export  write that tree's commits back to kernel-patches/BASE/"
	@echo "  make kernel-bisect  build the kernel and selftests at every patch (slow)"
	@echo "  make fuzz           fuzz longer: the hook's parser (FUZZ_TIME=600 s), then the"
	@echo "                      syscalls on the debug kernel (FUZZ_CALLS=2000000, FUZZ_SEED=N)"
	@echo "  make boot-soak      boot each base's test kernel SOAK_BOOTS=40 times, each"
	@echo "                      running the static-key churn of container starts"
	@echo "                      (SOAK_SECONDS=60); counts clean, oopsed and failed boots"
	@echo "                      (out/soak/BASE.txt; docs/kernel-bases.md)"
	@echo "  make deps           apt-get install the Debian packages that are missing"
	@echo "  make clean          remove out/ (results, logs, small builds)"
	@echo "  make clean-cache    remove $(SHIFTBIND_CACHE) (next build starts cold)"
	@echo
	@echo "kernel bases: $$(. scripts/lib.sh && supported_kernels | paste -sd' ') (kernel-patches/BASE/, linux-source-BASE)"
	@echo "  KERNEL=BASE         the base that kernel, kernel-debug, demo, shell, bench, fuzz"
	@echo "                      and kernel-tree/-export/-bisect work on (default:"
	@echo "                      $$(. scripts/lib.sh && echo $$DEFAULT_KERNEL)); make test KERNEL=BASE tests that base alone"
	@echo "                      each base's guest runs its Debian release: $$(. scripts/lib.sh && echo $${GUEST_RELEASES[*]})"
	@echo "                      (GUEST_RELEASE=SUITE boots another; the guest prints which it runs)"
	@echo "  TEST_KERNELS='A B'  the bases make test runs every guest suite on, one boot"
	@echo "                      each (default: '$$(. scripts/lib.sh && echo $$DEFAULT_TEST_KERNELS)'); results SUITE@BASE.NAME"
	@echo "  DEBUG_KERNEL=BASE   the one base of a run whose debug kernel runs the fuzz."
	@echo "                      suite (default: $$(. scripts/lib.sh && echo $$DEFAULT_DEBUG_KERNEL) if tested, else the run's first)"

deps:
	@scripts/deps.sh

kernel: deps
	@scripts/kernel.sh build test

kernel-debug: deps
	@scripts/kernel.sh build debug

# In-guest test programs: tests/fuzz/src/NAME.c -> $(BUILD)/fuzz/NAME,
# linked with the hook's configfd wrappers (one copy of the syscall glue).
FUZZ_PROGRAMS := $(patsubst tests/fuzz/src/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/src/*.c))
CONFIGFD_LIB := oci-hook/lib/configfd.c oci-hook/lib/configfd.h

userspace: $(BUILD)/probe $(FUZZ_PROGRAMS) oci-hook shiftbind-deb

# The hook and the CLI, built for the host (host tests, the image builder).
oci-hook: | deps
	@$(MAKE) -s -C oci-hook O=$(BUILD)/oci-hook

# Their Debian package, which the guest installs (rootfs-builder), in
# $(BUILD)/deb/; rebuilt only when the checkout's files changed.
.PHONY: shiftbind-deb
shiftbind-deb: | deps
	@DEB_OUT=$(BUILD)/deb scripts/deb.sh shiftbind >/dev/null

# The Debian packages, built from a copy of the checkout's files (the
# build writes into its tree) and from the cached kernel builds, into
# $(OUT)/deb/: shiftbind, and linux-image-* and linux-headers-* of each
# kernel base (KERNEL=BASE: that one).
deb: deps
	@scripts/deb.sh

$(BUILD)/probe: tests/probe/probe.c | deps
	@mkdir -p $(@D)
	$(CC) $(PROBE_CFLAGS) -o $@ $<

$(BUILD)/fuzz/%: tests/fuzz/src/%.c $(wildcard tests/fuzz/src/*.h) $(CONFIGFD_LIB) | deps
	@mkdir -p $(@D)
	$(CC) $(PROBE_CFLAGS) -pthread -Ioci-hook/lib -Itests/fuzz/src -o $@ $< oci-hook/lib/configfd.c

# Benchmark programs: bench/NAME.c -> $(BUILD)/bench/NAME, static (fswork
# runs inside containers, whose images have no C library).
BENCH_PROGRAMS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))

$(BUILD)/bench/%: bench/%.c bench/util.h | deps
	@mkdir -p $(@D)
	$(CC) $(PROBE_CFLAGS) -o $@ $<

guest: deps userspace
	@rootfs-builder/build-image.sh $(BUILD) >/dev/null

# test.sh builds the kernel itself, as a named step of the run, so that a
# failed build is a result in the summary rather than the end of make.
test: deps userspace
	@scripts/test.sh $(BUILD)

demo: deps kernel userspace
	@scripts/run-guest.sh demo "$$(scripts/kernel.sh image)" \
		"$$(rootfs-builder/build-image.sh $(BUILD))"

# One boot of the test kernel measures everything; see docs/benchmarks.md.
.PHONY: bench
bench: deps kernel userspace $(BENCH_PROGRAMS)
	@scripts/bench.sh $(BUILD)

# KERNEL_VARIANT=debug boots the debugging kernel (docs/fuzzing.md).
KERNEL_VARIANT ?= test
shell: deps userspace
	@scripts/kernel.sh build $(KERNEL_VARIANT)
	@scripts/run-guest.sh shell "$$(scripts/kernel.sh image $(KERNEL_VARIANT))" \
		"$$(rootfs-builder/build-image.sh $(BUILD))"

# Longer fuzzing than make test's: the hook's parser on the host, then the
# fuzz suite on the debug kernel of one base (test.sh: KERNEL, else
# DEBUG_KERNEL), which test.sh builds, with that base's test kernel, as
# steps.  Kernel command-line words of the form NAME=VALUE reach the
# guest's init, and so the tests, as environment.
FUZZ_CALLS ?= 2000000
FUZZ_SECONDS ?= 3000
fuzz: deps userspace
	@FUZZ_TIME=$${FUZZ_TIME:-600} tests/host/hook_fuzz_parser.sh
	@SUITES=fuzz GUEST_TIMEOUT=$$(($(FUZZ_SECONDS) * 2 + 1200)) \
		GUEST_APPEND="FUZZ_CALLS=$(FUZZ_CALLS) FUZZ_MAX_SECONDS=$(FUZZ_SECONDS) \
		TEST_TIMEOUT=$$(($(FUZZ_SECONDS) + 600)) $${FUZZ_SEED:+FUZZ_SEED=$$FUZZ_SEED}" \
		scripts/test.sh $(BUILD)

# Many boots of the container-start churn, to count a rare guest failure.
boot-soak: deps userspace
	@scripts/boot-soak.sh $(BUILD)

kernel-tree: deps
	@scripts/kernel.sh dev-tree $(KERNEL_TREE)

kernel-export:
	@scripts/kernel.sh export $(KERNEL_TREE)

# Every patch builds on its own (slow: one cold build, then one per patch).
kernel-bisect: deps
	@scripts/kernel.sh bisect-build

clean:
	rm -rf $(OUT)

clean-cache:
	rm -rf $(SHIFTBIND_CACHE)
