// `rooftop gate-calibrate`: the gate's false-alarm and detection rates on this machine.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "harness/atomic_file.hpp"
#include "cli/commands.hpp"
#include "cli/number_options.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/gate.hpp"
#include "harness/gate_calibration.hpp"

namespace rooftop::cli {

void add_calibrate_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("gate-calibrate", "Measure the gate's false-alarm and detection rates from recorded runs");
  auto aa = std::make_shared<std::vector<std::string>>();
  auto injected = std::make_shared<std::vector<std::string>>();
  auto comparisons = std::make_shared<int>(3000);
  auto slowdowns = std::make_shared<std::vector<double>>(std::vector<double>{0.02, 0.05, 0.10});
  auto markdown = std::make_shared<std::string>();
  auto config_file = std::make_shared<std::string>();
  cmd->add_option("--config", *config_file, "Gate config JSON whose thresholds to measure")->check(CLI::ExistingFile);
  cmd->add_option("--aa", *aa, "Two or more results files of the same build on this machine (A/A)")
      ->required()->expected(2, 1000)->option_text("FILE FILE [FILE...] REQUIRED");
  cmd->add_option("--injected", *injected, "FRACTION=FILE: a run made with ROOFTOP_INJECT_SLOWDOWN=FRACTION");
  cmd->add_option("--comparisons", *comparisons, "Offline comparisons per row")->capture_default_str()->check(CLI::Range(10, 1000000));
  cmd->add_option("--slowdowns", *slowdowns, "Offline slowdowns to detect")->delimiter(',')->check(finite_range(0, 10));
  cmd->add_option("--markdown", *markdown, "Write the table as Markdown");
  cmd->callback([=, &exit_code] {
    std::vector<NamedFile> read{{"--config", *config_file}};
    for (const auto& f : *aa) read.push_back({"--aa", f});
    for (const auto& spec : *injected) read.push_back({"--injected", spec.substr(spec.find('=') + 1)});
    check_outputs({{"--markdown", *markdown}}, read);
    std::vector<RunResults> runs;
    for (const auto& f : *aa) runs.push_back(load_results(f));
    std::vector<std::pair<double, RunResults>> inj;
    for (const auto& spec : *injected) {
      const auto eq = spec.find('=');
      const double fraction = eq == std::string::npos ? std::nan("") : finite_number_or_nan(spec.substr(0, eq));
      if (!(fraction >= 0 && fraction <= 10))
        throw InputError(fmt::format("--injected '{}': write FRACTION=FILE, FRACTION a finite number in [0, 10]", spec));
      inj.emplace_back(fraction, load_results(spec.substr(eq + 1)));
    }
    const GateConfig config = config_file->empty() ? GateConfig{} : load_gate_config(*config_file);
    const auto report = calibrate_gate(runs, inj, *comparisons, *slowdowns, config, 20261121);
    const auto md = calibration_markdown(report, config);
    fmt::print("{}", md);
    if (!markdown->empty()) write_file_atomically(*markdown, md);
    exit_code = kExitOk;
  });
}

}  // namespace rooftop::cli
