// `rooftop baseline`, `rooftop gate` and `rooftop compare`: stored baselines and verdicts.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <set>

#include "harness/atomic_file.hpp"
#include "harness/backend.hpp"
#include "harness/baselines.hpp"
#include "cli/commands.hpp"
#include "cli/number_options.hpp"
#include "cli/gate_inputs.hpp"
#include "harness/errors.hpp"
#include "harness/registry.hpp"
#include "harness/exit_codes.hpp"
#include "harness/gate.hpp"
#include "harness/history_store.hpp"
#include "harness/run_unit_gate.hpp"
#include "harness/paths.hpp"
#include "reports/gate_printers.hpp"

namespace rooftop::cli {
namespace fs = std::filesystem;
namespace {

struct GateOutputs {
  std::string config, markdown, junit, json;
  double alpha = 0, tau = 0;
};

void add_output_options(CLI::App* cmd, GateOutputs& o) {
  cmd->add_option("--config", o.config, "Gate config JSON: alpha, tau_kernel, tau_system, overrides per benchmark")
      ->check(CLI::ExistingFile);
  cmd->add_option("--alpha", o.alpha, "False discovery rate over the suite's benchmarks (Benjamini-Hochberg): an A/A suite FAILs at most this often (default 0.01)")->check(finite_range(1e-12, 0.5));
  cmd->add_option("--tau", o.tau, "Slowdown that matters, for every benchmark (default 0.03 kernels, 0.05 systems)")
      ->check(finite_range(0, 10));
  cmd->add_option("--markdown", o.markdown, "Write a Markdown summary (CI job summary, PR comment)");
  cmd->add_option("--junit", o.junit, "Write JUnit XML: FAIL as failure, UNRESOLVED as skipped");
  cmd->add_option("--json", o.json, "Write the verdicts and samples as JSON");
}

// --config, else a gate.json kept beside this device's baselines (thresholds calibrated for
// that machine), else the defaults; --alpha and --tau override.
GateConfig config_of(const GateOutputs& o, const fs::path& machine_config = {}) {
  GateConfig c = !o.config.empty()                                             ? load_gate_config(o.config)
                 : !machine_config.empty() && exists_in_store(machine_config) ? load_gate_config(machine_config)
                                                                              : GateConfig{};
  if (o.alpha > 0) c.alpha = o.alpha;
  if (o.tau > 0) c.tau_kernel = c.tau_system = o.tau;
  return c;
}

// The outputs, checked before anything is read or compared; `inputs`: the files read.
void check_gate_outputs(const GateOutputs& o, std::vector<NamedFile> inputs) {
  inputs.push_back({"--config", o.config});
  check_outputs({{"--markdown", o.markdown}, {"--junit", o.junit}, {"--json", o.json}}, inputs);
}

int report(const GateReport& r, const GateOutputs& o) {
  reports::print_gate_table(std::cout, r);
  if (!o.markdown.empty()) write_file_atomically(o.markdown, reports::gate_markdown(r));
  if (!o.junit.empty()) write_file_atomically(o.junit, reports::gate_junit(r));
  if (!o.json.empty()) write_file_atomically(o.json, reports::gate_json(r).dump(2) + "\n");
  return gate_exit_code(r);
}

}  // namespace

void add_baseline_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("baseline", "Store and list baselines: baselines/<device-fingerprint>/<suite>.json");
  cmd->require_subcommand(1);
  auto store = std::make_shared<std::string>(default_baseline_store().string());

  auto* update = cmd->add_subcommand("update", "Promote a results file to this device's baselines (one file per suite)");
  auto results = std::make_shared<std::string>();
  update->add_option("results", *results, "Results JSON of `rooftop run`")->required();
  update->add_option("--baselines", *store, "Baseline store ($ROOFTOP_BASELINES, else ./baselines)")->capture_default_str();
  auto append = std::make_shared<bool>(false);
  update->add_flag("--append", *append, "Pool this run's samples into the stored baseline instead of replacing it");
  update->callback([=, &exit_code] {
    const auto run = load_results(*results);
    for (const auto& f : promote_baselines(run, *results, *store, *append)) fmt::print("wrote {}\n", f.string());
    exit_code = kExitOk;
  });

