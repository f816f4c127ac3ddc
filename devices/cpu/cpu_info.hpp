#pragma once
// What this CPU is: model, cores, ISA extensions, caches and memory.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "devices/cpu/host_limits.hpp"

namespace rooftop::cpu {

struct CacheLevel {
  int level = 0;                 // 1, 2, 3
  std::string type;              // "Data", "Unified"
  std::uint64_t size_bytes = 0;  // one instance
  int instances = 0;             // how many of it the online CPUs share out
};

struct IsaFlags {
  bool avx2 = false, fma = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512_vnni = false, avx512_bf16 = false;
  bool amx_tile = false, amx_bf16 = false, amx_int8 = false;
};

struct CpuInfo {
  std::string vendor;
  std::string model_name;
  int family = 0, model = 0, stepping = 0;
  int logical_cpus = 0;
  int physical_cores = 0;
  int sockets = 0;
  IsaFlags isa;
  std::vector<CacheLevel> caches;  // data and unified caches, L1 first
  std::uint64_t memory_bytes = 0;
  std::string onednn_isa;  // the ISA oneDNN dispatches to here
  std::string rooftop_isa;  // the ISA rooftop's own kernels use (isa_level.hpp)
  std::string isa_cap;      // "" or what caps the ISA below the CPU's (ROOFTOP_/ONEDNN_MAX_CPU_ISA)
  HostLimits limits;       // affinity, cgroup quota, hypervisor: not in the fingerprint
};

CpuInfo detect_cpu();
nlohmann::ordered_json to_json(const CpuInfo& info);
std::vector<std::string> isa_names(const IsaFlags& isa);
// "cpu-<model>-<cores>c-<hash>": stable for the same hardware, safe as a directory name.
std::string fingerprint(const CpuInfo& info);
// Average current clock of the online CPUs from cpufreq, or /proc/cpuinfo; 0 if unknown.
double current_clock_mhz();
// MemAvailable from /proc/meminfo; 0 if unknown.
double available_memory_bytes();

}  // namespace rooftop::cpu
