#!/bin/sh
# Stand-in for a cuFile workload in the `gds --watch` tests: replaces
# ROOT/proc/driver/nvidia-fs/stats with a recorded nvidia-fs statistics
# output (the "after" reading; the test has put the "before" one in place),
# says so on stdout and stderr, and exits with EXIT (default 0).
#   replay-nvfs-stats.sh ROOT RECORDED [EXIT]
set -eu
root=$1
recorded=$2
status=${3:-0}
stats="$root/proc/driver/nvidia-fs/stats"
# Written beside the file and renamed, so a reader sees the old or the new
# counters, never half of each.
cp "$recorded" "$stats.replay"
mv "$stats.replay" "$stats"
echo "replayed $(basename "$recorded")"
echo "replay: exit $status" >&2
exit "$status"
