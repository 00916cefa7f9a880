#!/bin/bash
# Opening for write through an overlay stacked on shifts, while real root
# freezes and thaws the store's filesystem, and then revokes the shifts.
# Real root makes an ext4 store (a loop-mounted image, nosuid, nodev) with
# image/ (lower files, a setuid-root program) marked read-only and rw/
# (upper/ and work/, and real root's own setuid-root upper/usuid) marked
# writable, both for the test user.  Root of the test user's user
# namespace shifts both and mounts an overlay: lower the image's shift,
# upper and work on rw/'s shift (userxattr; without it if that is
# refused; the lower alone on a shift, the upper on a tmpfs, if an upper
# on a shift is refused: the test says which it got).  One process there
# (tests/fuzz/src/overlay_writes.c) then, over and over, opens lower
# files O_RDWR (copy-up through the shift) and writes, writes through a
# file held open, creates files and chmods them, chmods lower files
# (copy-up by setattr), opens the setuid-root lower program O_RDWR (its
# copy-up must fail, EPERM) and usuid O_RDWR (the open drops the bit, or
# fails with EAGAIN while frozen).  Meanwhile real root freezes and thaws
# the store (FIFREEZE/FITHAW, 5 to 60 ms each, giving usuid its bit back
# after each thaw) for FREEZE_SECONDS, and then, the freezing going on,
# revokes both marks (shiftbind disallow --revoke) while the writes go on.
#
# Every call that ended before the revocation began must have done what
# it does (usuid's open: EAGAIN only when a freeze was in force); every
# call that began after it returned must fail with EACCES, EPERM, EROFS
# or EOVERFLOW (a change of an inode whose owner the revoked idmap no
# longer maps); those in flight may do either.  No kernel report
# since the test began (lockdep, WARNING, sleeping in atomic context,
# KASAN...); on disk everything in the upper directory is real root's
# (0:0: the container's root writes as the owner the shift lends) and
# nothing setuid or setgid but real root's usuid; the lower image is
# unchanged; the store is thawed when the freezer ends, and on every
# exit (the EXIT trap thaws it before anything else); the initial mount
# namespace's table is as it was.
#
# Quick under TCG on the debug kernel: one writer process, one freezer
# process, bash builtins elsewhere; about a minute of guest time.
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/fuzzlib.bash"

readonly FREEZE_SECONDS=${FUZZ_FREEZE_SECONDS:-4}
# Real root's lower files of each kind (l000.., c000..) the writer copies up.
readonly LOWER_FILES=256
WRITER=${WRITER:-$SHIFTBIND_GUEST_LIB/fuzz/overlay_writes}

# What runs as root of the test user's user namespace: the two shifts,
# the overlay (the first layout overlayfs accepts), then the writer.
# $1 store, $2 the user's directory, $3 the control directory, $4 the
# writer, $5 LOWER_FILES.  Events ("layout: ...", "setup-failed: ...",
# the writer's "ready" and "done") go to the fifo $3/events.
# shellcheck disable=SC2016 # expanded by the namespace's shell
readonly NS_SCRIPT='
store=$1 w=$2 ctl=$3 writer=$4 lower=$5
exec 3>"$ctl/events"
say() { echo "$*" >&3; }
shiftbind shift "$store/image" "$w/lower" ||
	{ say "setup-failed: shiftbind shift of the image"; exit 1; }
shiftbind shift "$store/rw" "$w/rw" ||
	{ say "setup-failed: shiftbind shift of the writable directory"; exit 1; }
layers="lowerdir=$w/lower,upperdir=$w/rw/upper,workdir=$w/rw/work"
gate=
if mount -t overlay overlay -o "$layers,userxattr" "$w/merged" 2>"$w/refused"; then
	say "layout: upper on the shift, userxattr"
elif mount -t overlay overlay -o "$layers" "$w/merged" 2>>"$w/refused"; then
	say "layout: upper on the shift, without userxattr"
elif mount -t tmpfs -o mode=0755 tmpfs "$w/tup" && mkdir "$w/tup/upper" "$w/tup/work" &&
	mount -t overlay overlay -o "lowerdir=$w/lower,upperdir=$w/tup/upper,workdir=$w/tup/work,userxattr" \
		"$w/merged" 2>>"$w/refused"; then
	say "layout: lower only on a shift, upper on a tmpfs"
	gate=--ungated-upper
else
	say "setup-failed: overlayfs refused every layout: $(tr "\n" " " <"$w/refused")"
	exit 1
