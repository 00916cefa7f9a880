#!/bin/bash
# boot-soak.sh BIN_DIR: what `make boot-soak` runs.  Boots each kernel base
# of the run (KERNEL alone, else TEST_KERNELS, else both) SOAK_BOOTS times
# (default 40), each boot running the soak. suite alone (the static-key
# churn of container starts, SOAK_SECONDS each, default 60), and counts
# how the boots ended: clean (every result present and passing), oopsed
# (the kernel's first lines kept), or failed otherwise.  The bases' loops
# run side by side, one guest each.
#
# SOAK_VARIANT=debug boots the debugging kernel instead of the test
# kernel; run-guest.sh's QEMU_TCG_THREAD, GUEST_SMP and GUEST_* apply, so
# the same loop measures a QEMU setting against another.
#
# Writes $SHIFTBIND_OUT/soak/BASE.txt (one line a boot, then the count)
# and keeps the console log of every boot that did not end clean; exits 1
# when any boot did not.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

readonly BOOTS=${SOAK_BOOTS:-40}
readonly SOAK_SECONDS=${SOAK_SECONDS:-60}
readonly VARIANT=${SOAK_VARIANT:-test}
readonly SOAK_OUT=$SHIFTBIND_OUT/soak
bin=${1:?usage: boot-soak.sh BIN_DIR}

[[ $BOOTS =~ ^[1-9][0-9]*$ ]] || die "SOAK_BOOTS='$BOOTS': expected a positive number of boots"
[[ $SOAK_SECONDS =~ ^[1-9][0-9]*$ ]] || die "SOAK_SECONDS='$SOAK_SECONDS': expected a positive number of seconds"
case $VARIANT in test | debug) ;; *) die "SOAK_VARIANT='$VARIANT': expected test or debug" ;; esac

# soak_base BASE IMAGE: the boots of one base on IMAGE (its release's),
# their lines and count in SOAK_OUT/BASE.txt.
soak_base() {
	local base=$1 image=$2 kernel dir report i status start outcome oops
	local clean=0 oopsed=0 failed=0
	kernel=$(KERNEL=$base "$SHIFTBIND_ROOT/scripts/kernel.sh" image "$VARIANT")
	dir=$SOAK_OUT/$base
	report=$SOAK_OUT/$base.txt
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "# $base $VARIANT kernel, $(qemu_setting), $BOOTS boots of ${SOAK_SECONDS}s churn, $(date -u +%FT%TZ)" >"$report"
	for i in $(seq 1 "$BOOTS"); do
		status=0 start=$SECONDS
		GUEST_CONSOLE=$dir/console-$i.log GUEST_RESULTS=$dir/results-$i.txt \
			GUEST_TIMEOUT=$((SOAK_SECONDS * 10 + 600)) \
			GUEST_APPEND="shiftbind.kernel=$base SOAK_SECONDS=$SOAK_SECONDS ${GUEST_APPEND:-}" \
			"$SHIFTBIND_ROOT/scripts/run-guest.sh" test "$kernel" "$image" soak \
			>"$dir/boot-$i.log" 2>&1 || status=$?
		oops=$(guest_oops_summary "$dir/console-$i.log")
		if [ -n "$oops" ]; then
			# The report's first line and its RIP (read whole: no early
			# exit of a pipe, which pipefail would make this loop's end).
			outcome="oopsed: ${oops%%$'\n'*}; $(grep -m1 '^RIP: ' <<<"$oops" || echo 'no RIP')"
			oopsed=$((oopsed + 1))
		elif [ "$status" -eq 0 ] && grep -q "^ok - soak@$base.static_key_churn" "$dir/results-$i.txt"; then
			outcome="clean: $(grep -m1 -o '[0-9]* cpuset key flips.*' "$dir/console-$i.log" || echo 'no count')"
			clean=$((clean + 1))
			rm -f "$dir/console-$i.log" "$dir/boot-$i.log"
		else
			outcome="failed: $(grep -m1 'error:' "$dir/boot-$i.log" || grep -m1 '^not ok' "$dir/results-$i.txt" || echo "exit $status")"
			failed=$((failed + 1))
		fi
		outcome+=" ($((SECONDS - start)) s)"
		echo "boot $i: $outcome" >>"$report"
		log "$base boot $i/$BOOTS: $outcome"
	done
	echo "$base: $BOOTS boots, $clean clean, $oopsed oopsed, $failed failed otherwise" >>"$report"
}

# qemu_setting: what run-guest.sh runs the guest with, for the report.
qemu_setting() {
	echo "QEMU $(qemu-system-x86_64 --version | head -n 1 | awk '{print $4}'), -accel $(qemu_accel), -smp ${GUEST_SMP:-2}"
}

main() {
	local list bases base built pids=() status=0
	local -A image=()
	list=$(test_kernels) || exit 1
	mapfile -t bases <<<"$list"
	mkdir -p "$SOAK_OUT" "$SHIFTBIND_CACHE/run"
	trap 'rm -f "$SHIFTBIND_CACHE/run/soak-image-$$-"*.img' EXIT
	# The soak needs no selftests: the image without them boots on any
	# base whose guest runs its Debian release (guest_release).  Each
	# base boots its own copy, which a newer image built meanwhile (the
	# cache keeps only the newest of a kind) cannot take away during the
	# loop.
	for base in "${bases[@]}"; do
		built=$(KERNEL=$base "$SHIFTBIND_ROOT/rootfs-builder/build-image.sh" "$bin") || exit 1
		image[$base]=$SHIFTBIND_CACHE/run/soak-image-$$-$base.img
		cp --sparse=always "$built" "${image[$base]}"
	done
	for base in "${bases[@]}"; do
		require_series "$base"
		KERNEL=$base "$SHIFTBIND_ROOT/scripts/kernel.sh" build "$VARIANT" >&2
	done
	for base in "${bases[@]}"; do
		soak_base "$base" "${image[$base]}" &
		pids+=($!)
	done
	for base in "${!pids[@]}"; do
		wait "${pids[$base]}" || status=1
	done
	for base in "${bases[@]}"; do
		tail -n 1 "$SOAK_OUT/$base.txt"
		grep -q ' 0 oopsed, 0 failed' "$SOAK_OUT/$base.txt" || status=1
	done
	[ "$status" -eq 0 ] || die "not every boot ended clean; the boots' lines: $SOAK_OUT/BASE.txt, the logs of those that did not: $SOAK_OUT/BASE/"
}

main "$@"
