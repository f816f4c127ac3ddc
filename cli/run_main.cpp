// rooftop::run_main: the command line, over the built-in suites (the rooftop program) or a
// program's own benchmarks declared through the public API (rooftop::main).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "api/declared_benchmarks.hpp"
#include "devices/cpu/isa_level.hpp"
#include "devices/devices.hpp"
#include "cli/commands.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/version.hpp"

namespace {
constexpr const char* kExitCodesHelp =
    "Exit codes:\n"
    "  0    run: every point ran and passed its check; gate/compare/ab/report: no regression\n"
    "       (report: with --baseline, the gate's verdict; without one, 0 once written)\n"
    "  1    run: a point failed its correctness check or could not run; gate/compare/ab/report: a FAIL;\n"
    "       history check: a new change point that is a slowdown; tune: no candidate of any point ran\n"
    "  2    usage or input error: unknown suite, backend, dtype or filter, bad shape, bad file,\n"
    "       a baseline of another device, tier or schema; gate/compare: nothing in common;\n"
    "       tune: nothing tunable in the run; an output that cannot be written, or that is an\n"
    "       input or another output; baseline update/history add: a run made with\n"
    "       ROOFTOP_INJECT_SLOWDOWN; history add: a run dated more than a day ahead\n"
    "  3    gate, perf-test, report: no baseline for this device (the message gives the command to make one;\n"
    "       report: with --baseline);\n"
    "       perf-test: also when the backend's device is not here (CTest's SKIP)\n"
    "  4    the backend's device is not here (no GPU or no driver); other backends still run\n"
    "  5    collectives, tensor-parallel inference: a rank died or hung past --comm-timeout; the finished\n"
    "       points were kept\n"
    "  6    gate/compare/ab/report: UNRESOLVED, no FAIL but no all-clear: a benchmark's 95% interval lies\n"
    "       wholly above tau short of the suite's level, or a suite-wide shift above tau it cannot attribute\n"
    "  130  interrupted (Ctrl-C); the results of the points (ab: pairs) that finished were kept;\n"
    "       tune: nothing written\n"
    "  143, 129  ab: ended by SIGTERM or SIGHUP; its run in flight ended too, no verdicts\n"
    "Google Benchmark's --benchmark_* flags are passed to it (e.g. --benchmark_out=gb.json,\n"
    "--benchmark_enable_random_interleaving=true); suites with a loop of their own (collectives,\n"
    "inference) take --benchmark_filter, --benchmark_repetitions and --benchmark_min_time only.\n"
    "rooftop --parse-only COMMAND ... parses and checks a command line without running it (exit 0 or 2).";

constexpr std::string_view kParseOnlyFlag = "--parse-only";

// Thrown once the command line is parsed and checked, before any command runs: the
// commands' own callbacks (which own their options' values) are left as they are.
struct ParsedOnly {};
}  // namespace

int rooftop::run_main(int argc, char** argv) {
  try {
    rooftop::cpu::usable_isa_level();  // a bad ROOFTOP_/ONEDNN_MAX_CPU_ISA is a usage error, before anything runs
    rooftop::register_all_backends();
    rooftop::register_declared_benchmarks();
  } catch (const rooftop::InputError& e) {
    fmt::print(stderr, "rooftop: error: {}\n", e.what());
    return rooftop::kExitUsage;
  }

  // Google Benchmark's own flags go to it; the rest is rooftop's.
  std::vector<std::string> benchmark_args, args;
  // The program's own name: "rooftop", or a downstream project's benchmark program.
  const std::string program = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "rooftop";
  std::string command_line = program;
  rooftop::cli::set_program_name(program);
  // `--parse-only` first: the command line is parsed and its options checked, nothing runs
  // (the documentation test passes every command the docs show through it).
  const bool parse_only = argc > 1 && std::string_view(argv[1]) == kParseOnlyFlag;
  for (int i = parse_only ? 2 : 1; i < argc; ++i) {
    const std::string a = argv[i];
    command_line += " " + a;
    (a.rfind("--benchmark_", 0) == 0 ? benchmark_args : args).push_back(a);
  }

  CLI::App app{"rooftop: benchmarks of AI workloads (GEMM, attention, collectives, inference) with roofline reporting"};
  app.name(program);
  app.footer(kExitCodesHelp);
  const std::string version = fmt::format("rooftop {}+{}", rooftop::kVersion, rooftop::kGitCommit);
  app.set_version_flag("--version", program == "rooftop" ? version : program + " (" + version + ")");
  app.require_subcommand(1);
  int exit_code = rooftop::kExitOk;
  rooftop::cli::add_list_command(app, exit_code);
  rooftop::cli::add_info_command(app, exit_code);
  rooftop::cli::add_characterize_command(app, exit_code);
  rooftop::cli::add_run_command(app, exit_code, benchmark_args, command_line);
  rooftop::cli::add_baseline_command(app, exit_code);
  rooftop::cli::add_gate_commands(app, exit_code);
  rooftop::cli::add_ab_command(app, exit_code);
  rooftop::cli::add_calibrate_command(app, exit_code);
  rooftop::cli::add_report_command(app, exit_code);
  rooftop::cli::add_history_command(app, exit_code);
  rooftop::cli::add_tune_command(app, exit_code);
  rooftop::cli::add_perf_test_command(app, exit_code);

  // The exit codes and Google Benchmark's flags once, on `rooftop --help`; each command's
  // help ends with a line pointing there (the whole footer made `baseline show --help` 34
  // lines, 27 of them footer).
  const std::function<void(CLI::App&)> short_footers = [&](CLI::App& parent) {
    for (auto* sub : parent.get_subcommands({})) {
      sub->footer(fmt::format("Exit codes and Google Benchmark's --benchmark_* flags: `{} --help`.", program));
      short_footers(*sub);
    }
  };
  short_footers(app);

  // A run is also planned (suites, shapes, models: what a real run refuses before it starts).
  if (parse_only)
    app.parse_complete_callback([&app] {
      if (app.got_subcommand("run")) rooftop::cli::plan_parsed_run();
      throw ParsedOnly{};
    });

  // CLI11 says "A subcommand is required" for a misspelt one: name it and the choices.
  std::vector<std::string> names;
  for (const auto* s : app.get_subcommands({})) names.push_back(s->get_name());
  if (!args.empty() && !args.front().starts_with("-") &&
      std::find(names.begin(), names.end(), args.front()) == names.end()) {
    fmt::print(stderr, "rooftop: error: unknown command '{}': choose one of {}\n", args.front(), fmt::join(names, ", "));
    return rooftop::kExitUsage;
  }
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last-first
    app.parse(reversed);
  } catch (const ParsedOnly&) {
    return rooftop::kExitOk;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? rooftop::kExitOk : rooftop::kExitUsage;
  } catch (const rooftop::InputError& e) {
    fmt::print(stderr, "rooftop: error: {}\n", e.what());
    return rooftop::kExitUsage;
  } catch (const rooftop::Interrupted& e) {
    fmt::print(stderr, "rooftop: {}\n", e.what());
    return rooftop::kExitInterrupted;
  } catch (const rooftop::DeviceUnavailable& e) {
    fmt::print(stderr, "rooftop: error: {}\n", e.what());
    return rooftop::kExitNoDevice;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rooftop: error: {}\n", e.what());
    return rooftop::kExitFailure;
  }
  return exit_code;
}
