// `rooftop report`: a self-contained HTML roofline report (and a Markdown summary) of one or
// more results files; with --baseline, the gate's verdicts beside them.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/ranges.h>

#include "harness/atomic_file.hpp"
#include "harness/baselines.hpp"
#include "cli/commands.hpp"
#include "cli/gate_inputs.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/gate.hpp"
#include "harness/history_store.hpp"
#include "reports/tp_scaling.hpp"
#include "reports/html_report.hpp"

namespace rooftop::cli {

void add_report_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("report", "Render results as one self-contained HTML roofline report");
  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>("report.html");
  auto markdown = std::make_shared<std::string>();
  auto baseline = std::make_shared<std::string>();
  auto templates = std::make_shared<std::string>();
  auto prices = std::make_shared<std::vector<std::string>>();
  cmd->add_option("results", *files, "Results JSON files (several devices: the comparison view)")->required();
  cmd->add_option("-o,--out", *out, "HTML file to write")->capture_default_str();
  cmd->add_option("--markdown", *markdown, "Also write a Markdown summary");
  cmd->add_option("--baseline", *baseline,
                  "Baseline file or store: the gate's verdicts for the first results file, decided as `rooftop gate` "
                  "decides (same device and tier, the store's gate.json, exit 1 on a FAIL)");
  auto config = std::make_shared<std::string>();
  cmd->add_option("--config", *config, "Gate config JSON for --baseline (else the store's gate.json, else the defaults)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--templates", *templates, "Folder of report.html.mustache and report.md.mustache");
  cmd->add_option("--price", *prices, "FINGERPRINT=USD: a device's price, for performance per dollar");
  auto history = std::make_shared<std::string>();
  cmd->add_option("--history", *history,
                  "History database (`rooftop history add`; 'default' for $ROOFTOP_HOME/history.sqlite): a trend chart "
                  "per benchmark of the first results file, change points marked");
  cmd->callback([=, &exit_code] {
    std::vector<NamedFile> read{{"--baseline", *baseline}, {"--config", *config}};
    if (*history != "default") read.push_back({"--history", *history});
    for (const auto& f : *files) read.push_back({"the results file", f});
    check_outputs({{"-o", *out}, {"--markdown", *markdown}}, read);
    std::vector<reports::ReportInput> inputs;
    for (const auto& f : *files) inputs.push_back({f, load_results(f)});
    reports::ReportOptions options;
    options.templates = templates->empty() ? reports::default_templates_dir() : std::filesystem::path(*templates);
    std::set<std::string> fingerprints;
    for (const auto& in : inputs) fingerprints.insert(in.run.meta.fingerprint);
    for (const auto& p : *prices) {
      const auto eq = p.find('=');
      const double usd = eq == std::string::npos ? 0 : std::atof(p.c_str() + eq + 1);
      if (!(usd > 0) || !std::isfinite(usd)) throw InputError(fmt::format("--price '{}': write FINGERPRINT=USD, e.g. cpu-...=12000", p));
      if (!fingerprints.count(p.substr(0, eq)))
        throw InputError(fmt::format("--price '{}': no results file is of device {}; the devices here are {}", p,
                                     p.substr(0, eq), fmt::join(fingerprints, ", ")));
      options.price_usd[p.substr(0, eq)] = usd;
    }
    if (!history->empty()) {
      const std::filesystem::path db = *history == "default" ? default_history_path() : std::filesystem::path(*history);
      // Read, never made: a report does not create a history.
      if (!std::filesystem::exists(db))
        throw InputError(fmt::format("--history {}: no such file; add runs to it with `rooftop history add --db {} RESULTS`",
                                     db.string(), db.string()));
      options.history = HistoryStore(db, HistoryAccess::read).series();
    }
    if (!baseline->empty()) {
      const auto& run = inputs.front().run;
      const auto machine = machine_gate_config(*baseline, run);
      const GateConfig gate_config = !config->empty()                               ? load_gate_config(*config)
                                     : !machine.empty() && exists_in_store(machine) ? load_gate_config(machine)
                                                                                    : GateConfig{};
      options.gate = gate_against_baseline(*baseline, run, gate_config, inputs.front().origin);
      if (!options.gate) {  // as `gate` says it: exit 3, nothing written
        fmt::print(stderr, "rooftop: no baseline for device {} in {}; make one with:\n  {}\n", run.meta.fingerprint, *baseline,
                   make_baseline_hint(run, *baseline));
        exit_code = kExitNoBaseline;
        return;
      }
    }
    // Render everything first: nothing is written unless the whole report rendered.
    const auto html = reports::render_html_report(inputs, options);
    const auto md = markdown->empty() ? std::string() : reports::render_markdown_report(inputs, options);
    write_file_atomically(*out, html);
    if (!markdown->empty()) write_file_atomically(*markdown, md);
    std::vector<const RunResults*> runs;
    for (const auto& in : inputs) runs.push_back(&in.run);
    reports::print_tp_scaling(std::cout, reports::tp_scaling_rows(runs));
    fmt::print(stderr, "rooftop: wrote {} ({:.1f} KB)\n", *out, static_cast<double>(html.size()) / 1024);
    // With a baseline, the verdict's exit code, as `rooftop gate` gives it.
    exit_code = options.gate ? gate_exit_code(*options.gate) : kExitOk;
  });
}

}  // namespace rooftop::cli
