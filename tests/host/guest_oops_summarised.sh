#!/bin/bash
# A guest whose kernel oopses is diagnosed in the run's summary, not only
# in a console log path: the boot step's failure carries the oops' first
# line, its RIP and code bytes, the top of its call trace and the panic it
# ended in.  The guest here is a stand-in QEMU that prints the int3 oops
# seen under TCG (docs/kernel-bases.md) on its serial console and powers
# off without a result, as a panicking guest with -no-reboot does.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir
export SHIFTBIND_OUT=$SCRATCH/out SHIFTBIND_CACHE=$SCRATCH/cache
mkdir -p "$SHIFTBIND_OUT" "$SCRATCH/bin"
: >"$SHIFTBIND_OUT/harness.results"

cat >"$SCRATCH/console.txt" <<'LOG'
[    0.000000] Linux version 6.1.192-shiftbind (root@host) #1 SMP PREEMPT_DYNAMIC
[   41.207316] shiftbind guest: 6.1.192-shiftbind, mode test
[  212.934401] int3: 0000 [#1] PREEMPT SMP NOPTI
[  212.934950] CPU: 1 PID: 3816 Comm: persistence.sh Not tainted 6.1.192-shiftbind #1
[  212.935468] Hardware name: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[  212.936134] RIP: 0010:get_page_from_freelist+0x260/0x1230
[  212.936495] Code: 00 48 8b 44 24 20 48 8b 40 08 48 85 c0 0f 84 ee 00 00 00 <cc> 44 00 00 8b 44 24 3c 41 89 c4 41 83 e4 02
[  212.937561] RSP: 0018:ffffc90000d3bbd8 EFLAGS: 00000246
[  212.938010] RAX: ffff88807ffd6d00 RBX: 0000000000000000 RCX: 0000000000000000
[  212.940151] Call Trace:
[  212.940301]  <TASK>
[  212.940433]  ? die+0x36/0x90
[  212.940620]  ? exc_int3+0x10f/0x160
[  212.940840]  ? asm_exc_int3+0x39/0x40
[  212.941061]  ? get_page_from_freelist+0x260/0x1230
[  212.941340]  __alloc_pages+0x1a3/0x330
[  212.941590]  </TASK>
[  212.941733] Modules linked in:
[  212.942290] Kernel panic - not syncing: Fatal exception in interrupt
[  212.943102] Kernel Offset: disabled
LOG

# The stand-in QEMU: copies the console above to -serial's file and exits
# 0, as QEMU does when a panicking guest "reboots" under -no-reboot.
cat >"$SCRATCH/bin/qemu-system-x86_64" <<QEMU
#!/bin/bash
while [ \$# -gt 0 ]; do
	case \$1 in -serial) serial=\${2#file:}; shift ;; esac
	shift
done
cp "$SCRATCH/console.txt" "\$serial"
QEMU
chmod +x "$SCRATCH/bin/qemu-system-x86_64"
: >"$SCRATCH/bzImage"
: >"$SCRATCH/rootfs.img"

# shellcheck source=../../scripts/test.sh
. "$SHIFTBIND_TESTS/../scripts/test.sh"
set +e
PATH=$SCRATCH/bin:$PATH step boot@6.1 "$SHIFTBIND_TESTS/../scripts/run-guest.sh" \
	test "$SCRATCH/bzImage" "$SCRATCH/rootfs.img" smoke >/dev/null 2>&1
status=$?
set -e
[ "$status" -ne 0 ] || fail "a boot whose kernel oopsed passed"

summary=$(cat "$SHIFTBIND_OUT/harness.results")
assert_contains "not ok - step.boot@6.1" "$summary" "the failed step"
for line in "int3: 0000 [#1] PREEMPT SMP NOPTI" \
	"RIP: 0010:get_page_from_freelist+0x260/0x1230" \
	"Code: 00 48 8b 44 24 20" \
	"? die+0x36/0x90" \
	"Kernel panic - not syncing: Fatal exception in interrupt" \
	"guest kernel oopsed"; do
	assert_contains "$line" "$summary" "the step's failure in the run's summary"
done
# Only the trace's top: four frames, not the whole trace.
case $summary in *__alloc_pages*) fail "the summary holds more than the trace's top: $summary" ;; esac
case $summary in *"Hardware name"* | *RSP:*) fail "the summary holds registers or the machine's name: $summary" ;; esac

# A console with no oops adds nothing (the plain reason stays alone).
printf 'shiftbind guest: 6.1.192-shiftbind, mode test\n' >"$SCRATCH/console.txt"
: >"$SHIFTBIND_OUT/harness.results"
set +e
PATH=$SCRATCH/bin:$PATH step boot@6.1 "$SHIFTBIND_TESTS/../scripts/run-guest.sh" \
	test "$SCRATCH/bzImage" "$SCRATCH/rootfs.img" smoke >/dev/null 2>&1
set -e
summary=$(cat "$SHIFTBIND_OUT/harness.results")
assert_contains "guest ended without completing its run" "$summary" "a boot without a result"
case $summary in *oops*) fail "a boot without an oops reported one: $summary" ;; esac
