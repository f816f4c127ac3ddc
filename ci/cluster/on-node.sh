#!/usr/bin/env bash
# on-node.sh NODE COMMAND [ARG...]: runs COMMAND "on" a node of ci/cluster/start.sh's cluster:
# in the node's network namespace (its address), with a UTS namespace whose host name is the
# node's and a private mount namespace where /etc/netns/NODE/hosts is /etc/hosts (the nodes
# find each other by name). What runs there (slurmd, the ranks it starts, gethostname) sees
# that node alone. Not `ip netns exec`: it mounts a fresh /sys, without the cgroup file
# systems that slurmd insists on reading.
set -euo pipefail
node=${1:?usage: on-node.sh NODE COMMAND [ARG...]}
shift
[ $# -gt 0 ] || { echo "usage: on-node.sh NODE COMMAND [ARG...]" >&2; exit 2; }
[ -e "/run/netns/$node" ] || { echo "on-node.sh: no node $node (no /run/netns/$node): is the cluster up?" >&2; exit 2; }
exec nsenter --net="/run/netns/$node" -- unshare --uts --mount -- /bin/sh -c \
  'hostname "$0" && mount --bind "/etc/netns/$0/hosts" /etc/hosts && exec "$@"' "$node" "$@"
