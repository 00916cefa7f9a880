# shellcheck shell=bash
# Helpers of the fuzz. suite (sourced after tests/lib/testlib.sh).  Not a
# test: the runner runs only *.sh and *.tap.
#
# The suite boots the debugging kernel (tests/fuzz/kernel names it;
# configs/kernel-debug.config: KASAN, lockdep, DEBUG_ATOMIC_SLEEP,
# DEBUG_LIST, kmemleak, failslab).  Each test runs the fuzzer
# (tests/fuzz/src/configfd_fuzz.c) and then checks the kernel log since
# it started; docs/fuzzing.md explains how to replay a failure.

FUZZER=${FUZZER:-$SHIFTBIND_GUEST_LIB/fuzz/configfd_fuzz}
KMEMLEAK=${KMEMLEAK:-/sys/kernel/debug/kmemleak}
# Per boot: the kmemleak baseline flag, and the replay line of every run.
FUZZ_STATE=${FUZZ_STATE:-/run/shiftbind-fuzz}
# One seed for all the runs of a test (each command line states it).
FUZZ_SEED=${FUZZ_SEED:-$((SRANDOM % 1000000000))}

# The kernel's reports of a bug: BUG/WARNING/KASAN/UBSAN splats, oopses,
# lockdep ("possible recursive locking", "circular locking", its INFO:
# lines), refcount_t and list corruption, sleeping in atomic context.
# (The fuzzer never sets the "mand" option, whose deprecation notice
# also starts with "WARNING:".)
readonly KERNEL_REPORT_RE='BUG:|WARNING:|KASAN:|UBSAN:|kernel BUG at|Oops|general protection fault|possible recursive locking|circular locking|INFO:|refcount_t:|list_add corruption|list_del corruption|sleeping function called from invalid context'

# fuzz_begin NAME: a guest with the fuzzer; kmemleak's baseline taken
# before the suite's first fuzzing; a marker in the kernel log.
fuzz_begin() {
	require_guest
	[ -x "$FUZZER" ] || fail "$FUZZER is missing (make builds it from tests/fuzz/src)"
	mkdir -p "$FUZZ_STATE"
	kmemleak_baseline
	fuzz_mark "$1"
}

# fuzz_mark WHAT: the kernel log is checked from here on (fuzz_check_kernel_log).
fuzz_mark() {
	FUZZ_MARK="shiftbind-fuzz: $1 begins ($$.$RANDOM.$SECONDS)"
	echo "$FUZZ_MARK" >/dev/kmsg
}

# kmemleak_baseline: once per boot, before any fuzzing.  Automatic scans
# stop (kmemleak_clean's scans are the only ones), and whatever leaked
# before the suite is kept in $FUZZ_STATE/kmemleak-baseline and cleared:
# it is not the suite's.
kmemleak_baseline() {
	[ ! -e "$FUZZ_STATE/kmemleak-baseline" ] || return 0
	if [ -w "$KMEMLEAK" ]; then
		echo scan=off >"$KMEMLEAK"
		echo scan >"$KMEMLEAK"
		echo "$(<"$KMEMLEAK")" >"$FUZZ_STATE/kmemleak-baseline"
		echo clear >"$KMEMLEAK"
	fi
	: >>"$FUZZ_STATE/kmemleak-baseline"
}

# Every program started in the debug guest costs more than a second
# (TCG, KASAN): the helpers below use bash builtins, and one dmesg | awk
# per check of the kernel log.

# The first kernel report since fuzz_mark and 40 lines from it; "lost"
# if the kernel log no longer holds the marker (it overflowed).
kernel_report_since_mark() {
	dmesg | awk -v mark="$FUZZ_MARK" -v re="$KERNEL_REPORT_RE" '
		index($0, mark) { seen = 1; next }
		seen && !found && $0 ~ re { found = 1 }
		found { print; if (++n == 40) exit }
		END { if (!seen) print "lost" }'
}

