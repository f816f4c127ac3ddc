#!/usr/bin/env bash
# A two-node Slurm cluster on this machine, for CI: each node is a network namespace with its
# own address on a bridge this script makes (10.231.0.0/24 by default, addresses that are
# only those namespaces'), its own host name (a UTS namespace) and its own slurmd; node 1 also
# runs slurmctld. One munged, on a socket in DIR, authenticates them all. Every process runs
# inside a node's namespace except munged, so ci/cluster/stop.sh ends them all by namespace.
#
#   ci/cluster/start.sh DIR       make the cluster; DIR (new or empty) holds its state, logs,
#                                 slurm.conf, the munge key and env.sh (source it for the names)
#   ci/cluster/stop.sh DIR        end every process and remove the namespaces, bridge and files
#
# Why namespaces and not Slurm's multiple-slurmd mode: with one host name and one address the
# "nodes" would share loopback, and Open MPI would move data between them through shared
# memory: nothing would cross a network. Here every byte between nodes crosses the bridge.
# Needs root (namespaces, a bridge), ip (iproute2), slurmd, slurmctld, slurm-client and munge
# (ci/install-deps.sh --cluster). ROOFTOP_CLUSTER_NODES (default 2), ROOFTOP_CLUSTER_NET
# (default 10.231.0: the first three octets) and ROOFTOP_CLUSTER_TAG (default rtci: the prefix
# of every name made) change the layout. Exit 0 once every node is idle in Slurm; on any
# failure the half-made cluster is torn down and the exit is 1.
set -euo pipefail
dir=${1:?usage: ci/cluster/start.sh DIR (then ci/cluster/stop.sh DIR)}
here=$(cd "$(dirname "$0")" && pwd)
nodes=${ROOFTOP_CLUSTER_NODES:-2}
net=${ROOFTOP_CLUSTER_NET:-10.231.0}
tag=${ROOFTOP_CLUSTER_TAG:-rtci}
fail() { echo "ci/cluster/start.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (network namespaces, a bridge); run it with sudo"
for tool in ip unshare munged slurmctld slurmd sinfo; do
  command -v "$tool" >/dev/null || fail "$tool is missing: bash ci/install-deps.sh --cluster installs it"
done
ip link show "$tag-br" >/dev/null 2>&1 &&
  fail "a cluster tagged $tag is up already (bridge $tag-br): end it with ci/cluster/stop.sh, or set ROOFTOP_CLUSTER_TAG"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ -z "$(ls -A "$dir")" ] || fail "$dir is not empty: give a new folder"
chmod 700 "$dir"
mkdir -p "$dir/log" "$dir/munge" "$dir/state"
# Sockets live below the state folder (munged's, slurmstepd's in the spool, PMIx's in each
# node's TmpFS), and a socket's path holds at most 107 bytes: slurm.conf reaches the folder
# through a short link in /tmp, however long DIR is (a checkout's build tree).
state=$(mktemp -u "/tmp/$tag-state.XXXXXX")
ln -s "$dir/state" "$state"

