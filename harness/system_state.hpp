#pragma once
// How busy and how stable the host is around a measurement: load, other runnable work, CPU
// time taken by other processes and by the hypervisor (steal), the frequency governor, turbo
// and thermal throttling (pyperf's `system show` reads the same). The readings go into the
// results ("conditions", docs/results.md) and a busy host gets a warning above the table.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rooftop {

// One reading; a field that this host does not expose stays unknown (negative or empty).
struct SystemReading {
  std::string when;           // "before", "after", "characterize round 3"
  std::string at;             // ISO 8601 UTC
  int cpus = 0;               // CPUs online
  double load1 = -1;          // 1-minute load average
  int runnable_others = -1;   // runnable threads besides the reader (/proc/stat procs_running - 1)
  double others_busy = -1;    // share of all CPUs' time busy while rooftop slept for `window_s`
  double steal = -1;          // share of all CPUs' time the hypervisor gave to other guests, same window
  double window_s = 0;
  std::string governor;       // cpufreq scaling governor of cpu0; "" where there is no cpufreq
  std::optional<bool> turbo;  // intel_pstate/no_turbo or cpufreq/boost; none where neither exists
  long long throttle_events = -1;  // core and package thermal throttle counts, summed over the CPUs
};

// Reads the host now, sleeping `window_s` to see what the other processes do meanwhile.
SystemReading read_system(const std::string& when, double window_s = 0.25);

// Thresholds, stated: a busy loop on one of 2 CPUs shows others_busy 0.5; an idle VM 0.00-0.05.
inline constexpr double kBusyOthersShare = 0.15;
inline constexpr double kBusyStealShare = 0.05;

struct Contention {
  bool busy = false;                 // timings are disturbed: the table and report say so
  std::vector<std::string> reasons;  // each with its reading: "other processes used 50% of the 2 CPUs"
  std::vector<std::string> notes;    // stability facts that do not make the host busy (governor, turbo)
};

// Judges a run's readings (its first is taken before, its last after the measurement).
// A reading with an unknown field is judged on the fields it has.
Contention assess(const std::vector<SystemReading>& readings);

nlohmann::ordered_json reading_to_json(const SystemReading& reading);
// The results' "conditions" object: the readings and the verdict.
nlohmann::ordered_json conditions_to_json(const std::vector<SystemReading>& readings);

// Parsers of the /proc files, apart so that tests give them text.
struct CpuTimes {
  unsigned long long busy = 0, idle = 0, steal = 0;  // jiffies summed over all CPUs
};
CpuTimes parse_cpu_times(const std::string& proc_stat);
int parse_procs_running(const std::string& proc_stat);  // -1 when absent
double parse_load1(const std::string& proc_loadavg);    // -1 when unreadable

}  // namespace rooftop