fi
# overlayfs mounts read-only, and says so only in the kernel log, when it
# cannot use its work directory: the options of the mount and of its
# superblock (the third field after "-").
opts=
while read -r -a f; do
	[ "${f[4]}" = "$w/merged" ] || continue
	for ((i = 6; i < ${#f[@]}; i++)); do [ "${f[i]}" != - ] || break; done
	opts="${f[5]} ${f[i + 3]:-}"
done </proc/self/mountinfo
case ",${opts// /,}," in
*,ro,*) say "setup-failed: overlayfs mounted the overlay read-only ($opts; the kernel log says why)"; exit 1 ;;
*) ;;
esac
exec "$writer" write --merged "$w/merged" --state "$ctl/state" --stop "$ctl/stop" \
	--events 3 --lower "$lower" $gate
'

fuzz_begin fsfreeze_overlay_open_for_write
[ -x "$WRITER" ] || fail "$WRITER is missing (make builds it from tests/fuzz/src)"
for tool in fsfreeze mkfs.ext4 runuser unshare shiftbind; do
	command -v "$tool" >/dev/null || fail "the guest has no $tool"
done
umask 022
init_mounts=$(mount_table_of 1)
repro="FUZZ_SEED=$FUZZ_SEED $SHIFTBIND_GUEST_LIB/tests/fuzz/$(basename "$0") in 'make shell KERNEL_VARIANT=debug'"

scratch_dir
chmod 0755 "$SCRATCH"
readonly CTL=$SCRATCH/ctl W=$SCRATCH/user
readonly IMG=/var/tmp/ovl-freeze-$$.img STORE=/srv/ovl-freeze-$$
STORE_MOUNTED='' NS_PID='' FREEZER_PID='' EV='' NAP=''

# nap SECONDS: sleep without a process (a read of a fifo nobody writes).
nap() { read -r -t "$1" -u "$NAP" _ || true; }

# mounted_at DIR: whether a mount of this namespace is on DIR (builtins).
mounted_at() {
	local point
	while read -r _ _ _ _ point _; do
		[ "$point" != "$1" ] || return 0
	done </proc/self/mountinfo
	return 1
}

# thaw_store: the store's filesystem is not frozen (an error when it was
# not frozen is what a thawed store says).
thaw_store() {
	[ -z "$STORE_MOUNTED" ] || fsfreeze -u "$STORE" 2>/dev/null || true
}

# unmount_store: the marks and the store gone, the image removed.
unmount_store() {
	local m
	if [ -n "$STORE_MOUNTED" ]; then
		for m in "$STORE/rw" "$STORE/image" "$STORE"; do
			while mounted_at "$m"; do umount "$m" || break; done
		done
		! mounted_at "$STORE" || return 1
		STORE_MOUNTED=
	fi
	[ ! -d "$STORE" ] || rmdir "$STORE"
	rm -f "$IMG"
}

# The EXIT trap: thaw first, whatever failed; then end the freezer and
# the writer (by their ids), and remove the store.
cleanup() {
	local status=$? i
	set +e
	if [ -d "$CTL" ]; then : >"$CTL/stop"; : >"$CTL/stop-freeze"; fi
	thaw_store
	if [ -n "$FREEZER_PID" ]; then
		kill "$FREEZER_PID" 2>/dev/null
		wait "$FREEZER_PID" 2>/dev/null
		thaw_store
	fi
	if [ -n "$NS_PID" ]; then
		for ((i = 0; i < 100; i++)); do
			kill -0 "$NS_PID" 2>/dev/null || break
			nap 0.2
		done
		kill "$NS_PID" 2>/dev/null
		wait "$NS_PID" 2>/dev/null
	fi
	unmount_store || echo "cleanup: could not unmount $STORE" >&2
	rm -rf "$SCRATCH"
	exit "$status"
}
trap cleanup EXIT

# next_event SECONDS: the next line the namespace sends, in $EVENT.
# Returns 1 if it sends none in SECONDS, 2 if it ended without one.
next_event() {
	local i
	for ((i = 0; i < $1; i++)); do
		if read -r -t 1 -u "$EV" EVENT; then return 0; fi
		if ! kill -0 "$NS_PID" 2>/dev/null; then
			# What it said before it ended is still in the fifo.
			read -r -t 1 -u "$EV" EVENT && return 0
			return 2
		fi
	done
	return 1
}

# --- The store: ext4 on a loop device, image/ and rw/ marked for the user.
truncate -s 64M "$IMG"
mkfs.ext4 -q -F -L ovl-freeze "$IMG" >"$SCRATCH/mkfs.log" 2>&1 ||
	fail "mkfs.ext4 of the store failed: $(<"$SCRATCH/mkfs.log")"
mkdir -m 0755 "$STORE"
mount -o loop,nosuid,nodev "$IMG" "$STORE" || fail "mounting the store's image on $STORE failed"
STORE_MOUNTED=1
mkdir -m 0755 "$STORE/image" "$STORE/rw" "$STORE/rw/upper" "$STORE/rw/work"
for ((i = 0; i < LOWER_FILES; i++)); do
	printf -v n '%03d' "$i"
	printf 'lower file l%s\n' "$n" >"$STORE/image/l$n"
	printf 'lower file c%s\n' "$n" >"$STORE/image/c$n"
done
printf 'held open for write\n' >"$STORE/image/held"
printf '#!/bin/sh\necho real root\n' >"$STORE/image/suid"
printf '#!/bin/sh\necho real root\n' >"$STORE/rw/upper/usuid"
chmod 04755 "$STORE/image/suid" "$STORE/rw/upper/usuid"
lower_state() {
	find "$STORE/image" -printf '%U:%G %m %s %P\n' | sort
	cat "$STORE"/image/* | cksum
}
lower_before=$(lower_state)
assert_status 0 shiftbind allow --owner "$TEST_USER" "$STORE/image"
assert_status 0 shiftbind allow --rw --owner "$TEST_USER" "$STORE/rw"

# --- Control: the page the three programs share (zeros), the fifos.
mkdir -m 0755 "$CTL"
printf '%.0s\0' {1..4096} >"$CTL/state"
mkfifo -m 0600 "$CTL/events" "$SCRATCH/nap"
chown "$TEST_USER" "$CTL/events"
exec {EV}<>"$CTL/events" {NAP}<>"$SCRATCH/nap"
install -d -o "$TEST_USER" -m 0755 "$W" "$W/lower" "$W/rw" "$W/merged" "$W/tup"

# --- The test user's namespace: shifts, overlay, writer.
t0=$SECONDS
runuser -u "$TEST_USER" -- unshare -Urm bash -c "$NS_SCRIPT" ns-setup \
	"$STORE" "$W" "$CTL" "$WRITER" "$LOWER_FILES" >"$SCRATCH/ns.out" 2>&1 &
NS_PID=$!
layout='' status=0
while :; do
	next_event 120 || status=$?
	case $status in
	1) fail "the test user's namespace set nothing up in 120 s: $(<"$SCRATCH/ns.out")" ;;
	2) fail "the test user's namespace ended before its writer began: $(<"$SCRATCH/ns.out")" ;;
	*) ;;
	esac
	case $EVENT in
	"layout: "*) layout=${EVENT#layout: } ;;
	ready) break ;;
	setup-failed:*) fail "in the test user's namespace, ${EVENT#setup-failed: }; its output: $(<"$SCRATCH/ns.out")" ;;
	*) echo "unexpected event from the namespace: $EVENT" ;;
	esac
done
refused=$(<"$W/refused")
refused=${refused//$'\n'/ }
echo "overlay: $layout${refused:+ (refused first: $refused)}"
setup_seconds=$((SECONDS - t0))
mi=$(</proc/1/mountinfo)
[[ $mi != *" - overlay "* && $mi != *"$W/"* ]] ||
	fail "the user's mounts reached the initial mount namespace: $(grep -e ' - overlay ' -e "$W/" /proc/1/mountinfo | tr '\n' ' ')"

# --- Real root: freeze and thaw under the writes, then revoke.
rearm=()
[[ $layout != "upper on the shift"* ]] || rearm=(--rearm "$STORE/rw/upper/usuid")
"$WRITER" freeze --mount "$STORE" --state "$CTL/state" --stop "$CTL/stop-freeze" \
	--seed "$FUZZ_SEED" "${rearm[@]}" >"$SCRATCH/freezer.out" 2>&1 &
FREEZER_PID=$!
sleep "$FREEZE_SECONDS"
revoke_status=0
# shellcheck disable=SC2016 # expanded by sh
"$WRITER" revoke --state "$CTL/state" -- sh -c \
	'shiftbind disallow --revoke "$1" && shiftbind disallow --revoke "$2"' \
	revoke "$STORE/rw" "$STORE/image" >"$SCRATCH/revoke.out" 2>&1 || revoke_status=$?
writer_done=
while next_event 120; do
	[ "$EVENT" != "done" ] || { writer_done=1; break; }
done
if [ -z "$writer_done" ]; then
	thaw_store
	[ ! -w /proc/sysrq-trigger ] || echo w >/proc/sysrq-trigger
	echo "--- the writer so far:"
	cat "$SCRATCH/ns.out"
	fuzz_check_kernel_log "overlay writes under fsfreeze" "$repro"
	fail "the writer did not say it was done (it ended without a word, or not within 120 s of the revocation: if it hangs, sysrq w's blocked tasks are in the console log); reproduce: $repro"
fi
writer_status=0
wait "$NS_PID" || writer_status=$?
NS_PID=
: >"$CTL/stop-freeze"
freezer_status=0
wait "$FREEZER_PID" || freezer_status=$?
FREEZER_PID=
# A thawed filesystem refuses FITHAW (EINVAL): the freezer left it thawed.
if fsfreeze -u "$STORE" 2>"$SCRATCH/thaw.err"; then
	fail "the store was still frozen after the freezer ended"
fi
assert_contains "Invalid argument" "$(<"$SCRATCH/thaw.err")" "FITHAW of the store after the freezer"
run_seconds=$((SECONDS - t0))

echo "--- the writer (root of $TEST_USER's user namespace):"
cat "$SCRATCH/ns.out"
echo "--- real root's freezer and revocation:"
cat "$SCRATCH/freezer.out" "$SCRATCH/revoke.out"
fuzz_check_kernel_log "overlay writes under fsfreeze" "$repro"

out=$(<"$SCRATCH/ns.out")
result=$(grep -m1 '^overlay_writes: RESULT ' <<<"$out" || true)
[ -n "$result" ] || fail "the writer printed no RESULT (exit $writer_status); reproduce: $repro"
field() { local re=" $1=([^ ]*)"; [[ $result =~ $re ]] && echo "${BASH_REMATCH[1]}"; }
if [ "$writer_status" -ne 0 ] || [ "$(field status)" != ok ]; then
	first=$(grep -m1 'VIOLATION' <<<"$out" || true)
	fail "the writer exited $writer_status: ${first:-$result}; reproduce: $repro"
fi
assert_eq 0 "$revoke_status" "shiftbind disallow --revoke of both marks (exit status): $(<"$SCRATCH/revoke.out")"
assert_contains "revoked every shift made through it" "$(<"$SCRATCH/revoke.out")" "what disallow --revoke says"
assert_eq 0 "$freezer_status" "the freezer's exit status ($(<"$SCRATCH/freezer.out"))"
assert_eq 0 "$(field after_ok)" "calls that succeeded after the revocation had returned"

# --- On disk, as real root: the upper directory is real root's, nothing
# in it is setuid or setgid but real root's usuid, and the image is as it was.
upper=$(find "$STORE/rw/upper" -mindepth 1 -printf '%U:%G %m %y %P\n')
files=0 copies=0 created=0 unmapped=0 wrong=() setid=()
while read -r owner mode _ path; do
	[ -n "$path" ] || continue
	((++files))
	case $path in
	[lc][0-9][0-9][0-9]) ((++copies)) ;;
	n[0-9][0-9][0-9]) ((++created)) ;;
	suid) wrong+=("real root's setuid-root lower program was copied up: $owner $mode") ;;
	esac
	case $owner in
	0:0) ;;
	4294967295:* | *:4294967295) ((++unmapped)) ;;
	*) wrong+=("$owner $mode $path") ;;
	esac
	[ "$path" = usuid ] || (((8#$mode & 06000) == 0)) || setid+=("$mode $path")
done <<<"$upper"
[ ${#wrong[@]} -eq 0 ] ||
	fail "upper files not owned by real root (0:0) on disk: ${wrong[*]} (layout: $layout)"
[ ${#setid[@]} -eq 0 ] || fail "setuid or setgid files in the upper directory on disk: ${setid[*]}"
if [[ $layout == "upper on the shift"* ]]; then
	[ "$copies" -ge "$(field copy_ups)" ] ||
		fail "$(field copy_ups) copy-ups reported, $copies copies in the upper directory on disk"
	[ "$created" -ge 1 ] || fail "no file the writer created is in the upper directory on disk"
	# Only an operation across the revocation may leave an unmapped owner.
	[ "$unmapped" -eq 0 ] || [ "$(field in_flight)" -gt 0 ] ||
		fail "$unmapped upper files owned by 4294967295 with no call in flight across the revocation"
else
	[ "$files" -eq 1 ] || fail "the upper directory on the store changed though the overlay's upper was a tmpfs: $upper"
fi
assert_eq "$lower_before" "$(lower_state)" "real root's lower image on disk"

# --- Gone without a trace: the store unmounted, the mount table as it was.
unmount_store || fail "could not unmount the store $STORE: $(grep " $STORE" /proc/self/mountinfo | tr '\n' ' ')"
assert_same_mounts "$init_mounts" 1 "the initial mount namespace after the test"
fuzz_check_kernel_log "overlay writes under fsfreeze (teardown)" "$repro"

note "$layout; $(field iterations) iterations in $((run_seconds - setup_seconds)) s, \
$(field freezes) freezes meanwhile, $(field copy_ups) copy-ups ($(field copy_ups_frozen) met a freeze), \
usuid's open for write: $(field usuid_cleared) left it without setuid, $(field usuid_eagain) EAGAIN; \
calls $(field before) before the revocation, $(field in_flight) in flight, $(field after) after, \
$(field after_ok) succeeded after$([ "$unmapped" -eq 0 ] || echo "; $unmapped upper files owned by 4294967295"); seed $FUZZ_SEED"
