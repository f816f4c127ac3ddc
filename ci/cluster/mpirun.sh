#!/usr/bin/env bash
# mpirun.sh CLUSTER_DIR MPIRUN_ARG...: mpirun from node 1 of ci/cluster/start.sh's cluster,
# as on a real cluster with `--host` (docs/collectives.md): ssh replaced by ci/cluster/rsh.sh;
# TCP between nodes on the cluster's interface alone, shared memory within a node; a lost
# node's daemon noticed within seconds (TCP keepalive), so a cut link ends the job.
set -euo pipefail
dir=${1:?usage: ci/cluster/mpirun.sh CLUSTER_DIR MPIRUN_ARG...}
shift
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC1091
. "$dir/env.sh"
exec bash "$here/on-node.sh" "${CLUSTER_NODES[0]}" mpirun --allow-run-as-root --mca plm_rsh_agent "$here/rsh.sh" \
  --mca btl self,vader,tcp --mca btl_tcp_if_include "$CLUSTER_IF" --mca oob_tcp_if_include "$CLUSTER_IF" \
  --mca oob_tcp_keepalive_time 4 --mca oob_tcp_keepalive_intvl 1 --mca oob_tcp_keepalive_probes 3 "$@"
