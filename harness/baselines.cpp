#include "harness/baselines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "harness/atomic_file.hpp"
#include "harness/errors.hpp"
#include "harness/injected_slowdown.hpp"
#include "harness/file_lock.hpp"
#include "harness/json_file.hpp"
#include "harness/paths.hpp"
#include "harness/statistics.hpp"

namespace rooftop {

std::filesystem::path baseline_file(const std::filesystem::path& store, const std::string& fingerprint,
                                    const std::string& suite) {
  return store / checked_path_component(fingerprint, "device fingerprint") /
         (checked_path_component(suite, "suite name") + ".json");
}

bool exists_in_store(const std::filesystem::path& path) {
  std::error_code ec;
  const bool found = std::filesystem::exists(path, ec);
  if (ec) throw InputError(fmt::format("{}: {}; mend the baseline store (a symbolic-link loop?)", path.string(), ec.message()));
  return found;
}

void check_store_folder(const std::filesystem::path& store) {
  std::error_code ec;
  const auto st = std::filesystem::status(store, ec);  // a store that is a link to a folder is taken
  if (st.type() == std::filesystem::file_type::not_found) return;
  if (ec) throw InputError(fmt::format("baseline store {}: {}; mend the path (a symbolic-link loop?)", store.string(), ec.message()));
  if (!std::filesystem::is_directory(st))
    throw InputError(fmt::format("baseline store {} is not a folder: a store is a folder of <device-fingerprint>/<suite>.json; "
                                 "give its folder (--baselines, --baseline or $ROOFTOP_BASELINES)",
                                 store.string()));
}

std::filesystem::path default_baseline_store() {
  if (const char* s = std::getenv("ROOFTOP_BASELINES"); s && *s) return s;
  return "baselines";
}

namespace {
constexpr std::size_t kMaxRunMedians = 20;

// A baseline is written only as the store's own file: a symbolic link inside the store (a
// committed one, say) could make an update overwrite any file it leads to. Refuses a link, a
// loop or anything but a folder and a regular file on the way; true when the file exists.
bool checked_store_target(const std::filesystem::path& store, const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  bool exists = false;
  for (const auto& p : {file.parent_path(), file}) {
    std::error_code ec;
    const auto st = fs::symlink_status(p, ec);
    if (st.type() == fs::file_type::not_found) return false;
    if (ec) throw InputError(fmt::format("{}: {}; mend the baseline store {}", p.string(), ec.message(), store.string()));
    if (fs::is_symlink(st))
      throw InputError(fmt::format("{} is a symbolic link inside the baseline store {}: `baseline update` writes the store's "
                                   "own files, never through a link (it could lead out of the store); replace the link "
                                   "with the folder or file itself", p.string(), store.string()));
    const bool folder = p != file;
    if (folder ? !fs::is_directory(st) : !fs::is_regular_file(st))
      throw InputError(fmt::format("{} is not a {} in the baseline store {}: move it aside", p.string(),
                                   folder ? "folder" : "regular file", store.string()));
    exists = !folder;
  }
  return exists;
}

// Each run's median of each benchmark, kept so that the gate can test against the spread
// between runs (harness/run_unit_gate.hpp).
void add_run_median(nlohmann::ordered_json& run_medians, const ResultRecord& r) {
  const auto seconds = r.seconds();
  if (r.status != Status::ok || seconds.empty()) return;
  run_medians[r.problem.name()].push_back(median(seconds));
}
}  // namespace

std::vector<std::filesystem::path> promote_baselines(const RunResults& run, const std::string& origin,
                                                     const std::filesystem::path& store, bool append) {
  if (!run.meta.complete)
    throw InputError(origin + ": the run was interrupted (\"complete\": false); a baseline needs a whole run");
  if (run.meta.injected_slowdown)
    throw InputError(fmt::format("{}: made with an injected slowdown ({}, gate calibration): its times were slowed on "
                                 "purpose; a baseline needs a run without it: unset ROOFTOP_INJECT_SLOWDOWN and run again",
                                 origin, describe(*run.meta.injected_slowdown)));
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
  // One writer at a time from reading the stored baselines to renaming the new ones over
  // them: concurrent appends each keep their run.
  check_store_folder(store);
  std::error_code ec;
  std::filesystem::create_directories(store, ec);
  const FileLock lock(store, "the baseline store " + store.string());
  // Every suite's file is made (and every refusal said) before any is written: an update of
  // several suites replaces all of them or none.
  std::vector<FileContent> files;
  for (auto& [suite, results] : by_suite) {
    const auto path = baseline_file(store, run.meta.fingerprint, suite);
    const bool exists = checked_store_target(store, path);
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    nlohmann::ordered_json run_medians = nlohmann::ordered_json::object();
    if (append && exists) {
      const auto old = load_results(path);
      if (old.meta.tier != run.meta.tier)
        throw InputError(fmt::format("{}: field 'tier' is {}, the run is tier {}: cannot pool them", path.string(),
                                     old.meta.tier, run.meta.tier));
      const auto old_json = read_json_file(path, "baseline");
      if (old_json.contains("baseline") && old_json["baseline"].contains("runs"))
        runs = old_json["baseline"]["runs"];
      for (const auto& r : runs)
        if (r.value("created", std::string()) == run.meta.created && !run.meta.created.empty())
          throw InputError(fmt::format("{}: the run made at {} is already in {}; a run counted twice would shrink the "
                                       "spread between runs", origin, run.meta.created, path.string()));
      std::map<std::string, const ResultRecord*> old_by_name;
      for (const auto& r : old.results) old_by_name[r.problem.name()] = &r;
      if (old_json.contains("baseline") && old_json["baseline"].contains("run_medians_s"))
        run_medians = old_json["baseline"]["run_medians_s"];
      else if (runs.size() <= 1)  // a baseline of one run from before run medians were kept
        for (const auto& r : old.results) add_run_median(run_medians, r);
      // else: the samples of several older runs are pooled and cannot be told apart again.
      for (auto& r : results.results)
        if (auto it = old_by_name.find(r.problem.name()); it != old_by_name.end() && it->second->status == Status::ok)
          r.samples.insert(r.samples.begin(), it->second->samples.begin(), it->second->samples.end());
    }
    runs.push_back({{"from", origin}, {"created", run.meta.created}, {"git_commit", run.meta.git_commit}});
    for (const auto& r : run.results)  // this run's own samples: `results` now holds the pooled ones
      if (r.problem.family == suite) add_run_median(run_medians, r);
    // Benchmarks no longer run leave with their medians; a long-kept baseline keeps its
    // latest kMaxRunMedians runs, so that months of drift do not pile into its spread.
    nlohmann::ordered_json kept_medians = nlohmann::ordered_json::object();
    for (const auto& r : results.results) {
      const auto name = r.problem.name();
      if (!run_medians.contains(name)) continue;
      auto values = run_medians[name];
      while (values.size() > kMaxRunMedians) values.erase(values.begin());
      kept_medians[name] = values;
    }
    run_medians = kept_medians;
    derive_records(results);  // the pooled samples' summary, not the run's alone
    auto j = results_to_json(results);
    j["baseline"] = {{"promoted_from", origin}, {"promoted_at", utc_now_iso8601()}, {"runs", runs},
                     {"run_medians_s", run_medians}};
    files.push_back({path, j.dump(2) + "\n"});
  }
  write_files_atomically(files);
  std::vector<std::filesystem::path> written;
  for (const auto& f : files) written.push_back(f.path);
  return written;
}

std::vector<StoredBaseline> list_baselines(const std::filesystem::path& store, const std::string& fingerprint) {
  std::vector<StoredBaseline> found;
  check_store_folder(store);
  const auto dir = store / checked_path_component(fingerprint, "device fingerprint");
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "gate.json") continue;
    if (!exists_in_store(entry.path())) continue;  // a dangling link; a loop is refused
    const auto run = load_results(entry.path());
    const auto j = read_json_file(entry.path(), "baseline");
    found.push_back({entry.path(), entry.path().stem().string(), run.meta.created, run.meta.git_commit, run.meta.tier,
                     j.contains("baseline") ? j["baseline"].value("promoted_from", "") : "",
                     run.results.size()});
  }
  std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.suite < b.suite; });
  return found;
}

int read_run_medians(const std::filesystem::path& file, RunUnitBaseline& into) {
  const auto j = read_json_file(file, "baseline");
  if (!j.contains("baseline") || !j["baseline"].contains("run_medians_s")) return 0;
  const auto& medians = j["baseline"]["run_medians_s"];
  if (!medians.is_object())
    throw InputError(file.string() + ": field 'baseline.run_medians_s' must be an object of arrays of seconds");
  std::vector<int> counts;
  for (const auto& [name, values] : medians.items()) {
    auto& kept = into.medians_s[name];
    if (!values.is_array())
      throw InputError(fmt::format("{}: field 'baseline.run_medians_s.{}' must be an array", file.string(), name));
    counts.push_back(static_cast<int>(values.size()));
    for (const auto& v : values) {
      if (!v.is_number() || !(v.get<double>() > 0))
        throw InputError(fmt::format("{}: field 'baseline.run_medians_s.{}' must hold positive numbers of seconds",
                                     file.string(), name));
      kept.push_back(v.get<double>());
    }
  }
  if (counts.empty()) return 0;
  std::nth_element(counts.begin(), counts.begin() + static_cast<long>(counts.size() / 2), counts.end());
  return counts[counts.size() / 2];
}

}  // namespace rooftop
