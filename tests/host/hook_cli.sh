#!/bin/bash
# The shiftbind CLI (release build) on the host, whose kernel has no
# configfd, and `make install`:
#   - usage and exit codes, --help for each command
#   - status and status --json on the host's mount table
#   - shift names the missing kernel support and leaves the mount table
#     as it was (allow, disallow and apply-config: hook_cli_allow.sh)
#   - apply-config refuses a bad file with file:line; the shipped
#     allow.conf parses (and lists nothing)
#   - prepare-image creates the targets 0:0 (and podman's /etc/mtab link,
#     keeping an image's own), is idempotent, refuses a symlinked
#     component and creates nothing through it
#   - patch-config registers the hook at the right stage, idempotently,
#     keeps the file valid for jq, refuses a symlinked config.json and
#     one with a duplicate key anywhere, and writes with the temporary
#     names it might try taken by another user
#   - install puts binaries, man pages and configs where DESTDIR/PREFIX say,
#     and the opt-in hooks.d file in HOOKSDIR only when given
. "$(dirname "$0")/../lib/testlib.sh"
. "$(dirname "$0")/hook/lib.sh"
require_root
scratch_dir

build_oci_hook all
cli=$BUILD/shiftbind

# Usage.
assert_status 2 "$cli"
assert_status 0 "$cli" --help
for cmd in allow disallow shift status prepare-image apply-config patch-config; do
	assert_status 0 "$cli" "$cmd" --help
	assert_contains "Usage: shiftbind $cmd" "$OUTPUT"
done
assert_status 2 "$cli" frobnicate
assert_status 2 "$cli" allow
assert_status 2 "$cli" allow --bogus /srv
assert_status 2 "$cli" shift /a

# status: the host kernel marks nothing.
assert_status 0 "$cli" status
assert_contains "is marked allow-shift or shifted" "$OUTPUT"
assert_status 0 "$cli" status --json /
assert_eq 0 "$(jq '.mounts | length' <<<"$OUTPUT")" "mounts in status --json"

# Kernel support missing: said plainly, nothing mounted.
before=$(cat /proc/self/mountinfo)
mkdir -p "$SCRATCH/store"
assert_status 1 "$cli" shift "$SCRATCH/store" "$SCRATCH/store"
assert_contains "$NO_CONFIGFD" "$OUTPUT"
assert_status 1 "$cli" allow /
assert_contains "refusing to mark \`/\` allow-shift" "$OUTPUT"
assert_eq "$before" "$(cat /proc/self/mountinfo)" "mount table after failed commands"

# allow.conf errors name the line; the shipped file lists nothing.
printf '/srv/images\n%s rw ro\n' "$SCRATCH/store" >"$SCRATCH/bad.conf"
assert_status 1 "$cli" apply-config "$SCRATCH/bad.conf"
assert_contains "$SCRATCH/bad.conf:2: \"ro\" is no option any more" "$OUTPUT"
# A root-owned copy: apply-config reads no file another user owns, and
# the checkout may be a user's.
install -m 0644 "$SHIFTBIND_TESTS/../configs/shiftbind-allow.conf" "$SCRATCH/shipped.conf"
assert_status 0 "$cli" apply-config "$SCRATCH/shipped.conf"
assert_contains "no stores listed" "$OUTPUT"

# prepare-image.
image=$SCRATCH/image
mkdir "$image"
assert_status 0 "$cli" prepare-image "$image"
for f in etc/hosts etc/resolv.conf etc/hostname run/.containerenv; do
	assert_eq "0:0 644 regular empty file" "$(stat -c '%u:%g %a %F' "$image/$f")" "$f"
done
for d in proc dev sys etc run; do
	assert_eq "0:0 755 directory" "$(stat -c '%u:%g %a %F' "$image/$d")" "$d"
done
# What podman 5 would otherwise make as the container's root (its
# makePlatformMtabLink), made as real root; an existing one is kept.
assert_eq "0:0 symbolic link" "$(stat -c '%u:%g %F' "$image/etc/mtab")" etc/mtab
assert_eq /proc/mounts "$(readlink "$image/etc/mtab")" "etc/mtab's target"
assert_contains "$image/etc/mtab -> /proc/mounts" "$OUTPUT" "prepare-image's report"
mkdir -p "$SCRATCH/image3/etc"
ln -s ../proc/self/mounts "$SCRATCH/image3/etc/mtab"
assert_status 0 "$cli" prepare-image "$SCRATCH/image3"
assert_eq ../proc/self/mounts "$(readlink "$SCRATCH/image3/etc/mtab")" "an image's own etc/mtab"
assert_status 0 "$cli" prepare-image "$image"
assert_eq "" "$OUTPUT" "second prepare-image"
mkdir "$SCRATCH/image2" "$SCRATCH/elsewhere"
ln -s "$SCRATCH/elsewhere" "$SCRATCH/image2/run"
# A link to a host path is resolved inside the image, as the runtime will.
assert_status 0 "$cli" prepare-image "$SCRATCH/image2"
assert_contains "image2/run is a symbolic link to $SCRATCH/elsewhere: following it inside the image" "$OUTPUT"
assert_eq "0:0 644 regular empty file" \
	"$(stat -c '%u:%g %a %F' "$SCRATCH/image2$SCRATCH/elsewhere/.containerenv")" "the link's target in the image"
[ -z "$(ls -A "$SCRATCH/elsewhere")" ] || fail "prepare-image wrote through a symlink"

