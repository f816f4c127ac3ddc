#!/usr/bin/env bash
# Open MPI's remote shell for ci/cluster/start.sh's nodes (OMPI_MCA_plm_rsh_agent): `mpirun
# --host NODE...` calls it as ssh would be called, `rsh.sh [-OPTION...] NODE WORD...`, and the
# words run as one shell command line on that node (ci/cluster/on-node.sh) instead of over ssh.
set -euo pipefail
while [[ ${1:-} == -* ]]; do shift; done
node=${1:?usage: rsh.sh [-OPTION...] NODE COMMAND...}
shift
exec "$(dirname "$0")/on-node.sh" "$node" /bin/sh -c "$*"
