# bench/table.jq: bench.json -> the Markdown result tables that
# scripts/bench.sh puts into docs/benchmarks.md (and $SHIFTBIND_OUT).

# Seconds, to a precision that means something here.
def fmt: if . == null then "-" elif . >= 10 then (. * 10 | round / 10 | tostring)
	else (. * 1000 | round / 1000 | tostring) end;

def ms: if . == null then "-" else (. * 1000 | round | tostring) + " ms" end;

def cell: "\(.median | fmt) (\(.min | fmt)–\(.max | fmt))";

def ratio_cell: "\(.median * 1000 | round / 1000) (\(.min * 1000 | round / 1000)–\(.max * 1000 | round / 1000))";

def ms_cell: "\(.median | ms) (\(.min | ms)–\(.max | ms))";

def us: if . == null then "-" else (. / 100 | round / 10 | tostring) + " ms" end;

def us_cell: "\(.median | us) (\(.min | us)–\(.max | us))";

def kilo: if . >= 1000 then "\(. / 1000 | floor)k" else tostring end;

def goal_name:
	{shift_vs_plain_at_largest: "`shift` / `plain` start, largest image",
	 shift_growth_smallest_to_largest: "`shift` start, largest / smallest image",
	 chown_copy_vs_shift_at_largest: "`chown-copy` / `shift` start, largest image",
	 steady_stat_shift_vs_bind: "steady state stat, `shift` / `bind`",
	 steady_read_shift_vs_bind: "steady state read, `shift` / `bind`",
	 steady_create_unlink_shift_vs_bind: "steady state create + unlink, `shift` / `bind`",
	 hook_wall_vs_dynamic_true: "`shiftbind-hook` / `/bin/true` wall time (paired: largest image)",
	 hook_start_vs_static_hook_start: "start with `shiftbind-hook` / with a static hook that exits (paired: largest image)",
	 shift_vs_idmap_mount_at_largest: "`shift` / `idmap-mount` start, largest image",
	 podman_shiftbind_growth_smallest_to_largest: "podman `shiftbind` start, largest / smallest image",
	 podman_idmap_growth_smallest_to_largest: "podman `podman-idmap` start, largest / smallest image",
	 podman_steady_stat_shiftbind_vs_copy: "podman steady state stat, `shiftbind` / `podman-copy`",
	 podman_steady_read_shiftbind_vs_copy: "podman steady state read, `shiftbind` / `podman-copy`",
	 podman_steady_create_unlink_shiftbind_vs_copy: "podman steady state create + unlink, `shiftbind` / `podman-copy`"}[.];

# A paired ratio with its spread: "median (lowest–highest)".
def spread_cell: if . == null or .median == null then "-" else "\(.median) (\(.min)–\(.max))" end;

