#include "cli/gate_inputs.hpp"

#include <fmt/format.h>

#include <set>

#include "harness/baselines.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/paths.hpp"
#include "harness/registry.hpp"

namespace rooftop::cli {
namespace fs = std::filesystem;

std::string make_baseline_hint(const RunResults& run, const fs::path& store) {
  std::set<std::string> suites;
  for (const auto& r : run.results) suites.insert(r.problem.family);
  std::string list;
  bool kernel_loop = true;  // Google Benchmark's interleaving applies to its loop only
  for (const auto& s : suites) {
    list += (list.empty() ? "" : ",") + s;
    if (const auto* f = family_named(s); f && f->measurement != Measurement::kernel_loop) kernel_loop = false;
  }
  return fmt::format("rooftop run --suite {} --backend {} --tier {}{} --out baseline-run.json "
                     "&& rooftop baseline update baseline-run.json --baselines {}",
                     list, run.meta.backend, run.meta.tier,
                     kernel_loop ? " --benchmark_enable_random_interleaving=true" : "", store.string());
}

std::optional<RunResults> find_baseline(const fs::path& where, const RunResults& run, std::string& origin) {
  std::vector<fs::path> files;
  if (where.extension() != ".json") {  // a store directory, perhaps not made yet
    std::set<std::string> suites;
    for (const auto& r : run.results) suites.insert(r.problem.family);
    for (const auto& s : suites)
      if (fs::exists(baseline_file(where, run.meta.fingerprint, s))) files.push_back(baseline_file(where, run.meta.fingerprint, s));
    if (files.empty()) return std::nullopt;
  } else {
    files.push_back(where);
  }
  RunResults merged;
  for (const auto& f : files) {
    auto b = load_results(f);
    if (b.meta.fingerprint != run.meta.fingerprint)
      throw InputError(fmt::format("{}: field 'device.fingerprint' is {}, but the results are from {}: a baseline of "
                                   "another device cannot gate this one (use `rooftop compare` to compare machines)",
                                   f.string(), b.meta.fingerprint, run.meta.fingerprint));
    if (b.meta.tier != run.meta.tier)
      throw InputError(fmt::format("{}: field 'tier' is {}, but the results are tier {}: gate like against like",
                                   f.string(), b.meta.tier, run.meta.tier));
    if (merged.results.empty()) merged.meta = b.meta;
    for (auto& r : b.results) merged.results.push_back(std::move(r));
    origin += (origin.empty() ? "" : ", ") + f.string();
  }
  return merged;
}
fs::path machine_gate_config(const fs::path& where, const RunResults& run) {
  return where.extension() == ".json" ? fs::path()
                                      : where / checked_path_component(run.meta.fingerprint, "device fingerprint") / "gate.json";
}

int gate_exit_code(const GateReport& r) {
  if (r.count(Verdict::fail)) return kExitFailure;
  // Nothing in common is not a pass: a baseline of another suite, tier or shapes, or an
  // empty run, compared no benchmark at all.
  const auto compared = r.count(Verdict::pass) + r.count(Verdict::improved) + r.count(Verdict::inconclusive);
  if (compared == 0) {
    fmt::print(stderr, "rooftop: error: no benchmark was compared ({} NEW, {} MISSING): the run and the baseline share "
                       "no benchmark name; gate a run of the baseline's suite, tier and shapes, or make a baseline of "
                       "this run (`rooftop baseline update`)\n",
               r.count(Verdict::added), r.count(Verdict::missing));
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace rooftop::cli