# fuzz_check_kernel_log WHAT REPRODUCE: fail on the first kernel report
# since fuzz_mark, showing it and how to reproduce it.
fuzz_check_kernel_log() {
	local what=$1 repro=$2 report first
	report=$(kernel_report_since_mark)
	[ -n "$report" ] || return 0
	[ "$report" != lost ] ||
		fail "the kernel log lost the marker '$FUZZ_MARK' (it overflowed?) during $what: see the guest's console log"
	first=${report%%$'\n'*}
	echo "--- the kernel log from the first report on:"
	printf '%s\n' "$report"
	fail "kernel report during $what: '${first#\[*\] }'; reproduce: $repro (the guest's console log has the whole report)"
}

# result_field NAME: a field of the last run's RESULT line.
result_field() {
	local re=" $1=([^ ]*)"
	[[ $FUZZ_RESULT =~ $re ]] && echo "${BASH_REMATCH[1]}"
}

# run_fuzzer WHAT ARG...: run the fuzzer, show its output, and fail,
# naming WHAT, the first problem and the command that replays it, unless
# it found nothing and the kernel logged nothing.  The output is left in
# $FUZZ_OUT, the RESULT line in $FUZZ_RESULT, the replay line in $FUZZ_REPLAY.
run_fuzzer() {
	local what=$1 status=0
	shift
	fuzz_mark "$what"
	FUZZ_OUT=$("$FUZZER" "$@" 2>&1) || status=$?
	printf '%s\n' "$FUZZ_OUT"
	parse_fuzzer_output
	FUZZ_REPLAY=${FUZZ_REPLAY:-$FUZZER $*}
	echo "$FUZZ_REPLAY" >>"$FUZZ_STATE/runs"
	case $status in
	0) ;;
	"$KSFT_SKIP") skip "$what: no failslab fault injection in this kernel (not the debug kernel)" ;;
	*)
		fuzz_check_kernel_log "$what" "$FUZZ_REPLAY"
		fail "$what: the fuzzer exited $status ($(result_field status)): $FUZZ_PROBLEM; reproduce: $FUZZ_REPLAY"
		;;
	esac
	fuzz_check_kernel_log "$what" "$FUZZ_REPLAY"
}

# $FUZZ_RESULT, $FUZZ_REPLAY and $FUZZ_PROBLEM (the first complaint, or
# the last line) from $FUZZ_OUT.
parse_fuzzer_output() {
	local line
	FUZZ_RESULT='' FUZZ_REPLAY='' FUZZ_PROBLEM=''
	while IFS= read -r line; do
		case $line in
		"configfd_fuzz: RESULT "*) FUZZ_RESULT=$line ;;
		"configfd_fuzz: seed "*"; replay: "*) FUZZ_REPLAY=${line#*; replay: } ;;
		*VIOLATION*| *"setup failed"* | *refusing*) FUZZ_PROBLEM=${FUZZ_PROBLEM:-$line} ;;
		esac
	done <<<"$FUZZ_OUT"
	FUZZ_PROBLEM=${FUZZ_PROBLEM:-${FUZZ_OUT##*$'\n'}}
}

# assert_result_min FIELD MIN WHAT: the last run's FIELD is at least MIN.
assert_result_min() {
	local value
	value=$(result_field "$1")
	[ "${value:-0}" -ge "$2" ] ||
		fail "$3: $1 was ${value:-missing}, expected at least $2; reproduce: $FUZZ_REPLAY"
}

# mount_table_of PID: its namespace's mounts (id, parent, mount point).
mount_table_of() {
	local id parent point
	while read -r id parent _ _ point _; do
		echo "$id $parent $point"
	done <"/proc/$1/mountinfo"
}

# assert_same_mounts BEFORE PID WHAT: PID's mount table is still BEFORE.
assert_same_mounts() {
	local now
	now=$(mount_table_of "$2")
	[ "$1" = "$now" ] ||
		fail "$3: mounts changed: $(diff <(echo "$1") <(echo "$now") | grep '^[<>]' | tr '\n' ' ')"
}
