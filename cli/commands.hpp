#pragma once
// The subcommands of the rooftop CLI; each adds itself to the app and sets `exit_code`.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/program_name.hpp"

namespace rooftop::cli {

void add_list_command(CLI::App& app, int& exit_code);
void add_info_command(CLI::App& app, int& exit_code);
void add_characterize_command(CLI::App& app, int& exit_code);
void add_baseline_command(CLI::App& app, int& exit_code);
void add_gate_commands(CLI::App& app, int& exit_code);  // gate and compare
void add_ab_command(CLI::App& app, int& exit_code);
void add_calibrate_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_history_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);
// A suite's perf test for CTest: its baseline, a run and the gate (rooftop_add_perf_test).
void add_perf_test_command(CLI::App& app, int& exit_code);
// `benchmark_args` are the --benchmark_* flags taken out of argv for Google Benchmark.
void add_run_command(CLI::App& app, int& exit_code, const std::vector<std::string>& benchmark_args,
                     const std::string& command_line);
// For `--parse-only run ...`: the parsed run's plan (suites, dtypes, tier, shapes, models and
// filter), made as a real run makes it, no device touched; throws InputError as a run would.
void plan_parsed_run();

}  // namespace rooftop::cli
