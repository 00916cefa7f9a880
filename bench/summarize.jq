# bench/summarize.jq: the records bench/guest.sh printed (slurped with
# jq -s) -> bench.json.  Arguments: $accel (string), $host and $run
# (objects scripts/bench.sh measured on the host).
#
# Top level: medians in seconds, in the shape issue 8 asks for; "detail"
# holds every sample with its median, min and max; "goals" the ratios of
# medians, each with "paired": the median of the same ratio taken within
# each round, whose two sides ran a few seconds apart (steadier on a
# noisy host).

def median:
	sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;

# Micro-seconds are what the guest measured; no float noise past them.
def usec: . * 1e6 | round / 1e6;

def stats: {median: (median | usec), min: min, max: max, n: length, samples: .};

# by(f): an object keyed by f (as a string) of the arrays grouped by f.
def by(f): group_by(f) | map({key: (.[0] | f | tostring), value: .}) | from_entries;

def ratio($a; $b): if $a != null and $b != null and $b > 0 then $a / $b * 1000 | round / 1000 else null end;

# ratios($num; $den): $num[trial] / $den[trial] for every trial both
# have, both arrays of records with .trial and .s.
def ratios($num; $den):
	($den | map({key: (.trial | tostring), value: .s}) | from_entries) as $d
	| [$num[] | select($d[.trial | tostring]) | .s / $d[.trial | tostring]];

def milli: if . == null then null else . * 1000 | round / 1000 end;

# paired($num; $den): the median of ratios($num; $den).
def paired($num; $den): ratios($num; $den) | median | milli;

# paired_stats($num; $den): the same with its spread.
def paired_stats($num; $den):
	ratios($num; $den) | {median: (median | milli), min: (min | milli), max: (max | milli), n: length};

def goal($value; $op; $limit; $paired):
	{value: $value, op: $op, limit: $limit, paired: $paired,
	 met: (if $value == null then false
	       elif $op == "<=" then $value <= $limit
	       elif $op == "<" then $value < $limit
	       else $value >= $limit end)};

(map(select(.type == "info")) | first) as $info
| (map(select(.type == "start"))) as $start_records
| ($start_records | by(.size) | map_values(by(.method) | map_values(map(.s) | stats))) as $start
| (map(select(.type == "steady"))) as $steady_records
| {stat: "stat_s", read: "read_s", create_unlink: "create_unlink_s"} as $ops
| ($ops | map_values(. as $field | $steady_records | by(.variant)
                     | map_values(map(.[$field]) | stats))) as $steady
| (map(select(.type == "hook"))) as $hooks
| ($info.sizes | min) as $small
| ($info.sizes | max) as $big
# Rootless podman (bench/podman.sh): the same shapes, methods and variants
# of their own.
| (map(select(.type == "podman-start"))) as $pstart_records
| ($pstart_records | by(.size) | map_values(by(.method) | map_values(map(.s) | stats))) as $pstart
| (map(select(.type == "podman-steady"))) as $psteady_records
| ($ops | map_values(. as $field | $psteady_records | by(.variant)
                     | map_values(map(.[$field]) | stats))) as $psteady
