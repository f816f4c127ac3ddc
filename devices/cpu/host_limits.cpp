#include "devices/cpu/host_limits.hpp"

#include <cpuid.h>
#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rooftop::cpu {
namespace {
std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}
}  // namespace

double parse_cgroup_cpu_max(const std::string& cpu_max) {
  std::istringstream in(cpu_max);
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return 0;
  return std::atof(quota.c_str()) / period;
}

double parse_cgroup_v1_quota(const std::string& quota_us, const std::string& period_us) {
  const double quota = std::atof(quota_us.c_str()), period = std::atof(period_us.c_str());
  return quota > 0 && period > 0 ? quota / period : 0;
}

std::string hypervisor_name(const std::string& signature) {
  static const std::pair<const char*, const char*> known[] = {
      {"KVMKVMKVM", "KVM"},          {"Microsoft Hv", "Hyper-V"}, {"VMwareVMware", "VMware"},
      {"XenVMMXenVMM", "Xen"},       {"TCGTCGTCGTCG", "QEMU (TCG)"}, {" lrpepyh  vr", "Parallels"},
      {"bhyve bhyve ", "bhyve"},     {"ACRNACRNACRN", "ACRN"},    {"VBoxVBoxVBox", "VirtualBox"},
      {"QNXQVMBSQG", "QNX"},         {"EVMMEVMMEVMM", "Intel EVMM"}};
  for (const auto& [sig, name] : known)
    if (signature.rfind(sig, 0) == 0) return name;
  std::string printable;
  for (char c : signature)
    if (c >= ' ' && c <= '~') printable += c;
  return printable.empty() ? "unknown" : printable;
}

HostLimits detect_host_limits() {
  HostLimits h;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) h.cpus_available = CPU_COUNT(&set);
  h.cpu_quota = parse_cgroup_cpu_max(first_line("/sys/fs/cgroup/cpu.max"));
  if (h.cpu_quota == 0)
    h.cpu_quota = parse_cgroup_v1_quota(first_line("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
                                        first_line("/sys/fs/cgroup/cpu/cpu.cfs_period_us"));
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) h.virtual_machine = (c >> 31) & 1;
  if (h.virtual_machine) {
    // Leaf 0x40000000 is the hypervisor's: its vendor signature in ebx, ecx, edx.
    __cpuid(0x40000000, a, b, c, d);
    char signature[13] = {};
    std::memcpy(signature, &b, 4);
    std::memcpy(signature + 4, &c, 4);
    std::memcpy(signature + 8, &d, 4);
    h.hypervisor = hypervisor_name(std::string(signature, 12));
  } else if (const auto type = first_line("/sys/hypervisor/type"); !type.empty()) {
    h.virtual_machine = true;  // a Xen guest may hide the cpuid bit
    h.hypervisor = type;
  }
  return h;
}

}  // namespace rooftop::cpu
