#include "reports/machine_text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <vector>

namespace rooftop::reports {
namespace {
double number(const nlohmann::ordered_json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0;
}
std::string text(const nlohmann::ordered_json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}
std::string plural(double n, const char* one, const char* many) { return fmt::format("{:.0f} {}", n, n == 1 ? one : many); }
}  // namespace

std::string machine_text(const nlohmann::ordered_json& device) {
  if (!device.is_object()) return {};
  const auto& p = device.contains("properties") && device["properties"].is_object() ? device["properties"] : device;
  std::vector<std::string> parts;
  if (const double cores = number(p, "physical_cores"); cores > 0) {
    const double threads = number(p, "logical_cpus"), used = number(p, "threads_used");
    std::string c = plural(cores, "core", "cores");
    if (threads > 0) c += " / " + plural(threads, "thread", "threads");
    if (used > 0 && used != threads) c += fmt::format(" ({:.0f} used)", used);
    parts.push_back(c);
    if (const double sockets = number(p, "sockets"); sockets > 0) parts.push_back(plural(sockets, "socket", "sockets"));
    // What this process may use: fewer CPUs than the machine has lower every roof.
    if (const double available = number(p, "cpus_available"); available > 0 && threads > 0 && available < threads)
      parts.push_back(fmt::format("{:.0f} of them available (affinity)", available));
    if (const double quota = number(p, "cpu_quota"); quota > 0) parts.push_back(fmt::format("cgroup quota {:g} CPUs", quota));
  }
  if (p.contains("virtual_machine") && p["virtual_machine"].is_boolean() && p["virtual_machine"].get<bool>()) {
    const auto hypervisor = text(p, "hypervisor");
    parts.push_back(hypervisor.empty() ? "virtual machine" : "virtual machine (" + hypervisor + ")");
  }
  if (const double sms = number(p, "multiprocessors"); sms > 0) parts.push_back(fmt::format("{:.0f} SMs", sms));
  if (const double bytes = number(p, "memory_bytes"); bytes > 0) parts.push_back(fmt::format("{:.1f} GiB memory", bytes / (1 << 30)));
  if (const double w = number(p, "power_limit_w"); w > 0) {
    // A limit set below the board's default lowers every roof: said beside it.
    const double board = number(p, "default_power_limit_w");
    parts.push_back(board > 0 && std::abs(board - w) >= 1 ? fmt::format("{:.0f} W power limit (default {:.0f} W)", w, board)
                                                          : fmt::format("{:.0f} W power limit", w));
  }
  if (const double mhz = number(p, "max_sm_clock_mhz"); mhz > 0) parts.push_back(fmt::format("SM clock up to {:.0f} MHz", mhz));
  if (const auto cc = text(p, "compute_capability"); !cc.empty()) parts.push_back("compute " + cc);
  // NVML's modes, where known: MIG and persistence only when on / off matter.
  const auto mode = [&](const char* key) -> std::optional<bool> {
    if (p.contains(key) && p[key].is_boolean()) return p[key].get<bool>();
    return std::nullopt;
  };
  if (const auto ecc = mode("ecc")) parts.push_back(*ecc ? "ECC on" : "ECC off");
  if (const auto mig = mode("mig"); mig && *mig) parts.push_back("MIG on");
  if (const auto persistence = mode("persistence"); persistence && !*persistence) parts.push_back("persistence off");
  if (const auto driver = text(p, "driver_version"); !driver.empty()) {
    const auto runtime = text(p, "driver_cuda_version");
    const auto vendor = text(p, "vendor");  // "CUDA" or "HIP": whose version the driver's is
    parts.push_back(runtime.empty() ? "driver " + driver
                                    : fmt::format("driver {} ({} {})", driver, vendor.empty() ? "CUDA" : vendor, runtime));
  }
  if (const auto isa = text(p, "onednn_isa"); !isa.empty()) parts.push_back(isa);
  if (const auto bus = text(p, "pci_bus_id"); !bus.empty()) parts.push_back("PCI " + bus);
  std::string out;
  for (const auto& s : parts) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace rooftop::reports
