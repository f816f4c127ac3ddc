// The scenario loop: an instance runs its whole scripted sequence (end-to-end inference) a
// repetition, timing itself where Google Benchmark could not (a generation's time to first
// token and its inter-token latencies are inside one run). With --stages or --trace, a
// profiling pass after the repetitions times each stage.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include <functional>
#include <optional>

#include "harness/atomic_file.hpp"
#include "harness/energy_window.hpp"
#include "harness/errors.hpp"
#include "harness/measurement_loops.hpp"
#include "harness/random_fill.hpp"
#include "harness/stage_trace.hpp"
#include "harness/transport.hpp"
#include "harness/watchdog.hpp"

namespace rooftop {
namespace {

// A record per stage: one sample a forward (the stage's time summed over the layers).
std::vector<ResultRecord> stage_records(const ResultRecord& parent, const std::vector<ScenarioInstance::StageWork>& stages,
                                        const StageRecorder& recorder, double clock_mhz, const std::optional<Link>& link) {
  std::vector<ResultRecord> out;
  for (const auto& stage : stages) {
    std::map<int, double> per_forward;
    for (const auto& s : recorder.spans())
      if (s.name == stage.name) per_forward[s.forward] += s.end_s - s.start_s;
    ResultRecord r;
    r.problem = parent.problem;
    r.problem.shape = parent.problem.shape + "." + stage.name;
    // A stage has no parameters of the suite's (nor its shape), only a collective's own
    // words where it is one (a tensor-parallel all-reduce), drawn against the run's link.
    r.problem.params = stage.params;
    r.problem.typed_shape = nullptr;
    r.declared = declared_facts(r.problem.params);
    if (r.declared.bus_factor > 0 && link) {
      r.measured.link = link->name;
      r.measured.link_bytes_per_s = link->bytes_per_s;
    }
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

// Several ranks (tensor parallel): every rank must run the same points with the same counts
// and flags, or one waits in a collective forever.
void check_same_plan(const RunOptions& o, PointPipeline& pipe, Transport& t) {
  std::string plan = fmt::format("repetitions {} stages {} trace {} timeout {}\n", o.repetitions, o.stages, o.trace.has_value(),
                                 o.comm_timeout_s);
  for (std::size_t i = 0; i < pipe.size(); ++i) plan += pipe.problem(i).name() + "\n";
  const auto plans = t.gather_strings(fmt::format("{:x}", std::hash<std::string>{}(plan)));
  for (std::size_t i = 1; i < plans.size(); ++i)
    if (plans[i] != plans[0])
      throw InputError(fmt::format("process {} plans other points or counts (shapes, dtype, repetitions, --stages, "
                                   "--trace or timeout) than process 0: give every rank the same arguments", i));
}

// Every rank's spans, gathered: rank r's become thread r + 1 of the point's trace process.
void append_rank_tracks(nlohmann::ordered_json& events, const StageRecorder& recorder, Transport& t, int pid,
                        const std::string& process) {
  nlohmann::ordered_json mine = nlohmann::ordered_json::array();
  for (const auto& s : recorder.spans()) mine.push_back({s.name, s.layer, s.forward, s.start_s, s.end_s});
  const auto all = t.gather_strings(mine.dump());
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::vector<StageSpan> spans;
    for (const auto& s : nlohmann::ordered_json::parse(all[r]))
      spans.push_back({s[0].get<std::string>(), s[1].get<int>(), s[2].get<int>(), s[3].get<double>(), s[4].get<double>()});
    append_trace_events(events, spans, pid, process, static_cast<int>(r) + 1, fmt::format("rank {}", r));
  }
}

}  // namespace

void run_scenario_loop(const RunOptions& o, PointPipeline& pipe, Transport* transport) {
  // One rank unless a launcher started several (a tensor-parallel run).
  Transport* ranks = transport && transport->ranks() > 1 ? transport : nullptr;
  std::optional<Watchdog> dog;
  std::optional<Link> link;
  if (ranks) {
    check_same_plan(o, pipe, *ranks);
    auto& meta = pipe.metadata();
    meta.device["transport"] = ranks->name();
    meta.device["ranks"] = ranks->ranks();
    meta.device["placement"] = ranks->placement();
    // The link a tensor-parallel all-reduce's bus bandwidth is drawn against (the collectives').
    link = pipe.backend().collective_link(meta.ceilings ? &*meta.ceilings : nullptr, meta.datasheet ? &*meta.datasheet : nullptr);
    dog.emplace();
  }
  // The ranks agree (on starting a point, on its set-up, on an interrupt); a rank that died
  // or hangs must not hang the others there.
  const auto agree = [&](bool mine, const std::string& what) {
    if (!ranks) return mine;
    Watchdog::Armed armed(*dog, o.comm_timeout_s + 1, what);
    return ranks->all_processes(mine);
  };
  const auto interrupted = [&](const std::string& what) { return !agree(!g_interrupted.load(), what); };
  pipe.start();
  nlohmann::ordered_json trace_events = nlohmann::ordered_json::array();
  // A pipe's reader takes one document: written at the end only, as the results are.
  const bool trace_once = o.trace && is_stream_output(*o.trace);
  const bool writer = !ranks || ranks->writes_results();
  for (std::size_t i = 0; i < pipe.size(); ++i) {
    const std::string name = pipe.problem(i).name();
    if (interrupted(name + " (ranks agreeing to start it)")) break;
    const auto& key = pipe.problem(i).seed_key;
    const SetupContext setup{derive_seed(o.seed, key.empty() ? name : key), ranks, dog ? &*dog : nullptr, o.comm_timeout_s};
    const bool ready = pipe.prepare(i, setup);
    // A point one rank cannot set up (its memory, its check) is skipped by all of them.
    if (!agree(ready, name + " (ranks agreeing it is set up)")) {
      if (ready) pipe.refuse(i, Status::skipped, "another rank could not set this point up (its output says why)");
      pipe.finish(i, {});
      continue;
    }
    auto* instance = dynamic_cast<ScenarioInstance*>(&pipe.instance(i));
    std::vector<Sample> samples;
    std::vector<std::pair<std::string, std::vector<double>>> metrics;
    std::vector<ResultRecord> stages;
    bool traced = false, cut = false;
    try {
      if (!instance) throw std::logic_error(pipe.problem(i).name() + ": a scenario family's instance must be a ScenarioInstance");
      instance->run_repetition();  // warm-up: caches, oneDNN's kernels, the allocator
      for (int r = 0; r < o.repetitions; ++r) {
        if ((cut = interrupted(name))) break;  // the point is cut short: not a result
        const EnergyWindow energy(pipe.backend());
        // Ranks start their clocks together: a rank still reading its energy counter (NVML,
        // milliseconds at times) would otherwise hold the others' first all-reduce, inside
        // their timed repetition.
        if (ranks) agree(true, name + " (ranks starting a repetition together)");
        auto rep = instance->run_repetition();
        samples.push_back({rep.seconds_per_iteration, rep.iterations, pipe.backend().clock_mhz()});
        energy.close(samples.back());
        for (auto& [metric, value] : rep.metrics) {
          auto it = std::find_if(metrics.begin(), metrics.end(), [&](const auto& m) { return m.first == metric; });
          if (it == metrics.end()) it = metrics.insert(metrics.end(), {metric, {}});
          it->second.push_back(value);
        }
      }
      if (!cut && !(cut = interrupted(name))) pipe.keep_outputs(i, instance->outputs());
      if ((o.stages || o.trace) && !cut) {
        StageRecorder recorder;
        const auto work = instance->profile(recorder);
        if (o.stages) stages = stage_records(pipe.record(i), work, recorder, pipe.backend().clock_mhz(), link);
        if (o.trace) {
          if (ranks) append_rank_tracks(trace_events, recorder, *ranks, static_cast<int>(i) + 1, name);
          else append_trace_events(trace_events, recorder.spans(), static_cast<int>(i) + 1, name);
          traced = true;
        }
      }
    } catch (const std::exception& e) {  // a fault in one point; the others go on (other ranks: the watchdog)
      pipe.refuse(i, Status::error, fmt::format("failed while timed: {}", e.what()));
      samples.clear();
      metrics.clear();
      stages.clear();
    }
    if (cut || (!ranks && g_interrupted.load())) break;
    pipe.finish(i, std::move(samples), std::move(metrics));
    for (auto& s : stages) pipe.add(std::move(s));
    // After every point, as the results; outside the point's try: a trace that cannot be
    // written is the path's fault (exit 2), not a failed point.
    if (traced && !trace_once && writer) write_trace(*o.trace, trace_events);
  }
  if (trace_once && writer) write_trace(*o.trace, trace_events);
}

}  // namespace rooftop
