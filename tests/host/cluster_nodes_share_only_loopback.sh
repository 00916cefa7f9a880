#!/bin/bash
# scripts/cluster.sh boots the cluster suite's two guests joined by a
# network between their two QEMU processes and nothing else: node1's
# QEMU listens on a TCP port of 127.0.0.1 (a socket netdev), node2's
# connects to that same port, each with a virtio card of its own MAC;
# node1 runs the suites and may not reboot (-no-reboot), node2 runs no
# suite and may (a test reboots it); each kernel command line names its
# node.  Stand-in QEMUs record their arguments; node1's listens on its
# port as QEMU does (cluster.sh waits for that before starting node2).
# run-guest.sh refuses any other network than a loopback socket.
. "$(dirname "$0")/../lib/testlib.sh"
scratch_dir
export SHIFTBIND_OUT=$SCRATCH/out SHIFTBIND_CACHE=$SCRATCH/cache
mkdir -p "$SHIFTBIND_OUT" "$SCRATCH/bin"
command -v python3 >/dev/null || fail "python3 not found: the stand-in QEMU listens with it (make deps)"

cat >"$SCRATCH/bin/qemu-system-x86_64" <<QEMU
#!/bin/bash
args=("\$@")
while [ \$# -gt 0 ]; do
	case \$1 in
	-chardev) results=\${2##*path=}; shift ;;
	-append) node=\$(grep -o 'shiftbind.node=[a-z0-9]*' <<<"\$2"); node=\${node#*=}; shift ;;
	-netdev) netdev=\$2; shift ;;
	esac
	shift
done
printf '%s\n' "\${args[@]}" >"$SCRATCH/args-\$node"
if [[ \$netdev == socket,listen=127.0.0.1:* ]]; then
	port=\${netdev#socket,listen=127.0.0.1:}
	port=\${port%%,*}
	# Listen as QEMU does, until node2 has started (its args file).
	python3 -c 'import socket, sys, os, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
for _ in range(300):
    if os.path.exists(sys.argv[2]): break
    time.sleep(0.1)' "\$port" "$SCRATCH/args-node2"
fi
echo "# shiftbind-guest-done" >>"\$results"
QEMU
chmod +x "$SCRATCH/bin/qemu-system-x86_64"
: >"$SCRATCH/bzImage"
: >"$SCRATCH/rootfs.img"

PATH=$SCRATCH/bin:$PATH assert_status 0 "$SHIFTBIND_TESTS/../scripts/cluster.sh" \
	"$SCRATCH/bzImage" "$SCRATCH/rootfs.img" cluster
for node in node1 node2; do
	[ -f "$SCRATCH/args-$node" ] || fail "cluster.sh started no QEMU for $node: $OUTPUT"
done
n1=$(cat "$SCRATCH/args-node1")
n2=$(cat "$SCRATCH/args-node2")
listen=$(grep -x 'socket,listen=127\.0\.0\.1:[0-9]*,id=net0' <<<"$n1") ||
	fail "node1's netdev is not a socket listening on 127.0.0.1: $(grep -A1 -x -- -netdev <<<"$n1")"
port=${listen#socket,listen=127.0.0.1:}
port=${port%,id=net0}
assert_eq "socket,connect=127.0.0.1:$port,id=net0" "$(grep -A1 -x -- -netdev <<<"$n2" | tail -n 1)" \
	"node2's netdev (node1's port)"
for node in node1 node2; do
	args=$(cat "$SCRATCH/args-$node")
	assert_eq 1 "$(grep -cx -- -netdev <<<"$args")" "netdevs of $node"
	[ "$(grep -cx -- -nic <<<"$args")" -eq 0 ] || fail "$node has another network card: $args"
	assert_contains "shiftbind.mode=cluster" "$args" "$node's kernel command line"
done
assert_eq "virtio-net-pci,netdev=net0,mac=52:54:00:46:00:01" "$(grep -A1 -x -- -device <<<"$n1" | grep virtio-net)" "node1's card"
assert_eq "virtio-net-pci,netdev=net0,mac=52:54:00:46:00:02" "$(grep -A1 -x -- -device <<<"$n2" | grep virtio-net)" "node2's card"
assert_contains "shiftbind.suites=cluster" "$n1" "node1's suites"
[[ $n2 != *shiftbind.suites=* ]] || fail "node2 was given suites to run: $n2"
grep -qx -- -no-reboot <<<"$n1" || fail "node1 may reboot (no -no-reboot): $n1"
! grep -qx -- -no-reboot <<<"$n2" || fail "node2 cannot be rebooted in place (-no-reboot): $n2"

# Any other network is refused before QEMU starts.
for netdev in socket,listen=0.0.0.0:4000 user socket,connect=10.0.0.1:4000 "socket,listen=127.0.0.1:4000,x=y"; do
	rm -f "$SCRATCH"/args-*
	GUEST_NETDEV=$netdev GUEST_MAC=52:54:00:46:00:09 PATH=$SCRATCH/bin:$PATH assert_status 1 \
		"$SHIFTBIND_TESTS/../scripts/run-guest.sh" cluster "$SCRATCH/bzImage" "$SCRATCH/rootfs.img"
	assert_contains "is not socket,listen=127.0.0.1:PORT or socket,connect=127.0.0.1:PORT" "$OUTPUT" \
		"run-guest.sh's refusal of GUEST_NETDEV=$netdev"
	! compgen -G "$SCRATCH/args-*" >/dev/null || fail "QEMU started with GUEST_NETDEV=$netdev"
done