# patch-config.
bundle=$SCRATCH/bundle
make_bundle "$bundle" "$image" "0 100000 65536" "0 100000 65536" /bin/true
assert_status 0 "$cli" patch-config "$bundle"
assert_contains "hook registered at createRuntime" "$OUTPUT"
jq -e '.hooks.createRuntime[-1] == {path: "/usr/libexec/shiftbind/shiftbind-hook",
	args: ["shiftbind-hook", "createRuntime"], timeout: 10}' "$bundle/config.json" >/dev/null ||
	fail "createRuntime hook entry: $(jq -c .hooks "$bundle/config.json")"
cp "$bundle/config.json" "$SCRATCH/first.json"
assert_status 0 "$cli" patch-config "$bundle"
assert_contains "already registered" "$OUTPUT"
cmp -s "$bundle/config.json" "$SCRATCH/first.json" || fail "second patch-config changed config.json"
# Whoever can write the bundle's directory cannot take every name the
# temporary file may get: all 100 that an unseeded random() gives (the
# names patch-config once tried) are taken, and it still writes.
python3 -c 'import ctypes; r = ctypes.CDLL(None).random
print("\n".join(".config.json.%08x" % r() for _ in range(100)))' |
	while read -r name; do : >"$bundle/$name"; done
assert_status 0 "$cli" patch-config --rootless --hook /opt/sb/shiftbind-hook "$bundle"
jq -e '(.hooks.createRuntime | length) == 0 and .hooks.createContainer[-1].path == "/opt/sb/shiftbind-hook"
	and .hooks.createContainer[-1].args == ["shiftbind-hook", "createContainer"]' \
	"$bundle/config.json" >/dev/null || fail "rootless entry: $(jq -c .hooks "$bundle/config.json")"
assert_eq "$(jq -S 'del(.hooks)' "$SCRATCH/first.json")" "$(jq -S 'del(.hooks)' "$bundle/config.json")" \
	"config.json apart from hooks"
# It writes config.json back whole: a duplicate key anywhere is refused,
# even one the hook itself would not read (process.cwd).
cp "$bundle/config.json" "$SCRATCH/before-dup.json"
jq -c . "$SCRATCH/before-dup.json" | sed 's|"process":{|"process":{"cwd":"/x",|' >"$bundle/config.json"
cp "$bundle/config.json" "$SCRATCH/dup.json"
assert_status 1 "$cli" patch-config "$bundle"
assert_contains 'config.json: duplicate key "cwd"' "$OUTPUT"
cmp -s "$bundle/config.json" "$SCRATCH/dup.json" || fail "patch-config changed a config.json it refused"
cp "$SCRATCH/before-dup.json" "$bundle/config.json"
mv "$bundle/config.json" "$bundle/real.json"
ln -s real.json "$bundle/config.json"
assert_status 1 "$cli" patch-config "$bundle"
assert_contains "is a symbolic link, refused" "$OUTPUT"

# install.
root=$SCRATCH/root
assert_status 0 make -s -C "$OCI_HOOK_DIR" install O="$BUILD" DESTDIR="$root"
for f in usr/libexec/shiftbind/shiftbind-hook usr/sbin/shiftbind; do
	[ -x "$root/$f" ] || fail "not installed: $f"
done
for f in usr/share/man/man8/shiftbind.8 usr/share/man/man8/shiftbind-hook.8 \
	usr/share/man/man7/configfd-bind.7 usr/share/man/man7/configfd-shift.7 \
	usr/share/man/man7/mount_setattr-shift.7 usr/share/man/man7/shiftbind-security.7 \
	usr/share/man/man2/configfd_open.2 \
	usr/lib/systemd/system/shiftbind-allow.service etc/shiftbind/allow.conf \
	usr/share/shiftbind/hooks/crun-rootful.json usr/share/shiftbind/hooks/crun-rootless.json \
	usr/share/shiftbind/hooks/hooks.d/rootful/shiftbind.json \
	usr/share/shiftbind/hooks/hooks.d/rootless/shiftbind.json \
	usr/share/shiftbind/hooks/hooks.d/opt-in/shiftbind.json; do
	[ -f "$root/$f" ] || fail "not installed: $f"
done
# No hooks directory a runtime reads by default unless HOOKSDIR names one.
[ ! -e "$root/usr/share/containers" ] || fail "installed into usr/share/containers without HOOKSDIR"
assert_status 0 make -s -C "$OCI_HOOK_DIR" install O="$BUILD" DESTDIR="$SCRATCH/hooksdir" \
	HOOKSDIR=/usr/share/containers/oci/hooks.d
cmp -s "$OCI_HOOK_DIR/../configs/hooks/hooks.d/opt-in/shiftbind.json" \
	"$SCRATCH/hooksdir/usr/share/containers/oci/hooks.d/shiftbind.json" ||
	fail "HOOKSDIR: the opt-in file is not installed as shiftbind.json"
echo "# an administrator's list" >"$root/etc/shiftbind/allow.conf"
assert_status 0 make -s -C "$OCI_HOOK_DIR" install O="$BUILD" DESTDIR="$root" \
	PREFIX=/usr/local SYSCONFDIR=/usr/local/etc
assert_eq "# an administrator's list" "$(cat "$root/etc/shiftbind/allow.conf")" "allow.conf kept"
assert_contains '"path": "/usr/local/libexec/shiftbind/shiftbind-hook"' \
	"$(cat "$root/usr/local/share/shiftbind/hooks/hooks.d/rootful/shiftbind.json")"
assert_contains "ExecStart=/usr/local/sbin/shiftbind apply-config /usr/local/etc/shiftbind/allow.conf" \
	"$(cat "$root/usr/local/lib/systemd/system/shiftbind-allow.service")"
assert_status 0 "$root/usr/local/sbin/shiftbind" patch-config --help
assert_contains "(default /usr/local/libexec/shiftbind/shiftbind-hook)" "$OUTPUT"
echo "CLI and install checked"
