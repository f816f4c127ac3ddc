#!/usr/bin/env bash
# check-faults.sh PREPARED WORK: faults across the CI cluster's nodes, mid-run:
#   1. Slurm: node 2's slurmd killed (SIGKILL) while the job runs (sbatch --no-requeue).
#      Slurm declares the node lost (SlurmdTimeout) and ends the job NODE_FAIL; the finished
#      points are kept; every rank ends (node 2's by --comm-timeout, exit 5); node 2's
#      orphaned slurmstepd ends once its slurmd is back, as an administrator would bring it.
#   2. mpirun: node 2's link cut (its veth on the bridge set down). Every rank waits past
#      --comm-timeout and ends with exit 5, which mpirun returns; the finished points are
#      kept; node 2's orted ends by itself once it has lost mpirun.
# Nothing of either job may be left running. PREPARED: ci/cluster/prepare.sh's OUT. Exit 77: SKIP.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_prepared "${1:-}"
prepared=$(cd "${1:?usage: check-faults.sh PREPARED WORK}" && pwd)
work=${2:?usage: check-faults.sh PREPARED WORK}
need_cluster_tools
fresh_work "$work" && mkdir "$work/slurm" "$work/mpirun"
work=$(cd "$work" && pwd)
bundle=$(echo "$prepared"/bundle/rooftop-*)
sbatch_file=$(cd "$cluster_here/.." && pwd)/slurm-collectives.sbatch
cluster_up "$work"
home_with_network "$prepared/home" "$work/home" 1e9  # the roof is not what this check is about
export ROOFTOP_HOME=$work/home
# A run long enough to be cut mid-way (36 points of about a second), a short wait for a lost rank.
long_run=(--repetitions 20 --min-time 0.05)
points_in() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$1" 2>/dev/null || echo 0; }
wait_for_points() {  # wait_for_points FILE N: N points finished within 60 s
  for _ in $(seq 1 300); do [ "$(points_in "$1")" -ge "$2" ] && return 0; sleep 0.2; done
  die "$1: $2 points did not finish within 60 s"
}
pids_named() {  # pids_named COMM NODE...: the processes of that name on those nodes
  local comm=$1 ns pid
  shift
  for ns in "$@"; do
    for pid in $(ip netns pids "$ns"); do
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$comm" ] || echo "$pid"
    done
  done
}
ranks_left() { pids_named rooftop "${CLUSTER_NODES[@]}"; }
node1=${CLUSTER_NODES[0]} node2=${CLUSTER_NODES[1]}

say "1. node 2's slurmd killed mid-job"
cd "$work/slurm"
job=$(BACKEND=cpu TIER=smoke COMM_TIMEOUT=3 ROOFTOP_ARGS="${long_run[*]}" on_node "$node1" \
  sbatch --parsable --no-requeue --nodes=2 --ntasks-per-node=2 --gpus-per-node=0 "$sbatch_file" "$bundle")
wait_for_points "rooftop-collectives-$job.json" 2
slurmd2=$(pids_named slurmd "$node2")
[ -n "$slurmd2" ] || die "no slurmd on $node2"
t0=$SECONDS
kill -KILL "$slurmd2"
state=""
for _ in $(seq 1 60); do
  state=$(on_node "$node1" scontrol show job "$job" | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2)
  [ "$state" = RUNNING ] || [ "$state" = COMPLETING ] || break
  sleep 1
done
exit_code=$(on_node "$node1" scontrol show job "$job" | grep -oE 'ExitCode=[^ ]+')
say "job $job: $state $((SECONDS - t0)) s after the kill; $exit_code; node $node2: $(on_node "$node1" sinfo -h -n "$node2" -o %t)"
[ "$state" = NODE_FAIL ] || die "job $job ended $state, not NODE_FAIL, after node 2's slurmd was killed"
python3 "$cluster_here/check-results.py" "rooftop-collectives-$job.json" --ranks 4 --hosts 2 --partial ||
  die "job $job's finished points"
for _ in $(seq 1 100); do [ -z "$(ranks_left)" ] && break; sleep 0.2; done
[ -z "$(ranks_left)" ] || die "ranks of job $job still run 20 s after it ended: $(ranks_left)"
say "every rank of job $job ended $((SECONDS - t0)) s after the kill"
bash "$cluster_here/on-node.sh" "$node2" slurmd -D -N "$node2" -f "$SLURM_CONF" >> "$cluster_dir/log/slurmd-$node2.out" 2>&1 &
wait_for_no_leftovers 30 "job $job's processes, once $node2's slurmd is back"

say "2. node 2's link cut mid-run (mpirun)"
cd "$work/mpirun"
status=0
timeout 120 bash "$cluster_here/mpirun.sh" "$cluster_dir" --host "$node1:2,$node2:2" -np 4 \
  "$bundle/bin/rooftop" run --suite collectives --backend cpu --tier smoke "${long_run[@]}" \
  --comm-timeout 2 --out collectives.json > mpirun.log 2>&1 &
mpirun_pid=$!
wait_for_points collectives.json 2
t0=$SECONDS
ip link set "$CLUSTER_TAG-v2" down
wait "$mpirun_pid" || status=$?
say "mpirun exit $status $((SECONDS - t0)) s after the cut"
[ "$status" -eq 5 ] || { tail -n 20 mpirun.log >&2; die "mpirun exited $status after the cut, not 5 (a rank's communication timeout)"; }
python3 "$cluster_here/check-results.py" collectives.json --ranks 4 --hosts 2 --partial || die "the finished points of the cut run"
wait_for_no_leftovers 60 "the cut run's processes"
say "nothing of the cut run is left, $((SECONDS - t0)) s after the cut"
ip link set "$CLUSTER_TAG-v2" up
say "PASSED"
