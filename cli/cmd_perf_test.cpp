// `rooftop perf-test`: one suite's perf test, as CTest runs it (rooftop_add_perf_test in a
// downstream project, our own `ctest -L perf`): is there a baseline for this device, then a
// run of the tier, then the gate. The steps run as child processes of this same program,
// so each is exactly the command a user would type.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/registry.hpp"

extern char** environ;

namespace rooftop::cli {
namespace {
namespace fs = std::filesystem;

// This program again with `args`; its exit code (128 + signal when killed).
int run_self(const std::vector<std::string>& args) {
  std::vector<std::string> argv_text{fs::read_symlink("/proc/self/exe").string()};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  fmt::print(stderr, "perf-test: {}\n", fmt::join(args, " "));
  std::fflush(stderr);
  pid_t pid = 0;
  if (const int e = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ); e != 0)
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv_text[0], std::strerror(e)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct PerfTestOptions {
  std::string suite, backend = "cpu", tier = "quick", baselines, out = "perf-test";
};

}  // namespace

void add_perf_test_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<PerfTestOptions>();
  auto* cmd = app.add_subcommand("perf-test",
                                 "A suite's perf test for CTest: run its tier and gate it against this device's baseline "
                                 "(exit 3, SKIP, when there is no baseline or no device)");
  cmd->add_option("--suite", o->suite, "Suite (see `list`)")->required();
  cmd->add_option("--backend", o->backend, "Backend")->capture_default_str();
  cmd->add_option("--tier", o->tier, "Tier to run and gate")->capture_default_str();
  cmd->add_option("--baselines", o->baselines, "Baseline store (`baseline update` writes it)")->required();
  cmd->add_option("--out", o->out, "Folder for the results, the gate's Markdown and JUnit")->capture_default_str();
  cmd->callback([o, &exit_code] {
    find_family(o->suite);  // an unknown suite is a usage error, named with the choices
    const int show = run_self(
        {"baseline", "show", "--suite", o->suite, "--backend", o->backend, "--tier", o->tier, "--baselines", o->baselines});
    if (show == kExitNoBaseline || show == kExitNoDevice) {
      fmt::print(stderr, "perf-test: SKIP: {}\n", show == kExitNoDevice ? "the backend's device is not here"
                                                                          : "no baseline for this device (see above)");
      exit_code = kExitNoBaseline;
      return;
    }
    if (show != kExitOk) {
      exit_code = show;
      return;
    }
    std::error_code ec;
    fs::create_directories(o->out, ec);
    if (ec) throw InputError(fmt::format("{}: cannot make the output folder ({})", o->out, ec.message()));
    const auto stem = (fs::path(o->out) / fmt::format("{}-{}", o->suite, o->backend)).string();
    std::vector<std::string> run{"run", "--suite", o->suite, "--backend", o->backend, "--tier", o->tier, "--out", stem + ".json"};
    // Google Benchmark interleaves the repetitions of a kernel loop (drift spreads evenly).
    if (find_family(o->suite).measurement == Measurement::kernel_loop) run.push_back("--benchmark_enable_random_interleaving=true");
    const int ran = run_self(run);
    if (ran != kExitOk && ran != kExitFailure) {
      exit_code = ran;
      return;
    }
    const int gated = run_self({"gate", "--baseline", o->baselines, stem + ".json", "--markdown", stem + "-gate.md",
                                "--junit", stem + "-gate.xml"});
    exit_code = ran == kExitFailure ? kExitFailure : gated;
  });
}

}  // namespace rooftop::cli