  auto* show = cmd->add_subcommand("show", "List the baselines stored for this device");
  auto backend = std::make_shared<std::string>("cpu");
  auto suite = std::make_shared<std::string>();
  auto tier = std::make_shared<std::string>();
  show->add_option("--backend", *backend, "Backend whose device is meant")->capture_default_str();
  show->add_option("--suite", *suite, "Only this suite (exit 3 when it has no baseline)");
  show->add_option("--tier", *tier, "Only baselines of this tier (exit 3 when there is none)");
  show->add_option("--baselines", *store, "Baseline store")->capture_default_str();
  show->callback([=, &exit_code] {
    const auto& b = find_backend(*backend);
    const auto found = list_baselines(*store, b.fingerprint());
    int shown = 0;
    for (const auto& s : found) {
      if (!suite->empty() && s.suite != *suite) continue;
      if (!tier->empty() && s.tier != *tier) continue;
      fmt::print("{:<12} {:>4} points  tier {:<6} commit {:<14} {}  {}\n", s.suite, s.points, s.tier, s.commit, s.created,
                 s.file.string());
      ++shown;
    }
    if (!shown) {
      // Google Benchmark's interleaving for its own loop; suites with a loop of their own refuse it.
      const Family* family = suite->empty() ? nullptr : family_named(*suite);
      const bool kernel_loop = !family || family->measurement == Measurement::kernel_loop;
      fmt::print(stderr, "no baseline{0}{7} for {1} in {2}: make one with `{6} run --suite {3} --backend {4} --tier {8}{5} "
                         "--out r.json && {6} baseline update r.json --baselines {2}`\n",
                 suite->empty() ? "" : " of " + *suite, b.fingerprint(), *store, suite->empty() ? "SUITE" : *suite, *backend,
                 kernel_loop ? " --benchmark_enable_random_interleaving=true" : "", program_name(),
                 tier->empty() ? "" : " at tier " + *tier, tier->empty() ? "quick" : *tier);
      exit_code = kExitNoBaseline;
      return;
    }
    exit_code = kExitOk;
  });
}

