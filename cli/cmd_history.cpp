// `rooftop history add` and `rooftop history check`: the nightly series and their change
// points (harness/history_store.hpp, harness/change_points.hpp).
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/number_options.hpp"
#include "harness/change_points.hpp"
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
  add->callback([=, &exit_code] {
    HistoryStore store(db_path());
    for (const auto& f : *files) {
      const int n = store.add(load_results(f), f);
      fmt::print("{}: {} benchmarks added to {}\n", f, n, db_path().string());
    }
    exit_code = kExitOk;
  });

  auto* check = history->add_subcommand(
      "check", "Change points (e-divisive means) in every series; exit 1 on a new one that is a slowdown of tau or more");
  auto recent = std::make_shared<int>(3);
  auto tau = std::make_shared<double>(0.03);
  auto significance = std::make_shared<double>(0.05);
  check->add_option("--db", *db, "History file (default $ROOFTOP_HOME/history.sqlite)");
  check->add_option("--recent", *recent, "A change point among the last N runs of a series is new (default 3)")
      ->check(CLI::Range(1, 1000));
  check->add_option("--tau", *tau, "Slowdown that matters (default 0.03)")->check(finite_range(0, 10));
  check->add_option("--significance", *significance, "Permutation p below which a split is a change point (default 0.05)")
      ->check(finite_range(1e-6, 0.5));
  check->callback([=, &exit_code] {
    if (!fs::exists(db_path()))
      throw InputError(fmt::format("history {}: no such file: add runs first (rooftop history add RESULTS)",
                                   db_path().string()));
    const HistoryStore store(db_path(), HistoryAccess::read);
    ChangePointOptions options;
    options.significance = *significance;
    // Fits 120 columns: the series cut from the left (its benchmark is the end that matters).
    const auto fit = [](const std::string& t, std::size_t w) { return t.size() <= w ? t : ".." + t.substr(t.size() - w + 2); };
    fmt::print("{:<52} {:<20} {:<8} {:>7} {:>6} {:>3}  {}\n", "series (device tier benchmark)", "run", "commit", "change", "p",
               "new", "verdict");
    int regressions = 0, series = 0, points = 0;
    for (const auto& s : store.series()) {
      ++series;
      std::vector<double> logs;
      for (const auto& p : s.points) logs.push_back(std::log(p.median_s));
      for (const auto& cp : find_change_points(logs, options)) {
        ++points;
        const bool is_new = cp.index + static_cast<std::size_t>(*recent) >= s.points.size();
        const bool regression = is_new && cp.change >= *tau;
        regressions += regression;
        const auto& at = s.points[cp.index];
        fmt::print("{:<52} {:<20} {:<8} {:>7} {:>6.3f} {:>3}  {}\n", fit(fmt::format("{} {} {}", s.fingerprint, s.tier, s.benchmark), 52),
                   at.created.substr(0, 20), at.git_commit.substr(0, 8), fmt::format("{:+.1f}%", 100 * cp.change), cp.p,
                   is_new ? "yes" : "", regression ? "REGRESSION" : cp.change >= *tau ? "slower" : "faster or small");
      }
    }
    fmt::print("{} series, {} change points, {} new regressions of {:.0f}% or more (the last {} runs)\n", series, points,
               regressions, 100 * *tau, *recent);
    exit_code = regressions ? kExitFailure : kExitOk;
  });
}

}  // namespace rooftop::cli
