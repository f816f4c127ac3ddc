#!/usr/bin/env bash
# check-slurm.sh PREPARED WORK: the collectives across the CI cluster's 2 nodes x 2 CPU ranks,
# submitted as a user submits them: `sbatch ci/slurm-collectives.sbatch BUNDLE` (srun
# --mpi=pmix). Passes when the job completes, every point passed its exact check on 4 ranks
# over 2 hosts, each drawn against the network between them (its roof measured by iperf3 and
# given in the profile), node 2's link carried the data, and nothing of the job is left.
# PREPARED: ci/cluster/prepare.sh's OUT. Exit 77 (SKIP) where no cluster can be made.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_prepared "${1:-}"
prepared=$(cd "${1:?usage: check-slurm.sh PREPARED WORK}" && pwd)
work=${2:?usage: check-slurm.sh PREPARED WORK}
need_cluster_tools
fresh_work "$work" && mkdir "$work/job"
work=$(cd "$work" && pwd)
bundle=$(echo "$prepared"/bundle/rooftop-*)
sbatch_file=$(cd "$cluster_here/.." && pwd)/slurm-collectives.sbatch
cluster_up "$work"
rate=$(measure_network)
say "the link between the nodes: $((rate / 1000000)) MB/s (iperf3, TCP, 1 s)"
home_with_network "$prepared/home" "$work/home" "$rate"
before=$(bytes_through_node2)
cd "$work/job"
t0=$SECONDS
status=0
ROOFTOP_HOME=$work/home BACKEND=cpu TIER=smoke COMM_TIMEOUT=30 ROOFTOP_ARGS="--repetitions 3 --min-time 0.01" \
  timeout "${ROOFTOP_CLUSTER_JOB_TIMEOUT:-180}" bash "$cluster_here/on-node.sh" "${CLUSTER_NODES[0]}" \
  sbatch --wait --parsable --nodes=2 --ntasks-per-node=2 --gpus-per-node=0 "$sbatch_file" "$bundle" > sbatch.out || status=$?
job=$(head -n 1 sbatch.out)
job_state=$(on_node "${CLUSTER_NODES[0]}" scontrol show job "$job" | grep -oE "(JobState|Reason|ExitCode)=[^ ]+" | tr '\n' ' ')
say "job $job ended after $((SECONDS - t0)) s: sbatch exit $status; $job_state"
if [ "$status" -ne 0 ]; then
  on_node "${CLUSTER_NODES[0]}" scontrol show job "$job" >&2
  on_node "${CLUSTER_NODES[0]}" sinfo -N -o "%N %t %c %m %E" >&2
  tail -n 30 rooftop-collectives-"$job".log >&2 || true
  die "the job failed (sbatch --wait exit $status)"
fi
python3 "$cluster_here/check-results.py" "rooftop-collectives-$job.json" --ranks 4 --hosts 2 || die "the results of job $job"
[ -s "rooftop-collectives-$job.html" ] || die "the job wrote no report (rooftop-collectives-$job.html)"
carried=$(($(bytes_through_node2) - before))
[ "$carried" -gt $((4 << 20)) ] || die "node 2's link carried only $carried bytes: the ranks did not talk over the network"
say "node 2's link carried $((carried >> 20)) MiB during the job"
wait_for_no_leftovers 10 "the job's processes"
say "PASSED"