. as $b
| ["plain", "userns", "shift", "idmap-mount", "chown-copy"] as $methods
| $b.detail.steady_work as $w
| ($b.detail.start | keys | map(tonumber) | max | tostring) as $big
| [
	"Measured \(.run.date // "") on kernel `\(.kernel)`, \(.accel | ascii_upcase), "
	+ "guest of \(.guest.cpus) vCPUs and \(.guest.mem_mib) MiB on \(.host.cpu_model) "
	+ "(\(.host.cpus) cores; load average \(.host.loadavg_before) before the run, "
	+ "\(.host.loadavg_after) after); `make bench` took \(.run.wall_s / 60 | round) min. "
	+ "Medians in seconds, fastest–slowest in brackets; \(.start_trials) rounds, "
	+ "of which the first \(.trials) with `chown-copy`; steady state: \(.trials) trials.",
	"",
	"**Start: `crun run` to the container's first instruction**",
	"",
	"| image | " + ($methods | map("`\(.)`") | join(" | ")) + " | `chown-copy` / `shift` |",
	"|---|" + ($methods | map("---:") | join("|")) + "|---:|",
	($b.detail.start | to_entries | sort_by(.key | tonumber)[]
	 | .key as $size | .value as $m
	 | "| \($size | tonumber | kilo) entries (\($b.detail.images[$size].bytes / 1048576 | round) MiB) | "
	   + ($methods | map($m[.] | cell) | join(" | "))
	   + " | \($m["chown-copy"].median / $m.shift.median | round)x |"),
	"",
	"**Steady state through the root mount** (\($w.size | kilo)-entry image, one container per trial; "
	+ "`copy`: a user namespace container on the chowned copy, which splits `shift` / `bind` "
	+ "into the user namespace's part and the idmapped mount's, as paired ratios)",
	"",
	"| operation | `bind` | `shift` | `copy` | `shift` / `bind` | `copy` / `bind` | `shift` / `copy` |",
	"|---|---:|---:|---:|---:|---:|---:|",
	({stat: "stat every entry (\($w.entries))",
	  read: "read every file (\($w.files), \($w.bytes / 1048576 | round) MiB)",
	  create_unlink: "create and unlink \($w.churn) files"} | to_entries[]
	 | .key as $op | $b.detail.steady_split[$op] as $split
	 | "| \(.value) | \($b.detail.steady[$op].bind | cell) | \($b.detail.steady[$op].shift | cell) | "
	   + "\($b.detail.steady[$op].copy // null | if . then cell else "-" end) | "
	   + "\($b.steady[$op].shift / $b.steady[$op].bind * 1000 | round / 1000) | "
	   + "\($split.userns_copy_vs_bind // "-") | \($split.idmapped_mount_shift_vs_copy // "-") |"),
	"",
	"**The mount alone** (no container: one process lstats every entry and reads every file of the "
	+ "\($w.size | kilo)-entry image through mount A and through a plain bind B, in batches that alternate "
	+ "between the two; \($b.detail.control.idmapped.rounds // "-") rounds; time through A / time through B "
	+ "per round, median (lowest–highest))",
	"",
	"| A | stat every entry | read every file |",
	"|---|---:|---:|",
	({idmapped: "idmapped mount with the containers' mapping (what `shift` makes)",
	  plain: "a second plain bind (the method's own noise)"} | to_entries[]
	 | $b.detail.control[.key] as $c | select($c)
	 | "| \(.value) | \($c.stat | ratio_cell) | \($c.read | ratio_cell) |"),
	"",
	"**Hooks** (wall time of the hook process, from bench/hook-timer; and the start of its container)",
	"",
	"| hook | hook's wall time | container start |",
	"|---|---:|---:|",
	({"shiftbind-hook": "`shiftbind-hook` (all images)",
	  "static-exit": "floor: a static program that exits (largest image)",
	  "dynamic-exit": "floor: `/bin/true`, dynamically linked (largest image)"} | to_entries[]
	 | $b.detail.hook_all_images[.key] as $h | select($h)
	 | "| \(.value) | \($h.wall | ms_cell) | \($h.container_start | ms_cell) |"),
	"",
	(if $b.detail.hook_phases then
	  ("**Where `shiftbind-hook`'s time goes** (its `SHIFTBIND_HOOK_TIMING` line, all images; "
	   + "phases in the order they run; `outside main()`: the hook-timer wall time less `main`: "
	   + "the exec, the loader, libc's start and the exit)",
	   "",
	   "| phase | median (fastest–slowest) |",
	   "|---|---:|",
	   ($b.detail.hook_phases | to_entries[] | select(.key != "main" and .key != "outside_main")
	    | "| `\(.key)` | \(.value | us_cell) |"),
	   "| `main` (all of the above and the log) | \($b.detail.hook_phases.main | us_cell) |",
	   "| outside `main()` | \($b.detail.hook_phases.outside_main | us_cell) |",
	   "")
	 else empty end),
	"**Rootless podman on a shared store**: Debian's podman, crun and fuse-overlayfs as they are; "
	+ "`shiftbind`: the root-owned store as an additional image store, shifted, kernel overlay; "
	+ "`podman-idmap`: the same, run with a new mapping of its own per start (idmapped lower layers); "
	+ "`fuse-overlayfs`: the user's own import of the image, run with a mapping of its own "
	+ "(user-space uid mapping); `podman-copy`: the shared store, a new mapping per start, "
	+ "containers/storage answered as on mainline (its chowned copy). Start: `podman run` as the user to the container's "
	+ "first instruction.",
	"",
	"| image | `shiftbind` | `podman-idmap` | `fuse-overlayfs` | `podman-copy` | `podman-copy` / `shiftbind` | import into the shared store | the user's own import |",
	"|---|---:|---:|---:|---:|---:|---:|---:|",
	($b.detail.podman.start | to_entries | sort_by(.key | tonumber)[]
	 | .key as $size | .value as $m | $b.detail.podman.imports[$size] as $i
	 | "| \($size | tonumber | kilo) entries | \($m.shiftbind | cell) | \($m["podman-idmap"] | cell) | "
	   + "\($m["fuse-overlayfs"] | cell) | "
	   + "\($m["podman-copy"] | cell) | \($m["podman-copy"].median / $m.shiftbind.median | round)x | "
	   + "\($i.shared_import_s | fmt) | \($i.user_import_s | fmt) |"),
	"",
	"Steady state in the podman containers (\($w.size | kilo)-entry image; `podman-copy` on the copy "
	+ "of its last start: a plain rootless overlay of a user-owned copy; ratios paired per trial, "
	+ "median (lowest–highest))",
	"",
	"| operation | `shiftbind` | `podman-idmap` | `fuse-overlayfs` | `podman-copy` | `shiftbind` / `podman-copy` | `fuse-overlayfs` / `shiftbind` |",
	"|---|---:|---:|---:|---:|---:|---:|",
	({stat: "stat every entry", read: "read every file", create_unlink: "create and unlink \($w.churn) files"}
	 | to_entries[]
	 | .key as $op | $b.detail.podman.steady[$op] as $v | $b.detail.podman.steady_ratios[$op] as $r
	 | "| \(.value) | \($v.shiftbind | cell) | \($v["podman-idmap"] | cell) | \($v["fuse-overlayfs"] | cell) | "
	   + "\($v["podman-copy"] | cell) | "
	   + "\($r.shiftbind_vs_copy | spread_cell) | \($r.fuse_vs_shiftbind | spread_cell) |"),
	"",
	"**Goals** (ratios of the medians above; *paired*: the median of the ratio within each round)",
	"",
	"| goal | measured | paired | required | met |",
	"|---|---:|---:|---:|---|",
	($b.goals | to_entries[]
	 | "| \(.key | goal_name) | \(.value.value) | \(.value.paired // "-") | \(.value.op) \(.value.limit) | "
	   + "\(if .value.met then "yes" else "**no**" end) |")
] | join("\n")
