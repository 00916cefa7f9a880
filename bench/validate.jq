# bench/validate.jq: true when bench.json has the shape issues 8 and 17 ask for
# and every measurement has all its trials (jq -e exits 1 otherwise).
# Argument: $sizes, the sizes scripts/bench.sh asked for (array of numbers).

def seconds: type == "number" and . > 0;

# Every cell has at least the trials asked for (the cheap starts have more).
def complete($n): [.. | objects | select(has("samples")) | .n >= $n] | all;

(.kernel | type == "string" and length > 0)
and (.accel | type == "string")
and (.trials | type == "number" and . >= 1)
and (.start_trials | type == "number" and . >= 1)
and (.start | keys_unsorted | map(tonumber) | sort) == ($sizes | sort)
and ([.start[] | .plain, .shift, ."chown-copy", ."idmap-mount"] | all(seconds))
and (.steady | keys) == ["create_unlink", "read", "stat"]
and ([.steady[] | .bind, .shift] | all(seconds))
and (.hook_s | seconds)
and (.podman.start | keys_unsorted | map(tonumber) | sort) == ($sizes | sort)
and ([.podman.start[] | .shiftbind, ."podman-idmap", ."fuse-overlayfs", ."podman-copy"] | all(seconds))
and (.podman.steady | keys) == ["create_unlink", "read", "stat"]
and ([.podman.steady[] | .shiftbind, ."podman-idmap", ."fuse-overlayfs", ."podman-copy"] | all(seconds))
and ([.detail.podman.steady_ratios[][] | .n >= 1] | length == 6 and all)
and (.trials as $n | .detail | del(.control) | complete($n))
and ([.detail.control | .idmapped, .plain | select(.) | .stat.n == .rounds and .read.n == .rounds]
     | length == 2 and all)
and ([.goals[] | .met | type == "boolean"] | all)
