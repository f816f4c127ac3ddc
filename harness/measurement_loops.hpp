#pragma once
// The loops that measure a run's points, one per measurement kind; all three go through
// the same PointPipeline for set-up, checks, progress, records and saving.
#include <atomic>
#include <memory>

#include "harness/point_pipeline.hpp"
#include "harness/runner.hpp"

namespace rooftop {

// Set by SIGINT while a run is in progress.
extern std::atomic<bool> g_interrupted;

// Google Benchmark times each point; every repetition is kept as a sample.
void run_kernel_loop(const RunOptions& options, PointPipeline& pipeline);

// Every rank runs the same points in lockstep: one checked run, warm-up, then repetitions
// of an iteration count the ranks agree on; a sample is the slowest rank's time per
// iteration. A collective that hangs past options.comm_timeout_s ends every rank with
// kExitCommFault after the finished points were saved.
void run_lockstep_loop(const RunOptions& options, PointPipeline& pipeline, Transport& transport);

// Each point's instance runs its scenario (a prefill, decode steps, a generation) once to
// warm up, then once a repetition; the instance times itself and reports its own measures.
// `transport` (several ranks, a tensor-parallel run): every rank runs every point in step
// (the ranks agree on the plan, on each point's set-up and on an interrupt), each rank's
// collectives bounded by options.comm_timeout_s; rank 0 writes.
void run_scenario_loop(const RunOptions& options, PointPipeline& pipeline, Transport* transport = nullptr);

}  // namespace rooftop