| ($pstart | map_values(map_values(.median))) as $pstart_median
| ($psteady | map_values(map_values(.median))) as $psteady_median
| ($start | map_values(map_values(.median))) as $start_median
| ($steady | map_values(map_values(.median))) as $steady_median
# Trial records with .s for paired(): starts of one method on one image,
# steady-state runs of one variant and operation.
| def starts($size; $method): $start_records | map(select(.size == $size and .method == $method));
  def steady($variant; $op): $steady_records | map(select(.variant == $variant) | {trial, s: .[$ops[$op]]});
  def pstarts($size; $method): $pstart_records | map(select(.size == $size and .method == $method));
  def psteady($variant; $op): $psteady_records | map(select(.variant == $variant) | {trial, s: .[$ops[$op]]});
  # Timed hooks of one kind on one image (.s: the hook's wall time), or
  # their containers' starts as .s.
  def hooks($size; $hook): $hooks | map(select(.size == $size and .hook == $hook));
  def hook_starts($size; $hook): hooks($size; $hook) | map({trial, s: .start_s});
  def hook_median($hook; f): $hooks | map(select(.hook == $hook) | f) | median;
  def podman_steady_goal($op):
	goal(ratio($psteady_median[$op].shiftbind; $psteady_median[$op]["podman-copy"]);
	     "<="; 1.1; paired(psteady("shiftbind"; $op); psteady("podman-copy"; $op)));
{
	kernel: $info.kernel,
	accel: $accel,
	trials: $info.trials,
	start_trials: $info.start_trials,
	start: $start_median,
	steady: $steady_median,
	hook_s: ($hooks | map(select(.hook == "shiftbind-hook") | .s) | median | usec),
	podman: {start: $pstart_median, steady: $psteady_median},
	goals: {
		shift_vs_plain_at_largest: goal(
			ratio($start_median[$big | tostring].shift; $start_median[$big | tostring].plain);
			"<="; 1.2; paired(starts($big; "shift"); starts($big; "plain"))),
		shift_growth_smallest_to_largest: goal(
			ratio($start_median[$big | tostring].shift; $start_median[$small | tostring].shift);
			"<"; 1.2; paired(starts($big; "shift"); starts($small; "shift"))),
		chown_copy_vs_shift_at_largest: goal(
			ratio($start_median[$big | tostring]["chown-copy"]; $start_median[$big | tostring].shift);
			">="; 20; paired(starts($big; "chown-copy"); starts($big; "shift"))),
		steady_stat_shift_vs_bind: goal(
			ratio($steady_median.stat.shift; $steady_median.stat.bind);
			"<="; 1.05; paired(steady("shift"; "stat"); steady("bind"; "stat"))),
		steady_read_shift_vs_bind: goal(
			ratio($steady_median.read.shift; $steady_median.read.bind);
			"<="; 1.05; paired(steady("shift"; "read"); steady("bind"; "read"))),
		steady_create_unlink_shift_vs_bind: goal(
			ratio($steady_median.create_unlink.shift; $steady_median.create_unlink.bind);
			"<="; 1.05; paired(steady("shift"; "create_unlink"); steady("bind"; "create_unlink"))),
		# Issue 47: the hook's own cost, against hooks that only exit
		# (bench/guest.sh times both floors on the largest image only).
		hook_wall_vs_dynamic_true: goal(
			ratio(hook_median("shiftbind-hook"; .s); hook_median("dynamic-exit"; .s));
			"<="; 2; paired(hooks($big; "shiftbind-hook"); hooks($big; "dynamic-exit"))),
		hook_start_vs_static_hook_start: goal(
			ratio(hook_median("shiftbind-hook"; .start_s); hook_median("static-exit"; .start_s));
			"<="; 1.1; paired(hook_starts($big; "shiftbind-hook"); hook_starts($big; "static-exit"))),
		shift_vs_idmap_mount_at_largest: goal(
			ratio($start_median[$big | tostring].shift; $start_median[$big | tostring]["idmap-mount"]);
			"<="; 1.15; paired(starts($big; "shift"); starts($big; "idmap-mount"))),
		podman_shiftbind_growth_smallest_to_largest: goal(
			ratio($pstart_median[$big | tostring].shiftbind; $pstart_median[$small | tostring].shiftbind);
			"<="; 1.2; paired(pstarts($big; "shiftbind"); pstarts($small; "shiftbind"))),
		podman_idmap_growth_smallest_to_largest: goal(
			ratio($pstart_median[$big | tostring]["podman-idmap"]; $pstart_median[$small | tostring]["podman-idmap"]);
			"<="; 1.2; paired(pstarts($big; "podman-idmap"); pstarts($small; "podman-idmap"))),
		podman_steady_stat_shiftbind_vs_copy: podman_steady_goal("stat"),
		podman_steady_read_shiftbind_vs_copy: podman_steady_goal("read"),
		podman_steady_create_unlink_shiftbind_vs_copy: podman_steady_goal("create_unlink")
	},
	detail: {
		start: $start,
		start_to_crun_exit: ($start_records | by(.size)
			| map_values(by(.method) | map_values(map(.total_s) | stats))),
		steady: $steady,
		# What separates bind from shift: the user namespace (copy / bind:
		# same ownership view, no idmapping) and the idmapped mount
		# (shift / copy: same process, same view).  Paired ratios.
		steady_split: ($ops | keys | map(. as $op | {key: $op, value: {
			userns_copy_vs_bind: paired(steady("copy"; $op); steady("bind"; $op)),
			idmapped_mount_shift_vs_copy: paired(steady("shift"; $op); steady("copy"; $op))}})
			| from_entries),
		steady_work: ($steady_records | map(select(.variant == "shift")) | first
			| {size, entries, files, bytes, churn: $info.churn}),
		hook: ($hooks | by(.hook) | map_values(by(.size) | map_values(map(.s) | stats))),
		hook_container_start: ($hooks | by(.hook)
			| map_values(by(.size) | map_values(map(.start_s) | stats))),
		# The hook's cost does not depend on the image: all sizes together.
		hook_all_images: ($hooks | by(.hook) | map_values(
			{wall: (map(.s) | stats), container_start: (map(.start_s) | stats)})),
		# Where shiftbind-hook's time went (its SHIFTBIND_HOOK_TIMING
		# line), all images: each phase in microseconds, and what its
		# main() does not see: the exec, the loader, libc's start, the exit.
		hook_phases: ($hooks | map(select(.hook == "shiftbind-hook" and .phases_us))
			| (map(.phases_us | keys_unsorted) | add // []
			   | reduce .[] as $k ([]; if index([$k]) then . else . + [$k] end)) as $names
			| if length == 0 then null else
			  . as $h | ($names | map(. as $n | {key: $n, value: ($h | map(.phases_us[$n] // empty) | stats)})
			   | from_entries)
			  + {outside_main: ($h | map(.s * 1e6 - .phases_us.main | round) | stats)} end),
		images: (map(select(.type == "image")) | by(.size) | map_values(first | del(.type))),
		podman: {
			start: $pstart,
			start_to_podman_exit: ($pstart_records | by(.size)
				| map_values(by(.method) | map_values(map(.total_s) | stats))),
			steady: $psteady,
			# Per trial, with the spread: what FUSE costs over shiftbind,
			# and shiftbind over a plain overlay of a user-owned copy.
			steady_ratios: ($ops | keys | map(. as $op | {key: $op, value: {
				fuse_vs_shiftbind: paired_stats(psteady("fuse-overlayfs"; $op); psteady("shiftbind"; $op)),
				shiftbind_vs_copy: paired_stats(psteady("shiftbind"; $op); psteady("podman-copy"; $op))}})
				| from_entries),
			imports: (map(select(.type == "podman-image")) | by(.size) | map_values(first | del(.type, .size)))
		},
		# One process, no container: mount A / a plain bind B, per round.
		control: (map(select(.type == "control")) | by(.pair) | map_values(first
			| {size, rounds, stat: (.stat_ratio | stats), read: (.read_ratio | stats)}))
	},
	guest: ($info | del(.type, .kernel, .trials, .start_trials)),
	host: $host,
	run: ($run + (map(select(.type == "end")) | first | del(.type)))
}
