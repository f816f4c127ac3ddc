#pragma once
// The gate with the run as its unit: a stored baseline of several runs (or the last nights
// of the history) gives each benchmark one median per run, and the current run's median is
// tested against their spread. On a machine whose speed drifts between runs, the
// repetitions of one run say nothing about the next run; the spread of run medians does.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "harness/gate.hpp"
#include "harness/history_store.hpp"
#include "harness/results.hpp"

namespace rooftop {

struct RunUnitBaseline {
  std::string origin;
  int runs = 0;                                           // runs in the baseline in all
  std::map<std::string, std::vector<double>> medians_s;  // per benchmark, one median per run
};

// The baseline runs of `current`'s device and tier in the history: the last `max_runs`
// medians of each benchmark, leaving out the current run itself when it was already added.
RunUnitBaseline history_baseline(const std::vector<HistorySeries>& history, const RunResults& current, int max_runs,
                                 const std::string& origin);

// Verdicts by the noise model (harness/gate_decision.hpp), each benchmark's run-to-run
// variance learned from the baseline's runs.
GateReport gate_against_runs(const RunUnitBaseline& baseline, const RunResults& current, const GateConfig& config,
                             const std::string& current_origin);

}  // namespace rooftop
