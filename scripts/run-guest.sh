#!/bin/bash
# run-guest.sh MODE KERNEL IMAGE [SUITES]: boot the guest under QEMU.
#
#   MODE    test (run SUITES, comma-separated), demo, or shell (interactive)
#   KERNEL  bzImage to boot
#   IMAGE   root image; test and demo boot a fresh copy of it, so every run
#           starts from the same state (GUEST_DISK names a disk to reuse)
#
# Writes, under $SHIFTBIND_OUT:
#   console.log      everything the guest printed on its serial console
#   guest.results    what the guest wrote to its results port
# (GUEST_CONSOLE and GUEST_RESULTS name other files, for a second boot;
# GUEST_SCRATCH_DISK attaches a raw disk image as /dev/vdb, for make bench;
# GUEST_NETDEV gives the guest a virtio network card on that QEMU netdev,
# "socket,listen=127.0.0.1:PORT" or "socket,connect=127.0.0.1:PORT",
# with the MAC address GUEST_MAC: the cluster suite's private network
# between two QEMU processes, scripts/cluster.sh; GUEST_REBOOT=1 lets a
# reboot in the guest restart it in the same QEMU, same disk, network
# and results port, instead of ending the run).
# and exits 0 only when the guest powered off after writing its
# completion marker.  A panic, a hang (host-side timeout, GUEST_TIMEOUT
# seconds) or a missing marker is a failure that names the console log.
#
# Acceleration: lib.sh's qemu_accel (TCG, single-threaded, unless
# QEMU_ACCEL or QEMU_TCG_THREAD say otherwise); GUEST_SMP sets the guest's
# CPUs (2).  Every boot comes through here: make test, demo, shell,
# bench, fuzz and boot-soak.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

readonly DONE_MARKER="# shiftbind-guest-done"

mode=${1:?usage: run-guest.sh test|demo|shell KERNEL IMAGE [SUITES]}
kernel=${2:?missing KERNEL}
image=${3:?missing IMAGE}
suites=${4:-}
smp=${GUEST_SMP:-2}
# A hang detector, not a budget: one boot runs every guest suite in about
# 20 minutes under TCG on 2 cores, and twice that when other guests share
# the machine.
timeout_s=${GUEST_TIMEOUT:-3600}
mem=${GUEST_MEM:-2048}
console=${GUEST_CONSOLE:-$SHIFTBIND_OUT/console.log}
results=${GUEST_RESULTS:-$SHIFTBIND_OUT/guest.results}

require_cmd qemu-system-x86_64 qemu-system-x86
[ -f "$kernel" ] || die "kernel $kernel not found; run 'make kernel'"
# A reused disk (GUEST_DISK) no longer needs the image it was copied from.
[ -f "$image" ] || [ -f "${GUEST_DISK:-}" ] ||
	die "guest image $image not found; run 'make guest'"
mkdir -p "$SHIFTBIND_OUT"

prepare_disk() {
	if [ -n "${GUEST_DISK:-}" ]; then
		[ -f "$GUEST_DISK" ] || cp --sparse=always "$image" "$GUEST_DISK"
		echo "$GUEST_DISK"
		return
	fi
	local disk=$SHIFTBIND_CACHE/run/disk-$$.img
	mkdir -p "$SHIFTBIND_CACHE/run"
	cp --sparse=always "$image" "$disk"
	echo "$disk"
}

release_of() {
	local build_dir
	build_dir=$(dirname "$(dirname "$(dirname "$(dirname "$1")")")")
	cat "$build_dir/include/config/kernel.release" 2>/dev/null || echo unknown
}

disk=$(prepare_disk)
[ -n "${GUEST_DISK:-}" ] || trap 'rm -f "$disk"' EXIT

append="root=/dev/vda rw console=ttyS0 panic=-1 oops=panic"
append+=" init=/usr/lib/shiftbind/init shiftbind.mode=$mode"
append+=" shiftbind.release=$(release_of "$kernel")"
[ -z "$suites" ] || append+=" shiftbind.suites=$suites"
append+=" ${GUEST_APPEND:-}"

# la57=off: TCG's "max" CPU offers 5-level paging, which the kernel then
# uses, and every miss of QEMU's software TLB walks five levels instead of
# four; the guests need no more than 4-level's 128 TiB of address space.
qemu=(qemu-system-x86_64 -machine q35 -accel "$(qemu_accel)" -cpu max,la57=off -smp "$smp" -m "$mem"
	-kernel "$kernel" -append "$append"
	-drive "file=$disk,if=virtio,format=raw,cache=unsafe"
	-device virtio-rng-pci
	-device virtio-serial-pci
	-chardev "file,id=results,path=$results"
	-device virtserialport,chardev=results,name=shiftbind.results
	-display none)
if [ -n "${GUEST_NETDEV:-}" ]; then
	[[ $GUEST_NETDEV =~ ^socket,(listen|connect)=127\.0\.0\.1:[0-9]+$ ]] ||
		die "GUEST_NETDEV='$GUEST_NETDEV' is not socket,listen=127.0.0.1:PORT or socket,connect=127.0.0.1:PORT (the guests' network stays on this machine's loopback)"
	qemu+=(-netdev "$GUEST_NETDEV,id=net0"
		-device "virtio-net-pci,netdev=net0,mac=${GUEST_MAC:?GUEST_NETDEV needs GUEST_MAC}")
else
	qemu+=(-nic none)
fi
[ "${GUEST_REBOOT:-}" = 1 ] || qemu+=(-no-reboot)
[ -z "${GUEST_SCRATCH_DISK:-}" ] ||
	qemu+=(-drive "file=$GUEST_SCRATCH_DISK,if=virtio,format=raw,cache=unsafe")

: >"$results"
if [ "$mode" = shell ]; then
	qemu+=(-serial mon:stdio)
	printf '+ %q ' "${qemu[@]}" >&2
	echo >&2
	exec "${qemu[@]}"
fi

qemu+=(-serial "file:$console" -monitor none)
printf 'qemu:' >&2
printf ' %q' "${qemu[@]}" >&2
echo >&2

# Show results as they arrive; the guest's full console is in the log.
tail -n +1 -f "$results" | grep --line-buffered -vxF "$DONE_MARKER" >&2 &
tail_pid=$!
status=0
timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null || status=$?
sleep 0.5
kill "$tail_pid" 2>/dev/null || true
wait "$tail_pid" 2>/dev/null || true

# boot_failed REASON: end with REASON; a guest whose kernel oopsed says
# so in the failure itself, with the oops' first lines (each carries
# "error:", which the test harness keeps for the run's summary), not only
# in the console log.
boot_failed() {
	local oops line
	oops=$(guest_oops_summary "$console")
	if [ -n "$oops" ]; then
		while IFS= read -r line; do
			printf '%s: error: | %s\n' "${0##*/}" "$line" >&2
		done <<<"$oops"
		die "guest kernel oopsed (its first lines above), so $1; console log: $console"
	fi
	die "$1; console log: $console"
}

if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
	boot_failed "guest did not finish within ${timeout_s}s (hung?)"
fi
[ "$status" -eq 0 ] || boot_failed "qemu exited with status $status"
if ! grep -qxF "$DONE_MARKER" "$results"; then
	echo "--- last lines of $console:" >&2
	tail -n 30 "$console" >&2
	boot_failed "guest ended without completing its run (panic or crash?)"
fi
