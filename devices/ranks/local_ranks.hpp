#pragma once
// `rooftop run --ranks N`: N processes on this host, one per GPU, without an MPI launcher
// (the way torchrun starts them). The launcher runs this same command line N times with
// ROOFTOP_RANK, ROOFTOP_RANKS and ROOFTOP_RENDEZVOUS set; those processes form the
// collectives' process group over a Unix socket.
#include <memory>

#include "harness/process_group.hpp"

namespace rooftop {

// True in a process that `--ranks` started.
bool launched_as_local_rank();
// This process's rank among them (-1 when not started by --ranks).
int local_rank();
// This process's index among the ranks on its node, from its launcher's environment (ours,
// Open MPI's, Slurm's, MPICH's, PMIx's); 0 without one.
int node_local_rank();
// The process group of the ranks `--ranks` started; throws InputError on a bad environment.
std::unique_ptr<ProcessGroup> make_local_ranks_group();
// Starts `ranks` copies of this process's own command line and waits for them: returns the
// exit code of the first rank that failed, else 0. Ends the others 10 s after a failure.
int launch_local_ranks(int ranks);

}  // namespace rooftop
