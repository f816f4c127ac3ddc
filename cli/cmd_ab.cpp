// `rooftop ab`: two builds on one machine in alternating pairs of runs, decided sequentially
// (harness/ab_sequential.hpp).
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "harness/atomic_file.hpp"
#include "cli/commands.hpp"
#include "cli/number_options.hpp"
#include "harness/errors.hpp"
#include "harness/name_filter.hpp"
#include "harness/printable_text.hpp"
#include "harness/exit_codes.hpp"
#include "harness/ab_sequential.hpp"
#include "harness/gate.hpp"
#include "cli/gate_inputs.hpp"
#include "reports/gate_printers.hpp"

namespace rooftop::cli {
namespace fs = std::filesystem;
namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Signals while ab runs. SIGINT: the run in flight is stopped and ab ends with what it has.
// SIGTERM, SIGHUP (timeout, a CI cancel, a closed terminal): the run in flight is ended and
// ab exits 128 + the signal. Each is passed on to the run's process group from the handler
// itself (kill is async-signal-safe): however late it lands, the run gets it.
std::atomic<int> g_ab_interrupts{0};
std::atomic<int> g_ab_ending_signal{0};
std::atomic<pid_t> g_run_group{0};  // the process group of the run in flight, 0 between runs
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<pid_t>::is_always_lock_free,
              "used in a signal handler");
constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void on_ab_signal(int sig) {
  const int saved_errno = errno;
  if (sig == SIGINT) g_ab_interrupts.fetch_add(1);
  else g_ab_ending_signal.store(sig);
  if (const pid_t group = g_run_group.load(); group > 0) ::kill(-group, sig);
  errno = saved_errno;
}
bool ab_interrupted() { return g_ab_interrupts.load() > 0 || g_ab_ending_signal.load() != 0; }

// Ctrl-C at the terminal, or a SIGINT sent to ab alone: either way ab stops its run (which
// keeps its finished points) and reports the pairs that finished, exit 130. A SIGTERM or
// SIGHUP ends the run and ab, 128 + the signal. A SIGTERM or SIGHUP ignored when ab started
// (nohup) stays ignored.
class InterruptScope {
 public:
  InterruptScope() {
    g_ab_interrupts.store(0);
    g_ab_ending_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_ab_signal;
    sigemptyset(&sa.sa_mask);
    for (const int sig : kForwardedSignals) sigaddset(&sa.sa_mask, sig);  // one handler at a time
    sa.sa_flags = SA_RESTART;  // waitpid and the rest go on; the handler has passed the signal on
    for (std::size_t i = 0; i < std::size(kForwardedSignals); ++i) {
      const int sig = kForwardedSignals[i];
      sigaction(sig, nullptr, &previous_[i]);
      if (sig != SIGINT && previous_[i].sa_handler == SIG_IGN) continue;
      sigaction(sig, &sa, nullptr);
    }
  }
  ~InterruptScope() {
    for (std::size_t i = 0; i < std::size(kForwardedSignals); ++i) sigaction(kForwardedSignals[i], &previous_[i], nullptr);
  }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct sigaction previous_[std::size(kForwardedSignals)] {};
};

// The forwarded signals held back while a run starts: one that lands before its process
// group is known is passed on once the group is (below), not lost nor sent twice.
class BlockedSignals {
 public:
  BlockedSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : kForwardedSignals) sigaddset(&set, sig);
    ::sigprocmask(SIG_BLOCK, &set, &previous_);
  }
  ~BlockedSignals() { unblock(); }
  void unblock() {
    if (blocked_) ::sigprocmask(SIG_SETMASK, &previous_, nullptr);
    blocked_ = false;
  }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

 private:
  sigset_t previous_ {};
  bool blocked_ = true;
};

