// The lockstep loop (nccl-tests' role): every rank runs the same points in the same order.
// Google Benchmark does not run here: its adaptive iteration counts would differ between
// ranks and deadlock them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/measurement_loops.hpp"
#include "harness/network_link.hpp"
#include "harness/random_fill.hpp"
#include "harness/transport.hpp"
#include "harness/watchdog.hpp"

namespace rooftop {
namespace {

// Warm-up, a probe, then repetitions of the iteration count that fills the minimum time on
// the slowest rank: every rank runs the same count.
std::vector<Sample> time_lockstep(LockstepInstance& instance, Transport& t, int repetitions, double min_time) {
  instance.time_iterations(2);  // warm-up: connections made, buffers registered
  const double probe = t.max_over_processes(instance.time_iterations(1));
  const auto iterations =
      static_cast<std::int64_t>(std::clamp(std::ceil(min_time / std::max(probe, 1e-9)), 1.0, 100000.0));
  std::vector<Sample> samples;
  for (int r = 0; r < repetitions; ++r)
    samples.push_back({t.max_over_processes(instance.time_iterations(iterations)), iterations, 0});
  return samples;
}

}  // namespace

void run_lockstep_loop(const RunOptions& o, PointPipeline& pipe, Transport& t) {
  // Every rank must run the same points in the same order with the same counts (a rank
  // with more repetitions, or another iteration count, waits for the others forever).
  std::string plan = fmt::format("repetitions {} min time {} timeout {}\n", o.repetitions,
                                 o.min_time_s.value_or(default_min_time(o.tier)), o.comm_timeout_s);
  for (std::size_t i = 0; i < pipe.size(); ++i) plan += pipe.problem(i).name() + "\n";
  const auto plans = t.gather_strings(fmt::format("{:x}", std::hash<std::string>{}(plan)));
  for (std::size_t i = 1; i < plans.size(); ++i)
    if (plans[i] != plans[0])
      throw InputError(fmt::format("process {} plans other points or counts (dtype, sizes, filter, repetitions, "
                                   "minimum time or timeout) than process 0: give every rank the same arguments", i));

  auto& meta = pipe.metadata();
  meta.device["transport"] = t.name();
  meta.device["ranks"] = t.ranks();
  const auto placement = t.placement();
  meta.device["placement"] = placement;
  // The link each point's bus bandwidth is drawn against: the network between hosts when the
  // ranks span several, else the backend's (a host's memory, NVLink).
  const int hosts = hosts_in_placement(placement);
  const auto link = hosts > 1 ? network_link(meta.ceilings ? &*meta.ceilings : nullptr, hosts)
                              : pipe.backend().collective_link(meta.ceilings ? &*meta.ceilings : nullptr,
                                                               meta.datasheet ? &*meta.datasheet : nullptr);
  if (hosts > 1 && !link && t.writes_results())
    fmt::print(stderr, "rooftop: note: the ranks run on {} hosts, so the network between them bounds the bus bandwidth; "
                       "no link is recorded: give its roof in the device profile as measured.links "
                       "[{{\"name\": \"network ...\", \"bytes_per_s\": ...}}] (docs/collectives.md)\n", hosts);
  if (link)
    for (std::size_t i = 0; i < pipe.size(); ++i) {
      pipe.measured(i).link = link->name;
      pipe.measured(i).link_bytes_per_s = link->bytes_per_s;
    }

  pipe.start();
  Watchdog dog;
  const double min_time = o.min_time_s.value_or(default_min_time(o.tier));
  // The ranks agree before each point; a rank that died or hangs must not hang the others there.
  const auto agree = [&](bool mine, const std::string& what) {
    Watchdog::Armed armed(dog, o.comm_timeout_s + 1, what);
    return t.all_processes(mine);
  };
  for (std::size_t i = 0; i < pipe.size(); ++i) {
    const std::string name = pipe.problem(i).name();
    // A Ctrl-C reaches every rank at about the same time, but not at the same point: they agree.
    if (!agree(!g_interrupted.load(), name + " (ranks agreeing to start it)")) break;
    const SetupContext setup{derive_seed(o.seed, name), &t, &dog, o.comm_timeout_s};
    const bool ready = pipe.prepare(i, setup);
    // A point one rank cannot set up (its memory, its library) is skipped by all of them.
    if (!agree(ready, name + " (ranks agreeing it is set up)")) {
      if (ready) pipe.refuse(i, Status::skipped, "another rank could not set this point up (its output says why)");
      pipe.finish(i, {});
      continue;
    }
    auto* instance = dynamic_cast<LockstepInstance*>(&pipe.instance(i));
    std::vector<Sample> samples;
    try {
      if (!instance) throw std::logic_error(name + ": a lockstep family's instance must be a LockstepInstance");
      samples = time_lockstep(*instance, t, o.repetitions, min_time);
    } catch (const CommTimeout& e) {
      pipe.refuse(i, Status::error, e.what());
      pipe.finish(i, {});
      fmt::print(stderr, "rooftop: {}: {}; the finished points are saved; ending every rank (exit {})\n", name, e.what(),
                 kExitCommFault);
      t.abort(kExitCommFault);
    } catch (const std::exception& e) {  // a GPU or MPI error in this point; the others go on
      pipe.refuse(i, Status::error, fmt::format("failed while timed: {}", e.what()));
    }
    pipe.finish(i, std::move(samples));
  }
}

}  // namespace rooftop
