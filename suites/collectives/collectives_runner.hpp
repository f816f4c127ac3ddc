#pragma once
// The common timing loop of the collectives (nccl-tests' role): for each point, buffers on
// every local rank, a poisoned receive buffer, one checked run, warm-up, then repetitions of
// a fixed iteration count agreed by all ranks; a sample is the slowest rank's time per
// iteration. Google Benchmark does not run here: its adaptive iteration counts would
// differ between ranks and deadlock them.
#include "harness/results.hpp"
#include "harness/runner.hpp"
#include "suites/collectives/transport.hpp"

namespace rooftop::collectives {

// The points this run measures on `ranks` ranks; throws InputError as plan_points does.
std::vector<Problem> plan_collectives(const RunOptions& options, int ranks);

// Runs the plan on every rank; the process of rank 0 returns (and saves) the results.
// A collective that hangs past options.comm_timeout_s ends every rank with kExitCommFault
// after the finished points were saved.
RunResults run_collectives(const RunOptions& options, Transport& transport, RunMetadata metadata);

}  // namespace rooftop::collectives
