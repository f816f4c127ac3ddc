#!/usr/bin/env bash
# stop.sh DIR [--keep-logs]: ends ci/cluster/start.sh's cluster in DIR: every process inside
# its nodes' namespaces (slurmctld, slurmd, steps, ranks, orted), then munged; removes the
# namespaces, the bridge, /etc/netns/NODE and DIR (--keep-logs keeps DIR). Safe to run twice,
# and on a cluster that start.sh left half made. Exit 1 if anything of it is still there.
set -uo pipefail
dir=${1:?usage: ci/cluster/stop.sh DIR [--keep-logs]}
keep=${2:-}
tag=${ROOFTOP_CLUSTER_TAG:-rtci}
CLUSTER_NODES=()
# shellcheck disable=SC1091
[ -f "$dir/env.sh" ] && . "$dir/env.sh" && tag=$CLUSTER_TAG
# Nodes by name: those recorded, and any namespace with the tag's names (a start cut short).
mapfile -t nodes < <({ printf '%s\n' "${CLUSTER_NODES[@]}"; ip netns list | awk '{print $1}' | grep -E "^${tag}[0-9]+$"; } |
  sort -u | grep .)
pids_in_nodes() { for ns in "${nodes[@]}"; do ip netns pids "$ns" 2>/dev/null; done; }
mapfile -t pids < <(pids_in_nodes)
[ "${#pids[@]}" -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null
for _ in $(seq 1 30); do
  [ -z "$(pids_in_nodes)" ] && break
  sleep 0.1
done
mapfile -t pids < <(pids_in_nodes)
if [ "${#pids[@]}" -gt 0 ]; then
  echo "ci/cluster/stop.sh: killing what did not end on SIGTERM: ${pids[*]}" >&2
  kill -KILL "${pids[@]}" 2>/dev/null
  sleep 0.2
fi
if [ -f "$dir/munge/munged.pid" ]; then
  munged_pid=$(cat "$dir/munge/munged.pid")
  # Only the munged that this cluster started: its command line names this cluster's pid file.
  if tr '\0' ' ' < "/proc/$munged_pid/cmdline" 2>/dev/null | grep -qF -- "$dir/munge/munged.pid"; then
    kill -TERM "$munged_pid"
    for _ in $(seq 1 20); do kill -0 "$munged_pid" 2>/dev/null || break; sleep 0.1; done
  fi
fi
# The veth pairs by their end on the bridge: removing a namespace frees its end only later.
for veth in $(ip -o link show type veth | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^${tag}-v[0-9]+$"); do
  ip link delete "$veth" 2>/dev/null
done
for ns in "${nodes[@]}"; do
  ip netns delete "$ns" 2>/dev/null
  rm -rf "/etc/netns/$ns"
done
ip link delete "$tag-br" 2>/dev/null
left=""
for ns in "${nodes[@]}"; do ip netns list | awk '{print $1}' | grep -qx "$ns" && left+=" namespace $ns"; done
ip link show "$tag-br" >/dev/null 2>&1 && left+=" bridge $tag-br"
ip -o link show type veth | grep -qE ": ${tag}-v[0-9]+@" && left+=" veth ${tag}-v*"
[ -n "${munged_pid:-}" ] && kill -0 "$munged_pid" 2>/dev/null && left+=" munged $munged_pid"
if [ -n "$left" ]; then
  echo "ci/cluster/stop.sh: still there:$left" >&2
  exit 1
fi
# The short link to the state folder (start.sh): only the one pointing into this DIR.
[ -n "${CLUSTER_STATE:-}" ] && [ "$(readlink "$CLUSTER_STATE")" = "$CLUSTER_DIR/state" ] && rm -f "$CLUSTER_STATE"
[ "$keep" = --keep-logs ] || rm -rf "$dir"
exit 0
