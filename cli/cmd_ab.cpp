// `rooftop ab`: two builds on one machine in interleaved ABBA blocks, paired per block.
#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "harness/atomic_file.hpp"
#include "cli/commands.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/gate.hpp"
#include "reports/gate_printers.hpp"

namespace rooftop::cli {
namespace fs = std::filesystem;
namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `binary run ARGS --out FILE`; a run whose points failed still yields its file.
RunResults run_build(const std::string& binary, const std::vector<std::string>& args, const fs::path& out) {
  std::string cmd = shell_quote(binary) + " run";
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " --out " + shell_quote(out.string()) + " > /dev/null";
  const int status = std::system(cmd.c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  if (code != kExitOk && code != kExitFailure)
    throw InputError(fmt::format("`{}` exited {}: fix the command before comparing builds", cmd, code));
  return load_results(out);
}
}  // namespace

void add_ab_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("ab", "Compare two builds on this machine in interleaved ABBA blocks (paired, Wilcoxon)");
  auto a = std::make_shared<std::string>(), b = std::make_shared<std::string>(), dir = std::make_shared<std::string>("ab-runs");
  auto blocks = std::make_shared<int>(16);  // 2 / 2^16 = 3e-5: room for Holm over ~30 benchmarks
  auto run_args = std::make_shared<std::vector<std::string>>();
  auto markdown = std::make_shared<std::string>(), junit = std::make_shared<std::string>(), json = std::make_shared<std::string>();
  auto tau = std::make_shared<double>(0), alpha = std::make_shared<double>(0);
  cmd->add_option("--a", *a, "rooftop binary of build A (the reference), e.g. old/bin/rooftop")->required();
  cmd->add_option("--b", *b, "rooftop binary of build B (the candidate)")->required();
  cmd->add_option("--blocks", *blocks, "ABBA blocks; all blocks one way gives p = 2 / 2^blocks")
      ->capture_default_str()->check(CLI::Range(2, 200));
  cmd->add_option("--dir", *dir, "Where the runs' results files go")->capture_default_str();
  cmd->add_option("--alpha", *alpha, "Family-wise false-alarm level after Holm (default 0.001)");
  cmd->add_option("--tau", *tau, "Slowdown that matters (default 0.03 kernels, 0.05 systems)");
  cmd->add_option("--markdown", *markdown, "Write a Markdown summary");
  cmd->add_option("--junit", *junit, "Write JUnit XML");
  cmd->add_option("--json", *json, "Write the verdicts as JSON");
  cmd->add_option("run_args", *run_args, "Arguments of `rooftop run` after --, e.g. -- --suite gemm --tier smoke")
      ->required();
  cmd->callback([=, &exit_code] {
    for (const auto& bin : {*a, *b})
      if (!fs::exists(bin)) throw InputError(fmt::format("{}: no such rooftop binary", bin));
    fs::create_directories(*dir);
    std::vector<AbBlock> all;
    for (int k = 0; k < *blocks; ++k) {
      AbBlock block;
      // A B B A: a linear drift over the block cancels out of the difference.
      const std::pair<const std::string*, char> order[] = {{a.get(), 'a'}, {b.get(), 'b'}, {b.get(), 'b'}, {a.get(), 'a'}};
      for (int i = 0; i < 4; ++i) {
        const auto out = fs::path(*dir) / fmt::format("block{:02d}-{}{}.json", k, order[i].second, i);
        auto run = run_build(*order[i].first, *run_args, out);
        (order[i].second == 'a' ? block.a : block.b).push_back(std::move(run));
      }
      fmt::print(stderr, "[{}/{}] ABBA block done\n", k + 1, *blocks);
      all.push_back(std::move(block));
    }
    GateConfig config;
    if (*alpha > 0) config.alpha = *alpha;
    if (*tau > 0) config.tau_kernel = config.tau_system = *tau;
    const auto report = gate_paired_blocks(all, config, *a, *b);
    reports::print_gate_table(std::cout, report);
    if (!markdown->empty()) write_file_atomically(*markdown, reports::gate_markdown(report));
    if (!junit->empty()) write_file_atomically(*junit, reports::gate_junit(report));
    if (!json->empty()) write_file_atomically(*json, reports::gate_json(report).dump(2) + "\n");
    exit_code = report.count(Verdict::fail) ? kExitFailure : kExitOk;
  });
}

}  // namespace rooftop::cli
