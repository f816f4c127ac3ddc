#pragma once
// The baseline store: baselines/<device-fingerprint>/<suite>.json, each a results file of
// one suite with a "baseline" provenance block (what it was promoted from, and when).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/results.hpp"
#include "harness/run_unit_gate.hpp"

namespace rooftop {

std::filesystem::path baseline_file(const std::filesystem::path& store, const std::string& fingerprint,
                                    const std::string& suite);
// Writes one baseline per suite in `run`; refuses an incomplete run, one made with an
// injected slowdown (ROOFTOP_INJECT_SLOWDOWN), or one with a failed or errored point
// (InputError). Returns the files written.
// With `append`, a suite that already has a baseline keeps it and gains this run's samples
// and medians (same device and tier only, and not a run it already holds): a baseline of
// several runs spans the machine's drift between runs, which one run's repetitions do not.
std::vector<std::filesystem::path> promote_baselines(const RunResults& run, const std::string& origin,
                                                     const std::filesystem::path& store, bool append = false);

// Adds the per-run medians a baseline file keeps (one per benchmark per promoted run,
// "baseline.run_medians_s", the latest 20) to `into`; returns how many runs most of its
// benchmarks have there (the median count; 0 for a file made before run medians were kept).
int read_run_medians(const std::filesystem::path& file, RunUnitBaseline& into);

struct StoredBaseline {
  std::filesystem::path file;
  std::string suite, created, commit, tier, promoted_from;
  std::size_t points = 0;
};
std::vector<StoredBaseline> list_baselines(const std::filesystem::path& store, const std::string& fingerprint);

// A store path that exists but is not a folder ($ROOFTOP_BASELINES naming a file by mistake)
// is an InputError, never read as an empty store: "no baseline" is exit 3, which perf-test
// reports as CTest's SKIP, and the command it suggested could not work. A missing store is
// an empty one.
void check_store_folder(const std::filesystem::path& store);

// Whether a file of the store exists; a symbolic-link loop or an unreadable folder on its
// way is an InputError naming the path, not a raw filesystem error.
bool exists_in_store(const std::filesystem::path& path);

// The default store: $ROOFTOP_BASELINES, else ./baselines.
std::filesystem::path default_baseline_store();

}  // namespace rooftop
