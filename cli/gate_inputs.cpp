#include "cli/gate_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "harness/baselines.hpp"
#include "cli/program_name.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/gate_exit.hpp"
#include "harness/paths.hpp"
#include "harness/registry.hpp"
#include "harness/run_unit_gate.hpp"

namespace rooftop::cli {
namespace fs = std::filesystem;

std::string runs_phrase(int runs) {
  return runs == 0 ? "no run" : runs == 1 ? "1 run" : fmt::format("{} runs", runs);
}

namespace {
std::string kept_medians(int runs) { return runs == 0 ? "no run medians" : "the medians of " + runs_phrase(runs); }
}  // namespace

std::string make_baseline_hint(const RunResults& run, const fs::path& store) {
  std::set<std::string> suites;
  for (const auto& r : run.results) suites.insert(r.problem.family);
  std::string list;
  bool kernel_loop = true;  // Google Benchmark's interleaving applies to its loop only
  for (const auto& s : suites) {
    list += (list.empty() ? "" : ",") + s;
    if (const auto* f = family_named(s); f && f->measurement != Measurement::kernel_loop) kernel_loop = false;
  }
  return fmt::format("{0} run --suite {1} --backend {2} --tier {3}{4} --out baseline-run.json "
                     "&& {0} baseline update baseline-run.json --baselines {5}",
                     program_name(), list, run.meta.backend, run.meta.tier,
                     kernel_loop ? " --benchmark_enable_random_interleaving=true" : "", store.string());
}

namespace {
// The baseline files for `run`: the one named, or its suites' files in a store directory.
std::vector<fs::path> baseline_files(const fs::path& where, const RunResults& run) {
  if (where.extension() == ".json") return {where};
  check_store_folder(where);
  std::set<std::string> suites;  // a store directory, perhaps not made yet
  for (const auto& r : run.results) suites.insert(r.problem.family);
  std::vector<fs::path> files;
  for (const auto& s : suites)
    if (exists_in_store(baseline_file(where, run.meta.fingerprint, s))) files.push_back(baseline_file(where, run.meta.fingerprint, s));
  return files;
}

RunResults load_baseline(const fs::path& f, const RunResults& run) {
  auto b = load_results(f);
  if (b.meta.fingerprint != run.meta.fingerprint)
    throw InputError(fmt::format("{}: field 'device.fingerprint' is {}, but the results are from {}: a baseline of "
                                 "another device cannot gate this one (use `rooftop compare` to compare machines)",
                                 f.string(), b.meta.fingerprint, run.meta.fingerprint));
  if (b.meta.tier != run.meta.tier)
    throw InputError(fmt::format("{}: field 'tier' is {}, but the results are tier {}: gate like against like",
                                 f.string(), b.meta.tier, run.meta.tier));
  return b;
}
}  // namespace

GateUnit gate_unit_named(const std::string& name) {
  if (name == "auto") return GateUnit::automatic;
  if (name == "run") return GateUnit::run;
  if (name == "repetition") return GateUnit::repetition;
  throw InputError(fmt::format("--unit {}: not a unit; use auto, run or repetition", name));
}

std::optional<GateReport> gate_against_baseline(const fs::path& where, const RunResults& run, const GateConfig& config,
                                                const std::string& run_origin, GateUnit unit) {
  const auto files = baseline_files(where, run);
  if (files.empty()) return std::nullopt;
  RunResults merged;
  RunUnitBaseline runs;
  int fewest_runs = std::numeric_limits<int>::max();
  std::string origin;
  for (const auto& f : files) {
    auto b = load_baseline(f, run);
    if (merged.results.empty()) merged.meta = b.meta;
    for (auto& r : b.results) merged.results.push_back(std::move(r));
    fewest_runs = std::min(fewest_runs, read_run_medians(f, runs));
    origin += (origin.empty() ? "" : ", ") + f.string();
  }
  runs.origin = origin;
  runs.runs = fewest_runs;
  if (unit == GateUnit::run && fewest_runs < 2)
    throw InputError(fmt::format("--unit run: {} keeps {}, and a spread between runs needs 2 or more "
                                 "(3 or more to be of use): add runs with `rooftop baseline update --append RESULTS`",
                                 origin, kept_medians(fewest_runs)));
  if (unit == GateUnit::run || (unit == GateUnit::automatic && fewest_runs >= config.min_baseline_runs))
    return gate_against_runs(runs, run, config, run_origin);
  if (unit == GateUnit::automatic)
    fmt::print(stderr, "rooftop: note: the baseline keeps {}: each benchmark's drift between runs is estimated across "
                       "the suite's benchmarks from this one comparison, and a shift of the whole suite cannot be told "
                       "from the machine's; with {} or more runs in the baseline (`rooftop baseline update --append "
                       "RESULTS`) both are measured\n",
               kept_medians(fewest_runs), std::max(config.min_baseline_runs, 3));
  return gate_results(merged, run, config, origin, run_origin);
}

fs::path machine_gate_config(const fs::path& where, const RunResults& run) {
  return where.extension() == ".json" ? fs::path()
                                      : where / checked_path_component(run.meta.fingerprint, "device fingerprint") / "gate.json";
}

int gate_exit_code(const GateReport& r) {
  const int code = gate_exit(r).code;
  // Nothing in common is not a pass: a baseline of another suite, tier or shapes, or an
  // empty run, compared no benchmark at all.
  if (code == kExitUsage)
    fmt::print(stderr, "rooftop: error: no benchmark was compared ({} NEW, {} MISSING): the run and the baseline share "
                       "no benchmark name; gate a run of the baseline's suite, tier and shapes, or make a baseline of "
                       "this run (`rooftop baseline update`)\n",
               r.count(Verdict::added), r.count(Verdict::missing));
  return code;
}

}  // namespace rooftop::cli
