#!/bin/bash
# An allow.conf that someone other than root could have written is not
# applied, on the patched kernel (issue 47, part 5): before, apply-config
# marked what a user's file, or a file others can write, listed.  As
# sshd's StrictModes: owned by another user, writable by its group, or in
# a directory a user owns, the file is refused with the remedy, the
# command exits 1, and its store carries no mark.  The unit's own
# command, on /etc/shiftbind/allow.conf made writable by its group, exits
# 1 with the message on stderr (the unit fails, its log says why).  With
# the remedy applied, the file is applied.
. "$(dirname "$0")/../lib/testlib.sh"
require_guest
scratch_dir

store=/srv/e2e-conf-unsafe-$$
site=/etc/shiftbind/allow.conf
site_mode=$(stat -c %a "$site")
cleanup() {
	chmod "$site_mode" "$site"
	while mountpoint -q "$store"; do umount "$store" || break; done
	rm -rf "$store" "$SCRATCH"
}
trap cleanup EXIT
mkdir -p "$store"
chmod 0711 "$store"
chmod 0755 "$SCRATCH"
conf=$SCRATCH/allow.conf
printf '%s owner=root owner=%s\n' "$store" "$TEST_USER" >"$conf"
chmod 0644 "$conf"

what="choose which stores are marked and for whom"
remedy="make it root's and writable by root only: chown root:root $conf; chmod 644 $conf"
# refused MESSAGE: apply-config $conf exits 1 with MESSAGE alone, and the
# store has no mark.
refused() {
	assert_status 1 shiftbind apply-config "$conf"
	assert_eq "shiftbind apply-config: refusing $conf, nothing marked: $1" "$OUTPUT" "apply-config"
	assert_eq "" "$(mark_of "$store")" "mark of the store after a refused allow.conf"
	mountpoint -q "$store" && fail "$store was mounted: $(grep " $store " /proc/self/mountinfo)"
	return 0
}

chown "$TEST_USER:" "$conf"
refused "\`$conf\` is owned by uid $(id -u "$TEST_USER"), not root: that user could $what; $remedy"
chown root:root "$conf"
chmod 0664 "$conf"
refused "\`$conf\` is writable by its group (mode 0664): they could $what; $remedy"
chmod 0644 "$conf"
install -d -o "$TEST_USER" -m 0755 "$SCRATCH/user"
mv "$conf" "$SCRATCH/user/allow.conf"
conf=$SCRATCH/user/allow.conf
refused "\`$SCRATCH/user\` (on the way to \`$conf\`) is owned by uid $(id -u "$TEST_USER"), not root: that user could replace the file and $what; make it root's (chown root:root it) or keep the file in a directory only root can write"
mv "$conf" "$SCRATCH/allow.conf"
conf=$SCRATCH/allow.conf

# The unit's command (its ExecStart, split as systemd splits plain words)
# on the site's file made group-writable: exit 1, the message on stderr.
unit=/usr/lib/systemd/system/shiftbind-allow.service
command=$(sed -n 's/^ExecStart=//p' "$unit")
[[ $command == /* ]] || fail "$unit: ExecStart=$command would not fail the unit on an error (a '-' prefix?)"
grep -qE '^(SuccessExitStatus|StandardError)=' "$unit" &&
	fail "$unit changes what counts as success or where errors go: $(grep -E '^(SuccessExitStatus|StandardError)=' "$unit")"
chmod 0664 "$site"
status=0
# shellcheck disable=SC2086 # a unit's command line, split as systemd does for plain words
err=$($command 2>&1 >/dev/null) || status=$?
assert_eq 1 "$status" "exit status of the unit's command on a group-writable $site"
assert_eq "shiftbind apply-config: refusing $site, nothing marked: \`$site\` is writable by its group (mode 0664): they could $what; make it root's and writable by root only: chown root:root $site; chmod 644 $site" \
	"$err" "the unit's command's stderr"
chmod "$site_mode" "$site"

# The remedy applied: the file is applied.
chown root:root "$conf"
chmod 644 "$conf"
assert_status 0 shiftbind apply-config "$conf"
assert_contains "marked $store allow-shift, read-only, nosuid" "$OUTPUT" "apply-config after the remedy"
assert_match "(^|,)allow-shift=0:$(id -u "$TEST_USER")(,|$)" "$(mark_of "$store")" "the store's mark after the remedy"
echo "allow.conf: refused unless root's and writable by root only, and then applied"