// The exit status of `sh -c cmd`, run in a process group of its own so that a Ctrl-C at the
// terminal reaches ab alone and ab passes each on once (a second ends the run at once, as
// it ends `rooftop run`).
int run_shell(const std::string& cmd) {
  BlockedSignals held;
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(fmt::format("cannot start `{}`: {}", cmd, std::strerror(errno)));
  if (child == 0) {
    ::setpgid(0, 0);
    // ab's handler is not the run's: the signals take their default action (one held back
    // since the fork ends the child now); one ignored when ab started stays ignored.
    for (const int sig : kForwardedSignals) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == on_ab_signal) ::signal(sig, SIG_DFL);
    }
    held.unblock();
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(child, child);
  g_run_group.store(child);
  // Signals that landed between the last look and the fork, when there was no run to pass
  // them to.
  if (g_ab_interrupts.load() > 0) ::kill(-child, SIGINT);
  if (const int sig = g_ab_ending_signal.load(); sig != 0) ::kill(-child, sig);
  held.unblock();
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno == EINTR) continue;
    const std::string why = std::strerror(errno);
    g_run_group.store(0);
    throw std::runtime_error(fmt::format("waiting for `{}`: {}", cmd, why));
  }
  g_run_group.store(0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 128;
}

// The last lines of a run's output, for a message: what a broken build said.
std::string last_lines(const fs::path& log, std::size_t count = 8) {
  std::ifstream in(log, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.size() > 200) line = line.substr(0, 200) + "...";
    lines.push_back(printable_text(line));  // no control bytes into ab's message
    if (lines.size() > count) lines.erase(lines.begin());
  }
  if (lines.empty()) return "  (it printed nothing)";
  std::string text;
  for (const auto& l : lines) text += (text.empty() ? "  | " : "\n  | ") + l;
  return text;
}

// Runs `binary run ARGS --out FILE`; a run whose points failed still yields its file.
RunResults run_build(const std::string& binary, char build, const std::vector<std::string>& args, const fs::path& out) {
  std::string cmd = shell_quote(binary) + " run";
  for (const auto& a : args) cmd += " " + shell_quote(a);
  // Its output goes beside its results: the progress of hundreds of runs would bury ab's own.
  auto log = out;
  log.replace_extension(".log");
  cmd += " --out " + shell_quote(out.string()) + " > " + shell_quote(log.string()) + " 2>&1";
  if (ab_interrupted()) throw Interrupted("interrupted (Ctrl-C)");
  std::error_code ignored;
  fs::remove(out, ignored);  // a file of an earlier ab in this --dir is not this run's
  const int code = run_shell(cmd);
  if (ab_interrupted() || code == kExitInterrupted) throw Interrupted("interrupted (Ctrl-C)");
  const auto broken = [&](const std::string& what) {
    return InputError(fmt::format("build {} ({}) {}; the end of its output ({}):\n{}\nfix the build or the run's "
                                  "arguments before comparing builds (the command: {})",
                                  build, binary, what, log.string(), last_lines(log), cmd));
  };
  if (code != kExitOk && code != kExitFailure) throw broken(fmt::format("exited {}", code));
  try {
    return load_results(out);
  } catch (const InputError& e) {
    throw broken(fmt::format("exited {} but left no results rooftop can read ({})", code, e.what()));
  }
}

// Whether a rooftop binary knows `run --skip-check` (a reference build may predate it).
bool knows_skip_check(const std::string& binary) {
  const std::string cmd = shell_quote(binary) + " run --help 2>/dev/null | grep -q -- --skip-check";
  return std::system(cmd.c_str()) == 0;
}

// "10m", "90s", "1h", "1h30m" or plain seconds; 0 where none was given.
double parse_budget(const std::string& text) {
  if (text.empty()) return 0;
  double total = 0, number = 0;
  bool digits = false;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t used = 0;
    try {
      number = std::stod(text.substr(i), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || number < 0) break;
    i += used;
    digits = true;
    const char unit = i < text.size() ? text[i] : 's';
    const double scale = unit == 'h' ? 3600 : unit == 'm' ? 60 : unit == 's' ? 1 : -1;
    if (scale < 0) break;
    total += number * scale;
    if (i < text.size()) ++i;
  }
  if (!digits || i < text.size() || !(total > 0) || !std::isfinite(total))
    throw InputError(fmt::format("--budget {}: give a time such as 10m, 90s or 1h30m", text));
  return total;
}

// The run's arguments with the filter narrowed to `names` (a subset of what the user's own
// filter chose, so replacing it is the intersection).
std::vector<std::string> narrowed(const std::vector<std::string>& args, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--filter") {
      ++i;
      continue;
    }
    if (args[i].starts_with("--filter=")) continue;
    out.push_back(args[i]);
  }
  out.push_back("--filter");
  out.push_back(exact_names_pattern(names));
  return out;
}
}  // namespace

