#pragma once
// What this process may actually use of the machine, and what the machine is: the CPUs of
// its affinity mask, a cgroup CPU quota (a container's --cpus), and whether it is a virtual
// machine and under which hypervisor. A 2-vCPU VM and a 2-core box have different roofs.
#include <string>

namespace rooftop::cpu {

struct HostLimits {
  int cpus_available = 0;       // CPUs in this process's affinity mask
  double cpu_quota = 0;         // cgroup quota in CPUs (1.5 = 150 ms per 100 ms); 0: none
  bool virtual_machine = false; // the cpuid "hypervisor" bit, or /sys/hypervisor
  std::string hypervisor;       // "KVM", "Hyper-V", "VMware", "Xen", ...; "" on bare metal
};

HostLimits detect_host_limits();

// Parsers, apart so that tests give them text.
// cgroup v2 cpu.max ("max 100000", "150000 100000"): the quota in CPUs, 0 when unlimited.
double parse_cgroup_cpu_max(const std::string& cpu_max);
// cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us: the quota in CPUs, 0 when -1 (none).
double parse_cgroup_v1_quota(const std::string& quota_us, const std::string& period_us);
// The 12-byte vendor signature of cpuid leaf 0x40000000 as a name; the signature itself
// when unknown.
std::string hypervisor_name(const std::string& signature);

}  // namespace rooftop::cpu
