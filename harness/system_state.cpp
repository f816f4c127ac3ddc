#include "harness/system_state.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/results.hpp"

namespace rooftop {
namespace {
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// This process's CPU time (all threads), in clock ticks: its own spinning threads are not
// "other processes".
unsigned long long own_ticks() {
  const std::string stat = read_all("/proc/self/stat");
  const auto close = stat.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return utime + stime;
}

std::optional<bool> turbo_state() {
  const auto no_turbo = first_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
  if (!no_turbo.empty()) return no_turbo == "0";
  const auto boost = first_line("/sys/devices/system/cpu/cpufreq/boost");
  if (!boost.empty()) return boost == "1";
  return std::nullopt;
}

long long throttle_events(int cpus) {
  long long total = -1;
  for (int c = 0; c < cpus; ++c)
    for (const char* counter : {"core_throttle_count", "package_throttle_count"}) {
      const auto v = first_line(fmt::format("/sys/devices/system/cpu/cpu{}/thermal_throttle/{}", c, counter));
      if (!v.empty()) total = std::max(total, 0LL) + std::atoll(v.c_str());
    }
  return total;
}

std::string percent(double share) { return fmt::format("{:.0f}%", 100 * share); }
}  // namespace

CpuTimes parse_cpu_times(const std::string& proc_stat) {
  std::istringstream in(proc_stat);
  std::string label;
  CpuTimes t;
  if (!(in >> label) || label != "cpu") return t;
  unsigned long long v[8] = {};  // user nice system idle iowait irq softirq steal
  for (auto& x : v)
    if (!(in >> x)) break;
  t.busy = v[0] + v[1] + v[2] + v[5] + v[6];
  t.idle = v[3] + v[4];
  t.steal = v[7];
  return t;
}

int parse_procs_running(const std::string& proc_stat) {
  const auto at = proc_stat.find("\nprocs_running ");
  return at == std::string::npos ? -1 : std::atoi(proc_stat.c_str() + at + 15);
}

double parse_load1(const std::string& proc_loadavg) {
  char* end = nullptr;
  const double v = std::strtod(proc_loadavg.c_str(), &end);
  return end == proc_loadavg.c_str() ? -1 : v;
}

SystemReading read_system(const std::string& when, double window_s) {
  SystemReading r;
  r.when = when;
  r.at = utc_now_iso8601();
  r.cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  r.load1 = parse_load1(read_all("/proc/loadavg"));
  const std::string stat0 = read_all("/proc/stat");
  const int running = parse_procs_running(stat0);
  r.runnable_others = running < 0 ? -1 : std::max(0, running - 1);
  if (window_s > 0) {
    const auto t0 = parse_cpu_times(stat0);
    const auto own0 = own_ticks();
    std::this_thread::sleep_for(std::chrono::duration<double>(window_s));
    const auto t1 = parse_cpu_times(read_all("/proc/stat"));
    const auto own1 = own_ticks();
    const double total = static_cast<double>((t1.busy + t1.idle + t1.steal) - (t0.busy + t0.idle + t0.steal));
    if (total > 0) {
      const double own = static_cast<double>(own1 - own0);
      r.others_busy = std::max(0.0, (static_cast<double>(t1.busy - t0.busy) - own) / total);
      r.steal = static_cast<double>(t1.steal - t0.steal) / total;
      r.window_s = window_s;
    }
  }
  r.governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  r.turbo = turbo_state();
  r.throttle_events = throttle_events(r.cpus);
  return r;
}

Contention assess(const std::vector<SystemReading>& readings) {
  Contention c;
  if (readings.empty()) return c;
  double worst_busy = -1, worst_steal = -1;
  const SystemReading* busiest = nullptr;
  for (const auto& r : readings) {
    if (r.others_busy > worst_busy) { worst_busy = r.others_busy; busiest = &r; }
    worst_steal = std::max(worst_steal, r.steal);
  }
  if (worst_busy >= kBusyOthersShare)
    c.reasons.push_back(fmt::format("other processes used {} of the {} CPUs ({})", percent(worst_busy), busiest->cpus,
                                    busiest->when));
  if (worst_steal >= kBusyStealShare)
    c.reasons.push_back(fmt::format("the hypervisor gave {} of the CPU time to other guests (steal)", percent(worst_steal)));
  const auto& first = readings.front();
  const auto& last = readings.back();
  if (first.throttle_events >= 0 && last.throttle_events > first.throttle_events)
    c.reasons.push_back(fmt::format("the CPUs were thermally throttled {} times", last.throttle_events - first.throttle_events));
  // The load average lags by a minute: said, but it alone does not make a run busy.
  if (first.load1 >= 0 && first.cpus > 0 && first.load1 > first.cpus)
    c.notes.push_back(fmt::format("load average {:.2f} on {} CPUs before the run", first.load1, first.cpus));
  if (!first.governor.empty() && first.governor != "performance")
    c.notes.push_back(fmt::format("governor '{}': clocks follow the load (pyperf system tune sets 'performance')",
                                  first.governor));
  c.busy = !c.reasons.empty();
  return c;
}

ojson reading_to_json(const SystemReading& r) {
  auto known = [](double v) { return v >= 0 ? ojson(v) : ojson(nullptr); };
  return {{"when", r.when},
          {"at", r.at},
          {"cpus", r.cpus},
          {"load1", known(r.load1)},
          {"runnable_others", r.runnable_others >= 0 ? ojson(r.runnable_others) : ojson(nullptr)},
          {"others_busy", known(r.others_busy)},
          {"steal", known(r.steal)},
          {"window_s", r.window_s},
          {"governor", r.governor.empty() ? ojson(nullptr) : ojson(r.governor)},
          {"turbo", r.turbo ? ojson(*r.turbo) : ojson(nullptr)},
          {"throttle_events", r.throttle_events >= 0 ? ojson(r.throttle_events) : ojson(nullptr)}};
}

ojson conditions_to_json(const std::vector<SystemReading>& readings) {
  const auto c = assess(readings);
  ojson j;
  j["busy"] = c.busy;
  j["reasons"] = c.reasons;
  j["notes"] = c.notes;
  j["readings"] = ojson::array();
  for (const auto& r : readings) j["readings"].push_back(reading_to_json(r));
  return j;
}

}  // namespace rooftop
