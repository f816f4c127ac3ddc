#include "harness/baselines.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <map>

#include "harness/atomic_file.hpp"
#include "harness/errors.hpp"
#include "harness/json_file.hpp"
#include "harness/paths.hpp"

namespace rooftop {

std::filesystem::path baseline_file(const std::filesystem::path& store, const std::string& fingerprint,
                                    const std::string& suite) {
  return store / checked_path_component(fingerprint, "device fingerprint") /
         (checked_path_component(suite, "suite name") + ".json");
}

std::filesystem::path default_baseline_store() {
  if (const char* s = std::getenv("ROOFTOP_BASELINES"); s && *s) return s;
  return "baselines";
}

std::vector<std::filesystem::path> promote_baselines(const RunResults& run, const std::string& origin,
                                                     const std::filesystem::path& store, bool append) {
  if (!run.meta.complete)
    throw InputError(origin + ": the run was interrupted (\"complete\": false); a baseline needs a whole run");
  std::map<std::string, RunResults> by_suite;
  for (const auto& r : run.results) {
    if (r.status == Status::failed || r.status == Status::error)
      throw InputError(fmt::format("{}: {} {} ({}); a baseline must not hold a wrong or failed result", origin,
                                   r.problem.name(), r.status == Status::failed ? "failed its correctness check" : "errored",
                                   r.reason));
    auto& suite = by_suite[r.problem.family];
    suite.meta = run.meta;
    suite.results.push_back(r);
  }
  if (by_suite.empty()) throw InputError(origin + ": holds no results to promote");
  std::vector<std::filesystem::path> written;
  for (auto& [suite, results] : by_suite) {
    const auto path = baseline_file(store, run.meta.fingerprint, suite);
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    if (append && std::filesystem::exists(path)) {
      const auto old = load_results(path);
      if (old.meta.tier != run.meta.tier)
        throw InputError(fmt::format("{}: field 'tier' is {}, the run is tier {}: cannot pool them", path.string(),
                                     old.meta.tier, run.meta.tier));
      const auto old_json = read_json_file(path, "baseline");
      if (old_json.contains("baseline") && old_json["baseline"].contains("runs"))
        runs = old_json["baseline"]["runs"];
      std::map<std::string, const ResultRecord*> old_by_name;
      for (const auto& r : old.results) old_by_name[r.problem.name()] = &r;
      for (auto& r : results.results)
        if (auto it = old_by_name.find(r.problem.name()); it != old_by_name.end() && it->second->status == Status::ok)
          r.samples.insert(r.samples.begin(), it->second->samples.begin(), it->second->samples.end());
    }
    runs.push_back({{"from", origin}, {"created", run.meta.created}, {"git_commit", run.meta.git_commit}});
    auto j = results_to_json(results);
    j["baseline"] = {{"promoted_from", origin}, {"promoted_at", utc_now_iso8601()}, {"runs", runs}};
    write_file_atomically(path, j.dump(2) + "\n");
    written.push_back(path);
  }
  return written;
}

std::vector<StoredBaseline> list_baselines(const std::filesystem::path& store, const std::string& fingerprint) {
  std::vector<StoredBaseline> found;
  const auto dir = store / checked_path_component(fingerprint, "device fingerprint");
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "gate.json") continue;
    const auto run = load_results(entry.path());
    const auto j = read_json_file(entry.path(), "baseline");
    found.push_back({entry.path(), entry.path().stem().string(), run.meta.created, run.meta.git_commit, run.meta.tier,
                     j.contains("baseline") ? j["baseline"].value("promoted_from", "") : "",
                     run.results.size()});
  }
  std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.suite < b.suite; });
  return found;
}

}  // namespace rooftop
