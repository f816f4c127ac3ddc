#!/usr/bin/env bash
# check-mpirun.sh PREPARED WORK: the collectives across the CI cluster's 2 nodes x 2 CPU ranks
# under `mpirun --host NODE1:2,NODE2:2` over TCP (Open MPI's btl tcp on the cluster's
# interface alone; shared memory within a node), as on a cluster without Slurm. Passes when
# every point passed its exact check on 4 ranks over 2 hosts, each point's bus bandwidth is
# placed under the network's roof (iperf3's measure, given in the profile), node 2's link
# carried the data, and nothing is left. PREPARED: ci/cluster/prepare.sh's OUT. Exit 77: SKIP.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_prepared "${1:-}"
prepared=$(cd "${1:?usage: check-mpirun.sh PREPARED WORK}" && pwd)
work=${2:?usage: check-mpirun.sh PREPARED WORK}
need_cluster_tools
fresh_work "$work" && mkdir "$work/job"
work=$(cd "$work" && pwd)
bundle=$(echo "$prepared"/bundle/rooftop-*)
cluster_up "$work"
rate=$(measure_network)
say "the link between the nodes: $((rate / 1000000)) MB/s (iperf3, TCP, 1 s)"
home_with_network "$prepared/home" "$work/home" "$rate"
before=$(bytes_through_node2)
cd "$work/job"
t0=$SECONDS
status=0
ROOFTOP_HOME=$work/home timeout 120 bash "$cluster_here/mpirun.sh" "$cluster_dir" \
  --host "${CLUSTER_NODES[0]}:2,${CLUSTER_NODES[1]}:2" -np 4 \
  "$bundle/bin/rooftop" run --suite collectives --backend cpu --tier smoke --repetitions 3 --min-time 0.01 \
  --comm-timeout 30 --out collectives.json > mpirun.log 2>&1 || status=$?
say "mpirun ended after $((SECONDS - t0)) s with exit $status"
[ "$status" -eq 0 ] || { tail -n 30 mpirun.log >&2; die "mpirun failed (exit $status)"; }
python3 "$cluster_here/check-results.py" collectives.json --ranks 4 --hosts 2 || die "the results of mpirun"
carried=$(($(bytes_through_node2) - before))
[ "$carried" -gt $((4 << 20)) ] || die "node 2's link carried only $carried bytes: the ranks did not talk over the network"
say "node 2's link carried $((carried >> 20)) MiB during the run"
wait_for_no_leftovers 10 "mpirun's processes"
say "PASSED"
