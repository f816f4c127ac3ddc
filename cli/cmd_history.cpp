// `rooftop history add` and `rooftop history check`: the nightly series and their change
// points (harness/history_store.hpp, harness/change_points.hpp).
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/number_options.hpp"
#include "harness/history_check.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/history_store.hpp"

namespace rooftop::cli {
namespace fs = std::filesystem;

void add_history_command(CLI::App& app, int& exit_code) {
  auto* history = app.add_subcommand("history", "The nightly history: add runs, find change points in each series");
  history->require_subcommand(1);
  auto db = std::make_shared<std::string>();
  const auto db_path = [db] { return db->empty() ? default_history_path() : fs::path(*db); };

  auto* add = history->add_subcommand("add", "Append runs (results files) to the history, each in one transaction");
  auto files = std::make_shared<std::vector<std::string>>();
  add->add_option("results", *files, "Results files of rooftop run, oldest first")->required()->check(CLI::ExistingFile);
  add->add_option("--db", *db, "History file (default $ROOFTOP_HOME/history.sqlite)");
  auto allow_injected = std::make_shared<bool>(false);
  add->add_flag("--allow-injected", *allow_injected,
                "Take runs made with ROOFTOP_INJECT_SLOWDOWN (calibrating the history check; refused otherwise)");
  add->callback([=, &exit_code] {
    HistoryStore store(db_path());
    for (const auto& f : *files) {
      const int n = store.add(load_results(f), f, *allow_injected);
      fmt::print("{}: {} benchmarks added to {}\n", f, n, db_path().string());
    }
    exit_code = kExitOk;
  });

  auto* check = history->add_subcommand(
      "check", "Change points in every series; exit 1 on a new one (the last --recent runs) that is a slowdown of tau or more");
  auto recent = std::make_shared<int>(3);
  auto tau = std::make_shared<double>(0.03);
  auto significance = std::make_shared<double>(0.05);
  auto fdr = std::make_shared<double>(0.01);
  check->add_option("--db", *db, "History file (default $ROOFTOP_HOME/history.sqlite)");
  check->add_option("--recent", *recent, "A step in the last N runs of a series is new (default 3)")
      ->check(CLI::Range(1, static_cast<int>(RecentChangeOptions::kMaxRecent)));
  check->add_option("--tau", *tau, "Slowdown that matters (default 0.03)")->check(finite_range(0, 10));
  check->add_option("--significance", *significance,
                    "Permutation p below which a split is a past change point (default 0.05)")
      ->check(finite_range(1e-6, 0.5));
  check->add_option("--fdr", *fdr, "False discovery rate of new changes across all series (default 0.01)")
      ->check(finite_range(1e-6, 0.5));
  check->callback([=, &exit_code] {
    if (!fs::exists(db_path()))
      throw InputError(fmt::format("history {}: no such file: add runs first (rooftop history add RESULTS)",
                                   db_path().string()));
    const HistoryStore store(db_path(), HistoryAccess::read);
    HistoryCheckOptions options;
    options.change_points.significance = *significance;
    options.recent.recent = static_cast<std::size_t>(*recent);
    options.tau = *tau;
    options.fdr = *fdr;
    const auto history = store.series();
    const auto result = check_history(history, options);
    // Fits 120 columns: the series cut from the left (its benchmark is the end that matters).
    const auto fit = [](const std::string& t, std::size_t w) { return t.size() <= w ? t : ".." + t.substr(t.size() - w + 2); };
    fmt::print("{:<52} {:<20} {:<8} {:>7} {:>6} {:>3}  {}\n", "series (device tier benchmark)", "run", "commit", "change", "p",
               "new", "verdict");
    const auto row = [&](const SeriesCheck& c, std::size_t index, double change, double p, bool is_new) {
      const auto name = c.night_factor() ? fmt::format("{} {} (night factor of {} series)", c.fingerprint, c.tier, c.suite_series)
                                         : fmt::format("{} {} {}", c.fingerprint, c.tier, c.benchmark);
      const auto& at = c.points[index];
      const bool regression = is_new && change >= *tau;
      fmt::print("{:<52} {:<20} {:<8} {:>7} {:>6} {:>3}  {}\n", fit(name, 52), at.created.substr(0, 20), at.git_commit.substr(0, 8),
                 fmt::format("{:+.1f}%", 100 * change), p < 0.001 ? "<0.001" : fmt::format("{:.3f}", p), is_new ? "yes" : "",
                 regression ? "REGRESSION" : change >= *tau ? "slower" : "faster or small");
    };
    for (const auto& c : result.series) {
      for (const auto& cp : c.past) row(c, cp.index, cp.change, cp.p, false);
      if (c.is_new) row(c, c.recent.index, c.recent.change, c.q, true);
    }
    for (const auto& c : result.series)
      if (c.night_factor() && c.regression)
        fmt::print("every series of {} {:+.1f}% from {} (commit {}):\n  the machine or a change "
                   "that touches all of them: run the suite on another machine of the kind, or look at that commit\n",
                   fit(c.fingerprint + " " + c.tier, 40), 100 * c.recent.change, c.points[c.recent.index].created,
                   c.points[c.recent.index].git_commit.substr(0, 8));
    fmt::print("{} series, {} change points, {} new regressions of {:.0f}% or more (the last {} runs; false discovery "
               "rate {:g})\n",
               result.benchmark_series, result.past_points + result.new_changes, result.regressions, 100 * *tau, *recent, *fdr);
    exit_code = result.regressions ? kExitFailure : kExitOk;
  });
}

}  // namespace rooftop::cli
