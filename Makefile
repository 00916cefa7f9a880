# shiftbind: one entry point.  `make help` lists the targets.
#
# Everything large (kernel tree and builds, debootstrapped guest, images)
# lives in $(SHIFTBIND_CACHE), keyed by what it was built from; out/ holds
# this checkout's small build outputs, logs and results.

SHELL := /bin/bash
SHIFTBIND_CACHE ?= /var/cache/shiftbind
OUT ?= $(CURDIR)/out
BUILD := $(OUT)/build
export SHIFTBIND_CACHE
export SHIFTBIND_OUT := $(OUT)

CC ?= gcc
WARNINGS := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wmissing-prototypes \
	-Wstrict-prototypes -Wswitch-enum
PROBE_CFLAGS := -O2 -static $(WARNINGS)

.PHONY: help deps kernel kernel-debug guest userspace oci-hook test demo \
	shell fuzz kernel-tree kernel-export kernel-bisect clean clean-cache

help:
	@echo "shiftbind targets:"
	@echo "  make demo           boot the guest and show containers on a shared image"
	@echo "  make test           build what is stale, run every test, print 'N passed, N failed'"
	@echo "                      (SUITES=smoke,host runs only those suites)"
	@echo "  make shell          interactive shell in the guest (serial console; Ctrl-a x quits)"
	@echo "  make kernel         build the patched kernel (cached in $(SHIFTBIND_CACHE)/kernel)"
	@echo "  make guest          build the guest root image (cached in $(SHIFTBIND_CACHE)/guest)"
	@echo "  make kernel-tree    git work tree of the kernel, one commit per patch"
	@echo "  make kernel-export  write that tree's commits back to kernel-patches/"
	@echo "  make kernel-bisect  build the kernel at every patch of the series (slow)"
	@echo "  make fuzz           run the hook's parser fuzzer longer (FUZZ_TIME=600 seconds)"
	@echo "  make deps           apt-get install the Debian packages that are missing"
	@echo "  make clean          remove out/ (results, logs, small builds)"
	@echo "  make clean-cache    remove $(SHIFTBIND_CACHE) (next build starts cold)"

deps:
	@scripts/deps.sh

kernel: deps
	@scripts/kernel.sh build test

kernel-debug: deps
	@scripts/kernel.sh build debug

userspace: $(BUILD)/probe oci-hook

# The hook and the CLI, built for the host and installed into the guest.
oci-hook: | deps
	@$(MAKE) -s -C oci-hook O=$(BUILD)/oci-hook

$(BUILD)/probe: tests/probe/probe.c | deps
	@mkdir -p $(@D)
	$(CC) $(PROBE_CFLAGS) -o $@ $<

guest: deps userspace
	@rootfs-builder/build-image.sh $(BUILD) >/dev/null

test: deps kernel userspace
	@scripts/test.sh $(BUILD)

demo: deps kernel userspace
	@scripts/run-guest.sh demo "$$(scripts/kernel.sh image)" \
		"$$(rootfs-builder/build-image.sh $(BUILD))"

shell: deps kernel userspace
	@scripts/run-guest.sh shell "$$(scripts/kernel.sh image)" \
		"$$(rootfs-builder/build-image.sh $(BUILD))"

fuzz: deps
	@FUZZ_TIME=$${FUZZ_TIME:-600} tests/host/hook_fuzz_parser.sh

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