void add_gate_commands(CLI::App& app, int& exit_code) {
  auto* gate = app.add_subcommand("gate", "Compare a run with the stored baseline of its device: FAIL on a real regression");
  auto baseline = std::make_shared<std::string>(default_baseline_store().string());
  auto results = std::make_shared<std::string>();
  auto outputs = std::make_shared<GateOutputs>();
  gate->add_option("--baseline", *baseline, "Baseline file, or a store directory (default $ROOFTOP_BASELINES or ./baselines)")
      ->capture_default_str();
  auto reruns = std::make_shared<std::vector<std::string>>();
  gate->add_option("results", *results, "Results JSON of `rooftop run`")->required();
  gate->add_option("--confirm", *reruns,
                   "Re-runs of the same build (all its points, or only those that FAILed): a FAIL stands only where "
                   "each re-run that measured the benchmark FAILs it too");
  auto unit = std::make_shared<std::string>("auto");
  gate->add_option("--unit", *unit,
                   "How the baseline is read: 'run' as its runs' medians (their spread measures the drift between "
                   "runs); 'repetition' as one run's samples (the drift estimated across the suite's benchmarks); "
                   "'auto' takes 'run' for a baseline of 2 or more runs")
      ->check(CLI::IsMember({"auto", "run", "repetition"}))
      ->capture_default_str();
  auto history = std::make_shared<std::string>();
  auto history_runs = std::make_shared<int>(10);
  gate->add_option("--history", *history,
                   "Gate against the last nights in this history database ('default': $ROOFTOP_HOME/history.sqlite) "
                   "instead of a stored baseline, with the run as the unit");
  gate->add_option("--history-runs", *history_runs, "How many of the latest runs of the history make the baseline")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  add_output_options(gate, *outputs);
  gate->callback([=, &exit_code] {
    std::vector<NamedFile> read{{"the results file", *results}, {"--baseline", *baseline}};
    if (!history->empty() && *history != "default") read.push_back({"--history", *history});
    for (const auto& r : *reruns) read.push_back({"--confirm", r});
    check_gate_outputs(*outputs, read);
    const auto run = load_results(*results);
    std::vector<RunResults> rerun_runs;
    for (const auto& r : *reruns) {
      rerun_runs.push_back(load_results(r));
      const auto& meta = rerun_runs.back().meta;
      if (meta.fingerprint != run.meta.fingerprint || meta.tier != run.meta.tier)
        throw InputError(fmt::format("--confirm {}: a run of device {} tier {}, but {} is of {} tier {}: a re-run must be of "
                                     "the same device and tier", r, meta.fingerprint, meta.tier, *results,
                                     run.meta.fingerprint, run.meta.tier));
    }
    // The machine's thresholds (gate.json beside its baselines) hold for the history too: the
    // nightly's rolling baseline is the same machine's.
    const auto machine_config = machine_gate_config(*baseline, run);
    if (outputs->config.empty() && exists_in_store(machine_config))
      fmt::print(stderr, "rooftop: gate config {}\n", machine_config.string());
    const auto config = config_of(*outputs, machine_config);
    if (!history->empty()) {
      const fs::path db = *history == "default" ? default_history_path() : fs::path(*history);
      if (!fs::exists(db))
        throw InputError(fmt::format("--history {}: no such file; add nights to it with `rooftop history add --db {} RESULTS`",
                                     db.string(), db.string()));
      const auto base = history_baseline(HistoryStore(db, HistoryAccess::read).series(), run, *history_runs, db.string());
      if (base.runs < 2) {
        fmt::print(stderr, "rooftop: history {} holds {} of device {} at tier {} besides this one: a spread between "
                           "runs needs 2 or more (3 or more to be of use); add nights with `rooftop history add --db {} "
                           "RESULTS`\n", db.string(), runs_phrase(base.runs), run.meta.fingerprint, run.meta.tier, db.string());
        exit_code = kExitNoBaseline;
        return;
      }
      auto verdicts = gate_against_runs(base, run, config, *results);
      std::vector<GateReport> confirmations;
      for (std::size_t i = 0; i < reruns->size(); ++i)
        confirmations.push_back(gate_against_runs(base, with_reruns(run, rerun_runs[i]), config, (*reruns)[i]));
      confirm_failures(verdicts, confirmations);
      exit_code = report(verdicts, *outputs);
      return;
    }
    auto verdicts = gate_against_baseline(*baseline, run, config, *results, gate_unit_named(*unit));
    if (!verdicts) {
      fmt::print(stderr, "rooftop: no baseline for device {} in {}; make one with:\n  {}\n", run.meta.fingerprint,
                 *baseline, make_baseline_hint(run, *baseline));
      exit_code = kExitNoBaseline;
      return;
    }
    std::vector<GateReport> confirmations;
    // The re-runs are tested as the run was, whatever their own subset of suites would pick.
    const GateUnit run_unit = verdicts->run_unit ? GateUnit::run : GateUnit::repetition;
    for (std::size_t i = 0; i < reruns->size(); ++i) {
      auto again = gate_against_baseline(*baseline, with_reruns(run, rerun_runs[i]), config, (*reruns)[i], run_unit);
      if (again) confirmations.push_back(std::move(*again));
      else fmt::print(stderr, "rooftop: note: --confirm {}: no baseline for its suites; it confirms nothing\n", (*reruns)[i]);
    }
    confirm_failures(*verdicts, confirmations);
    exit_code = report(*verdicts, *outputs);
  });

  auto* compare = app.add_subcommand("compare", "Gate two results files of one machine (builds, days; A the reference, B the "
                                                  "candidate); two machines: `report A B`");
  auto a = std::make_shared<std::string>(), b = std::make_shared<std::string>();
  auto compare_outputs = std::make_shared<GateOutputs>();
  compare->add_option("A", *a, "Reference results JSON")->required();
  compare->add_option("B", *b, "Candidate results JSON")->required();
  add_output_options(compare, *compare_outputs);
  compare->callback([=, &exit_code] {
    check_gate_outputs(*compare_outputs, {{"A", *a}, {"B", *b}});
    const auto ra = load_results(*a), rb = load_results(*b);
    if (ra.meta.fingerprint != rb.meta.fingerprint)
      fmt::print(stderr,
                 "rooftop: note: {} and {} are from different devices ({} vs {}): `compare` is the regression gate and "
                 "takes the suite's shared shift (the machine's) out of each benchmark; to compare the machines use "
                 "`rooftop report {} {}` (docs/compare-machines.md)\n",
                 *a, *b, ra.meta.fingerprint, rb.meta.fingerprint, *a, *b);
    exit_code = report(gate_results(ra, rb, config_of(*compare_outputs), *a, *b), *compare_outputs);
  });
}

}  // namespace rooftop::cli