names=() addrs=()
for i in $(seq 1 "$nodes"); do names+=("${tag}$i"); addrs+=("$net.$i"); done
{
  echo "# The cluster made by ci/cluster/start.sh (source this file)"
  echo "CLUSTER_DIR=$dir CLUSTER_TAG=$tag CLUSTER_BRIDGE=$tag-br CLUSTER_IF=${tag}0 CLUSTER_STATE=$state"
  echo "CLUSTER_NODES=(${names[*]}) CLUSTER_ADDRS=(${addrs[*]})"
  echo "export SLURM_CONF=$dir/slurm.conf"
} > "$dir/env.sh"
# From here on a failure undoes what was made.
undo_on_failure() {
  local status=$?
  [ "$status" -eq 0 ] && return
  echo "ci/cluster/start.sh: failed; tearing the half-made cluster down (logs: $dir/log)" >&2
  tail -n 5 "$dir"/log/*.log >&2 2>/dev/null || true
  bash "$here/stop.sh" "$dir" --keep-logs >&2 || true
}
trap undo_on_failure EXIT

# The network: a bridge with no address (nothing reaches this host's own stack through it),
# one veth pair a node, the node's end renamed ${tag}0 and given the node's address.
ip link add "$tag-br" type bridge
ip link set "$tag-br" up
for i in "${!names[@]}"; do
  ns=${names[$i]}
  ip netns add "$ns"
  ip link add "$tag-v$((i + 1))" type veth peer name "${tag}0" netns "$ns"
  ip link set "$tag-v$((i + 1))" master "$tag-br" up
  ip -n "$ns" addr add "${addrs[$i]}/24" dev "${tag}0"
  ip -n "$ns" link set "${tag}0" up
  ip -n "$ns" link set lo up
  # A peer behind a cut link is given up in seconds, not TCP's default quarter of an hour:
  # launchers (mpirun's daemons, srun) then notice a lost node and end the job.
  nsenter --net="/run/netns/$ns" sysctl -q -w net.ipv4.tcp_retries2=3 net.ipv4.tcp_keepalive_time=5 \
    net.ipv4.tcp_keepalive_intvl=1 net.ipv4.tcp_keepalive_probes=3
  # `ip netns exec` puts /etc/netns/NS/hosts over /etc/hosts: the nodes find each other by name.
  mkdir -p "/etc/netns/$ns"
  { echo "127.0.0.1 localhost"; for j in "${!names[@]}"; do echo "${addrs[$j]} ${names[$j]}"; done; } > "/etc/netns/$ns/hosts"
done

# munged: its own key and socket in DIR, nothing of the system's touched.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$state/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" ||
  fail "munged did not start (log: $dir/log/munged.log)"

for ns in "${names[@]}"; do mkdir -p "$dir/state/slurmd-$ns" "$dir/state/tmp-$ns"; done
# Two ranks a node at least, even on a one-CPU machine (slurm.conf is believed, below);
# getconf, not nproc: nproc obeys OMP_NUM_THREADS.
cpus=$(getconf _NPROCESSORS_ONLN)
[ "$cpus" -ge 2 ] || cpus=2
{
  cat <<EOF
# Made by ci/cluster/start.sh for a CI cluster of network namespaces on one machine.
ClusterName=$tag
SlurmctldHost=${names[0]}(${addrs[0]})
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge.socket
StateSaveLocation=$state
SlurmdSpoolDir=$state/slurmd-%n
# Each node's own temporary folder (PMIx puts its sockets there, named by job and step alone).
TmpFS=$state/tmp-%n
MailProg=/bin/true
SlurmctldPidFile=$dir/state/slurmctld.pid
SlurmdPidFile=$dir/state/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
# Plain processes: no cgroups inside a CI container.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
# Every node "has" this machine's CPUs: the configuration is believed, not re-counted.
SlurmdParameters=config_overrides
ReturnToService=2
# A node silent for 5 s is down (the fault test kills one); jobs are remembered 10 minutes.
SlurmdTimeout=5
SlurmctldTimeout=10
MessageTimeout=5
KillWait=2
MinJobAge=600
InactiveLimit=0
EOF
  for i in "${!names[@]}"; do
    echo "NodeName=${names[$i]} NodeAddr=${addrs[$i]} CPUs=$cpus RealMemory=1024 State=UNKNOWN"
  done
  echo "PartitionName=ci Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4"
} > "$dir/slurm.conf"
export SLURM_CONF=$dir/slurm.conf

# slurmctld on node 1, a slurmd on every node, each in the foreground of its namespace (so the
# namespace's process list is the whole story) and its own host name.
on_node() { bash "$here/on-node.sh" "$@"; }
# on-node.sh execs its way down to the daemon: each background job's process is the daemon.
daemons=()
on_node "${names[0]}" slurmctld -D -i -f "$SLURM_CONF" > "$dir/log/slurmctld.out" 2>&1 &
daemons+=("$!:slurmctld")
for ns in "${names[@]}"; do
  on_node "$ns" slurmd -D -N "$ns" -f "$SLURM_CONF" > "$dir/log/slurmd-$ns.out" 2>&1 &
  daemons+=("$!:slurmd on $ns")
done

# Up when every node reports idle (sinfo from node 1, through the cluster's own network).
for _ in $(seq 1 60); do
  for daemon in "${daemons[@]}"; do
    kill -0 "${daemon%%:*}" 2>/dev/null || fail "${daemon#*:} ended (log: $dir/log)"
  done
  idle=$(on_node "${names[0]}" sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l || true)
  [ "$idle" = "$nodes" ] && break
  sleep 0.5
done
[ "$idle" = "$nodes" ] || fail "the nodes did not come up idle within 30 s: $(on_node "${names[0]}" sinfo -N 2>&1 | tr '\n' ' ')"
echo "ci/cluster/start.sh: $nodes nodes idle (${names[*]} at ${addrs[*]}, bridge $tag-br); state in $dir"