void add_ab_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("ab", "Compare two builds on this machine in alternating pairs of runs, "
                                       "deciding each benchmark as soon as its interval allows");
  auto a = std::make_shared<std::string>(), b = std::make_shared<std::string>(), dir = std::make_shared<std::string>("ab-runs");
  auto blocks = std::make_shared<int>(0);
  auto budget = std::make_shared<std::string>();
  auto run_args = std::make_shared<std::vector<std::string>>();
  auto markdown = std::make_shared<std::string>(), junit = std::make_shared<std::string>(), json = std::make_shared<std::string>();
  auto tau = std::make_shared<double>(0), alpha = std::make_shared<double>(0);
  cmd->add_option("--a", *a, "rooftop binary of build A (the reference), e.g. old/bin/rooftop")->required();
  cmd->add_option("--b", *b, "rooftop binary of build B (the candidate)")->required();
  cmd->add_option("--budget", *budget, "Time to spend, e.g. 10m: the plan holds the pairs that fit it, from the length of "
                                       "the second pair; no new pair starts that would end past it (default: none)");
  cmd->add_option("--blocks", *blocks, "At most this many ABBA blocks, two pairs each (default 16, or 200 with --budget): "
                                       "the plan's pairs")
      ->check(CLI::Range(1, 200));
  cmd->add_option("--dir", *dir, "Where the runs' results files go")->capture_default_str();
  cmd->add_option("--alpha", *alpha, "Chance of any false FAIL over every benchmark, the suite's shift and every look "
                                     "(default 0.01)")
      ->check(finite_range(1e-12, 0.5));
  cmd->add_option("--tau", *tau, "Slowdown that matters (default 0.03 kernels, 0.05 systems)")
      ->check(finite_range(0, 10));
  cmd->add_option("--markdown", *markdown, "Write a Markdown summary");
  cmd->add_option("--junit", *junit, "Write JUnit XML");
  cmd->add_option("--json", *json, "Write the verdicts as JSON");
  cmd->add_option("run_args", *run_args, "Arguments of `rooftop run` after --, e.g. -- --suite gemm --tier smoke")
      ->required();
  cmd->callback([=, &exit_code] {
    for (const auto& bin : {*a, *b})
      if (!fs::exists(bin)) throw InputError(fmt::format("{}: no such rooftop binary", bin));
    // The verdicts' files are written after every pair ran: one that cannot be is said now.
    check_outputs({{"--markdown", *markdown}, {"--junit", *junit}, {"--json", *json}}, {{"--a", *a}, {"--b", *b}});
    if (fs::exists(*dir) && !fs::is_directory(*dir))
      throw InputError(fmt::format("--dir {}: is not a folder: give a folder for the runs' results", *dir));
    const double budget_s = parse_budget(*budget);
    const int max_blocks = *blocks > 0 ? *blocks : budget_s > 0 ? 200 : 16;
    std::error_code ec;
    fs::create_directories(*dir, ec);
    if (ec) throw InputError(fmt::format("--dir {}: cannot make the folder for the runs' results: {}", *dir, ec.message()));
    GateConfig config;
    // 0.01 over the whole comparison, however long it runs: under the 2% of suite gates a
    // nightly job can live with, and the exact intervals decide in fewer pairs than at 0.001.
    config.alpha = *alpha > 0 ? *alpha : 0.01;
    if (*tau > 0) config.tau_kernel = config.tau_system = *tau;
    SequentialAb ab(config, 2 * max_blocks);
    // The first pair checks every point of both builds; later pairs only time (the check
    // against the reference is most of a CPU run's time), where both builds can.
    const bool time_only = knows_skip_check(*a) && knows_skip_check(*b);
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    double last_pair_s = 0;
    std::string stopped = "every benchmark decided";
    bool interrupted = false;
    const InterruptScope interrupt_scope;
    while (!ab.done()) {
      if (budget_s > 0 && elapsed() + last_pair_s > budget_s) {
        stopped = fmt::format("the budget of {} ended", *budget);
        break;
      }
      const int k = ab.pairs();
      // The plan's pairs are fixed before the first look (pair 3): with a budget, twice those
      // that fit it at the length of pair 2, the first that only times. Pairs shorten as
      // benchmarks are decided (only the undecided run, with the panel); the budget stops
      // the comparison anyway, and stopping before the plan's last look keeps its errors.
      if (k == 2 && budget_s > 0)
        ab.set_max_pairs(
            std::min(2 * max_blocks, 2 + 2 * static_cast<int>((budget_s - elapsed()) / std::max(last_pair_s, 1e-3))));
      auto args = k == 0 ? *run_args : narrowed(*run_args, ab.to_run());
      if (k > 0 && time_only) args.push_back("--skip-check");
      // A B, then B A: a drift over a pair counts against each build in turn.
      const bool a_first = k % 2 == 0;
      const double pair_start = elapsed();
      RunResults ra, rb;
      for (int i = 0; i < 2; ++i) {
        const bool is_a = (i == 0) == a_first;
        const auto out = fs::path(*dir) / fmt::format("pair{:03d}-{}.json", k + 1, is_a ? 'a' : 'b');
        try {
          (is_a ? ra : rb) = run_build(is_a ? *a : *b, is_a ? 'A' : 'B', args, out);
        } catch (const Interrupted&) {
          interrupted = true;
          break;
        }
      }
      if (interrupted) {
        stopped = fmt::format("interrupted (Ctrl-C) in pair {}, which is left out", k + 1);
        break;
      }
      ab.add_pair(ra, rb);
      last_pair_s = elapsed() - pair_start;
      fmt::print(stderr, "[pair {}] {:.0f} s: {} of {} benchmarks undecided{}{}\n", ab.pairs(), elapsed(), ab.undecided().size(),
                 ab.plan().benchmarks, ab.suite_decided() ? "" : ", the suite's shift undecided",
                 ab.pairs() == 2 ? fmt::format("; the plan: at most {} pairs, a look at every pair from the {}rd",
                                               ab.max_pairs(), AbPlan::kFirstLook)
                                 : std::string());
    }
    // SIGTERM or SIGHUP: stop, no verdicts (whoever sent it is not waiting for them).
    const auto ended_by_signal = [&] {
      const int sig = g_ab_ending_signal.load();
      if (sig == 0) return false;
      fmt::print(stderr, "rooftop: ended by {} ({} pair(s) finished); the run in flight was ended too; the runs so far are "
                         "in {}\n", sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal", ab.pairs(), *dir);
      exit_code = 128 + sig;
      return true;
    };
    if (ended_by_signal()) return;
    if (stopped.starts_with("every") && (!ab.undecided().empty() || !ab.suite_decided()))
      stopped = fmt::format("the plan's last pair ({}) reached", ab.pairs());
    if (interrupted && ab.pairs() == 0)
      throw Interrupted(fmt::format("interrupted (Ctrl-C) before a pair finished: nothing to compare; the runs so far "
                                    "are in {}", *dir));
    auto report = ab.report(*a, *b);
    if (interrupted) report.interrupted = stopped;  // every view says it, and exit 130
    reports::print_gate_table(std::cout, report);
    fmt::print("{} pairs in {:.0f} s; stopped: {}\n", ab.pairs(), elapsed(), stopped);
    if (!markdown->empty()) write_file_atomically(*markdown, reports::gate_markdown(report));
    if (!junit->empty()) write_file_atomically(*junit, reports::gate_junit(report));
    if (!json->empty()) write_file_atomically(*json, reports::gate_json(report).dump(2) + "\n");
    if (ended_by_signal()) return;
    if (interrupted) {
      fmt::print(stderr, "rooftop: interrupted; the verdicts above are of the {} pair(s) that finished; their runs are "
                         "in {}\n", ab.pairs(), *dir);
      exit_code = kExitInterrupted;
      return;
    }
    // The gate's rule (harness/gate_exit.hpp): a suite-wide slowdown of B is a FAIL here
    // too (both builds ran on this machine in alternation, so the machine's drift cancels);
    // 6 where no FAIL but no all-clear (an interval wholly above tau, the shift undecided,
    // nothing decided).
    exit_code = gate_exit_code(report);
  });
}

}  // namespace rooftop::cli
