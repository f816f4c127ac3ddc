# Sourced by ci/cluster/check-*.sh: a cluster that is torn down however the check ends, its
# network's roof measured, and a device profile that carries it.
# shellcheck shell=bash
cluster_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { echo "[$(basename "$0") $(date -u +%H:%M:%S)] $*"; }
die() { echo "$(basename "$0"): FAILED: $*" >&2; exit 1; }
# Exit 77 (CTest's SKIP) where the machine cannot hold the cluster, unless the cluster is
# required (ROOFTOP_REQUIRE_CLUSTER=1, as .ci/run sets it): then a missing piece fails.
need_cluster_tools() {
  local why=""
  [ "$(id -u)" = 0 ] || why="needs root (network namespaces, a bridge)"
  for tool in ip nsenter unshare munged slurmctld slurmd sbatch mpirun iperf3; do
    [ -n "$why" ] || command -v "$tool" >/dev/null || why="$tool is missing (bash ci/install-deps.sh --cluster)"
  done
  [ -z "$why" ] && return 0
  [ "${ROOFTOP_REQUIRE_CLUSTER:-0}" = 1 ] && die "$why"
  echo "SKIP: $why" >&2
  exit 77
}
# need_prepared DIR: exit 77 (SKIP) where cluster.prepare skipped and left no bundle in DIR
# (a machine without the cluster: the fresh Debian root), unless the cluster is required.
need_prepared() {
  [ -d "${1:-}" ] && return 0
  [ "${ROOFTOP_REQUIRE_CLUSTER:-0}" = 1 ] && die "'${1:-}' was not prepared"
  echo "SKIP: no prepared cluster bundle ('${1:-}'): cluster.prepare skipped" >&2
  exit 77
}
# cluster_up DIR: starts the cluster in DIR/cluster (a tag and subnet of its own when given
# ROOFTOP_CLUSTER_TAG, ROOFTOP_CLUSTER_NET); whatever happens next, it is stopped on exit and
# stop.sh's verdict (nothing of it left) decides a passing check's exit.
cluster_up() {
  cluster_dir=$1/cluster
  trap cluster_down EXIT
  bash "$cluster_here/start.sh" "$cluster_dir"
  # shellcheck disable=SC1091
  . "$cluster_dir/env.sh"
}
cluster_down() {
  local status=$?
  trap - EXIT
  if ! bash "$cluster_here/stop.sh" "$cluster_dir" --keep-logs; then
    echo "$(basename "$0"): FAILED: the cluster was not wholly torn down" >&2
    status=1
  fi
  [ "$status" -eq 0 ] && rm -rf "$cluster_dir"
  [ "$status" -eq 0 ] || echo "$(basename "$0"): the cluster's logs: $cluster_dir/log" >&2
  exit "$status"
}
on_node() { bash "$cluster_here/on-node.sh" "$@"; }
# The link between node 1 and node 2, one direction: iperf3 over TCP for 1 s, in bytes/s.
measure_network() {
  local server_log=$cluster_dir/log/iperf3-server.log
  on_node "${CLUSTER_NODES[1]}" iperf3 -s -1 -B "${CLUSTER_ADDRS[1]}" > "$server_log" 2>&1 &
  local server=$!
  for _ in $(seq 1 20); do grep -q "listening" "$server_log" 2>/dev/null && break; sleep 0.1; done
  on_node "${CLUSTER_NODES[0]}" iperf3 -c "${CLUSTER_ADDRS[1]}" -t 1 -J > "$cluster_dir/iperf3.json" ||
    die "iperf3 could not measure the link between ${CLUSTER_NODES[0]} and ${CLUSTER_NODES[1]}"
  wait "$server" || true
  python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 8))' \
    "$cluster_dir/iperf3.json"
}
# home_with_network SRC_HOME DST_HOME BYTES_PER_S: a copy of the rooftop home whose profile
# gives the network's roof as a link (docs/collectives.md, "Across hosts").
home_with_network() {
  rm -rf "$2" && cp -r "$1" "$2"
  python3 - "$2" "$3" "$CLUSTER_BRIDGE" <<'PY'
import glob, json, sys
home, rate, bridge = sys.argv[1], float(sys.argv[2]), sys.argv[3]
profiles = glob.glob(home + "/profiles/cpu-*.json")
if len(profiles) != 1: sys.exit(f"{home}/profiles: expected one CPU profile, found {len(profiles)}")
p = json.load(open(profiles[0]))
p["measured"]["links"] = [l for l in p["measured"].get("links", []) if not l["name"].startswith("network")]
p["measured"]["links"].append({"name": f"network {bridge} (veth, iperf3 TCP)", "bytes_per_s": rate})
json.dump(p, open(profiles[0], "w"), indent=1)
PY
}
# The bytes node 2's end of the bridge carried, both ways (its veth's counters).
bytes_through_node2() {
  local v=/sys/class/net/$CLUSTER_TAG-v2/statistics
  echo $(($(cat "$v/rx_bytes") + $(cat "$v/tx_bytes")))
}
# What runs on the nodes besides the cluster's daemons (slurmctld, its slurmscriptd, slurmd):
# a job's steps, ranks, orted. One "PID COMMAND" line each.
leftovers() {
  local ns pid comm
  for ns in "${CLUSTER_NODES[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
      case $comm in slurmd|slurmctld|slurmscriptd) ;; *) echo "$ns: $pid $(tr '\0' ' ' < "/proc/$pid/cmdline" | cut -c1-100)" ;; esac
    done
  done
}
# wait_for_no_leftovers SECONDS WHAT: every job process has ended within SECONDS, or fail.
wait_for_no_leftovers() {
  local left=""
  for _ in $(seq 1 $(($1 * 5))); do
    left=$(leftovers)
    [ -z "$left" ] && return 0
    sleep 0.2
  done
  die "$2: still running ${1} s later: $left"
}
# The settings of this CI cluster, not of the run: four ranks share this machine's CPUs, so an
# MPI rank waiting on another yields its CPU (instead of spinning), and one thread a rank.
export OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=1
# fresh_work DIR: DIR emptied, a cluster that an earlier, killed check left in it ended first
# (its trap never ran: CTest's timeout kills).
fresh_work() {
  [ ! -d "$1/cluster" ] || bash "$cluster_here/stop.sh" "$1/cluster" >&2 || die "could not end the cluster left in $1"
  rm -rf "$1" && mkdir -p "$1"
}
