// The scenario loop: an instance runs its whole scripted sequence (end-to-end inference) a
// repetition, timing itself where Google Benchmark could not (a generation's time to first
// token and its inter-token latencies are inside one run).
#include <fmt/format.h>

#include <algorithm>

#include "harness/measurement_loops.hpp"
#include "harness/random_fill.hpp"

namespace rooftop {

void run_scenario_loop(const RunOptions& o, PointPipeline& pipe) {
  pipe.start();
  for (std::size_t i = 0; i < pipe.size() && !g_interrupted.load(); ++i) {
    if (!pipe.prepare(i, SetupContext{derive_seed(o.seed, pipe.problem(i).name())})) {
      pipe.finish(i, {});
      continue;
    }
    auto* instance = dynamic_cast<ScenarioInstance*>(&pipe.instance(i));
    std::vector<Sample> samples;
    std::vector<std::pair<std::string, std::vector<double>>> metrics;
    try {
      if (!instance) throw std::logic_error(pipe.problem(i).name() + ": a scenario family's instance must be a ScenarioInstance");
      instance->run_repetition();  // warm-up: caches, oneDNN's kernels, the allocator
      for (int r = 0; r < o.repetitions; ++r) {
        if (g_interrupted.load()) break;  // the point is cut short: not a result
        auto rep = instance->run_repetition();
        samples.push_back({rep.seconds_per_iteration, rep.iterations, pipe.backend().clock_mhz()});
        for (auto& [name, value] : rep.metrics) {
          auto it = std::find_if(metrics.begin(), metrics.end(), [&](const auto& m) { return m.first == name; });
          if (it == metrics.end()) it = metrics.insert(metrics.end(), {name, {}});
          it->second.push_back(value);
        }
      }
    } catch (const std::exception& e) {  // a fault in one point; the others go on
      pipe.refuse(i, Status::error, fmt::format("failed while timed: {}", e.what()));
      samples.clear();
      metrics.clear();
    }
    if (g_interrupted.load()) break;
    pipe.finish(i, std::move(samples), std::move(metrics));
  }
}

}  // namespace rooftop
