// The scenario loop: an instance runs its whole scripted sequence (end-to-end inference) a
// repetition, timing itself where Google Benchmark could not (a generation's time to first
// token and its inter-token latencies are inside one run). With --stages or --trace, a
// profiling pass after the repetitions times each stage.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "harness/atomic_file.hpp"
#include "harness/energy_window.hpp"
#include "harness/measurement_loops.hpp"
#include "harness/random_fill.hpp"
#include "harness/stage_trace.hpp"

namespace rooftop {
namespace {

// A record per stage: one sample a forward (the stage's time summed over the layers).
std::vector<ResultRecord> stage_records(const ResultRecord& parent, const std::vector<ScenarioInstance::StageWork>& stages,
                                        const StageRecorder& recorder, double clock_mhz) {
  std::vector<ResultRecord> out;
  for (const auto& stage : stages) {
    std::map<int, double> per_forward;
    for (const auto& s : recorder.spans())
      if (s.name == stage.name) per_forward[s.forward] += s.end_s - s.start_s;
    ResultRecord r;
    r.problem = parent.problem;
    r.problem.shape = parent.problem.shape + "." + stage.name;
    r.problem.params = nlohmann::ordered_json::object();  // a stage has no parameters of the suite's
    r.problem.typed_shape = nullptr;                      // nor its shape
    r.measured.stage = stage.name;
    r.measured.of = parent.problem.name();
    r.measured.timing = "profiling pass after the repetitions; " + recorder.clock();
    r.problem.work = stage.work;
    r.implementation = parent.implementation;
    r.implementation_label = parent.implementation_label;
    for (const auto& [forward, seconds] : per_forward)
      if (seconds > 0) r.samples.push_back({seconds, 1, clock_mhz});
    if (r.samples.empty()) {
      r.status = Status::error;
      r.reason = "the profiling pass did not reach this stage";
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

void run_scenario_loop(const RunOptions& o, PointPipeline& pipe) {
  pipe.start();
  nlohmann::ordered_json trace_events = nlohmann::ordered_json::array();
  // A pipe's reader takes one document: written at the end only, as the results are.
  const bool trace_once = o.trace && is_stream_output(*o.trace);
  for (std::size_t i = 0; i < pipe.size() && !g_interrupted.load(); ++i) {
    if (!pipe.prepare(i, SetupContext{derive_seed(o.seed, pipe.problem(i).name())})) {
      pipe.finish(i, {});
      continue;
    }
    auto* instance = dynamic_cast<ScenarioInstance*>(&pipe.instance(i));
    std::vector<Sample> samples;
    std::vector<std::pair<std::string, std::vector<double>>> metrics;
    std::vector<ResultRecord> stages;
    bool traced = false;
    try {
      if (!instance) throw std::logic_error(pipe.problem(i).name() + ": a scenario family's instance must be a ScenarioInstance");
      instance->run_repetition();  // warm-up: caches, oneDNN's kernels, the allocator
      for (int r = 0; r < o.repetitions; ++r) {
        if (g_interrupted.load()) break;  // the point is cut short: not a result
        const EnergyWindow energy(pipe.backend());
        auto rep = instance->run_repetition();
        samples.push_back({rep.seconds_per_iteration, rep.iterations, pipe.backend().clock_mhz()});
        energy.close(samples.back());
        for (auto& [name, value] : rep.metrics) {
          auto it = std::find_if(metrics.begin(), metrics.end(), [&](const auto& m) { return m.first == name; });
          if (it == metrics.end()) it = metrics.insert(metrics.end(), {name, {}});
          it->second.push_back(value);
        }
      }
      if (!g_interrupted.load()) pipe.keep_outputs(i, instance->outputs());
      if ((o.stages || o.trace) && !g_interrupted.load()) {
        StageRecorder recorder;
        const auto work = instance->profile(recorder);
        if (o.stages) stages = stage_records(pipe.record(i), work, recorder, pipe.backend().clock_mhz());
        if (o.trace) {
          append_trace_events(trace_events, recorder.spans(), static_cast<int>(i) + 1, pipe.problem(i).name());
          traced = true;
        }
      }
    } catch (const std::exception& e) {  // a fault in one point; the others go on
      pipe.refuse(i, Status::error, fmt::format("failed while timed: {}", e.what()));
      samples.clear();
      metrics.clear();
      stages.clear();
    }
    if (g_interrupted.load()) break;
    pipe.finish(i, std::move(samples), std::move(metrics));
    for (auto& s : stages) pipe.add(std::move(s));
    // After every point, as the results; outside the point's try: a trace that cannot be
    // written is the path's fault (exit 2), not a failed point.
    if (traced && !trace_once) write_trace(*o.trace, trace_events);
  }
  if (trace_once) write_trace(*o.trace, trace_events);
}

}  // namespace rooftop
