#include "devices/cpu/cpu_info.hpp"

#include <cpuid.h>
#include <dnnl.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "devices/cpu/isa_level.hpp"
#include "harness/fingerprint.hpp"

namespace rooftop::cpu {
namespace {
namespace fs = std::filesystem;

std::string read_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::uint64_t parse_size(const std::string& text) {  // "48K", "2048K", "36M"
  std::uint64_t n = std::strtoull(text.c_str(), nullptr, 10);
  if (text.find('K') != std::string::npos) n <<= 10;
  if (text.find('M') != std::string::npos) n <<= 20;
  return n;
}

IsaFlags read_isa() {
  IsaFlags f;
  unsigned a, b, c, d;
  if (__get_cpuid(1, &a, &b, &c, &d)) f.fma = (c >> 12) & 1;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    f.avx2 = (b >> 5) & 1;
    f.avx512f = (b >> 16) & 1;
    f.avx512bw = (b >> 30) & 1;
    f.avx512vl = (b >> 31) & 1;
    f.avx512_vnni = (c >> 11) & 1;
    f.amx_bf16 = (d >> 22) & 1;
    f.amx_tile = (d >> 24) & 1;
    f.amx_int8 = (d >> 25) & 1;
  }
  if (__get_cpuid_count(7, 1, &a, &b, &c, &d)) f.avx512_bf16 = (a >> 5) & 1;
  return f;
}

std::string onednn_isa_name() {
  using dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case cpu_isa::sse41: return "sse41";
    case cpu_isa::avx: return "avx";
    case cpu_isa::avx2: return "avx2";
    case cpu_isa::avx2_vnni: return "avx2_vnni";
    case cpu_isa::avx512_core: return "avx512_core";
    case cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}
}  // namespace

CpuInfo detect_cpu() {
  CpuInfo info;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::set<std::string> sockets;
  std::string physical_id = "0";
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "vendor_id" && info.vendor.empty()) info.vendor = value;
    else if (key == "model name" && info.model_name.empty()) info.model_name = value;
    else if (key == "cpu family" && !info.family) info.family = std::stoi(value);
    else if (key == "model" && !info.model) info.model = std::stoi(value);
    else if (key == "stepping" && !info.stepping) info.stepping = std::stoi(value);
    else if (key == "physical id") { physical_id = value; sockets.insert(value); }
    else if (key == "core id") cores.insert({physical_id, value});
  }
  info.logical_cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  info.physical_cores = cores.empty() ? info.logical_cpus : static_cast<int>(cores.size());
  info.sockets = sockets.empty() ? 1 : static_cast<int>(sockets.size());
  info.isa = read_isa();

  // Caches of cpu0, with how many instances the online CPUs have of each.
  const fs::path base = "/sys/devices/system/cpu/cpu0/cache";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(base, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    CacheLevel cache;
    cache.level = std::atoi(read_line(entry.path() / "level").c_str());
    cache.type = read_line(entry.path() / "type");
    if (cache.type == "Instruction") continue;
    cache.size_bytes = parse_size(read_line(entry.path() / "size"));
    // shared_cpu_list like "0-1" or "0,2": count the CPUs sharing one instance.
    int sharing = 0;
    std::stringstream list(read_line(entry.path() / "shared_cpu_list"));
    std::string range;
    while (std::getline(list, range, ',')) {
      const auto dash = range.find('-');
      sharing += dash == std::string::npos ? 1 : std::stoi(range.substr(dash + 1)) - std::stoi(range.substr(0, dash)) + 1;
    }
    cache.instances = std::max(1, info.logical_cpus / std::max(1, sharing));
    info.caches.push_back(cache);
  }
  std::sort(info.caches.begin(), info.caches.end(), [](auto& a, auto& b) { return a.level < b.level; });

  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemTotal:") { info.memory_bytes = kib * 1024; break; }
  info.onednn_isa = onednn_isa_name();
  info.rooftop_isa = isa_level_name(usable_isa_level());
  info.isa_cap = isa_cap_note();
  info.limits = detect_host_limits();
  return info;
}

std::vector<std::string> isa_names(const IsaFlags& f) {
  std::vector<std::string> names;
  auto add = [&](bool on, const char* name) { if (on) names.emplace_back(name); };
  add(f.avx2, "avx2");
  add(f.fma, "fma");
  add(f.avx512f, "avx512f");
  add(f.avx512bw, "avx512bw");
  add(f.avx512vl, "avx512vl");
  add(f.avx512_vnni, "avx512_vnni");
  add(f.avx512_bf16, "avx512_bf16");
  add(f.amx_tile, "amx_tile");
  add(f.amx_bf16, "amx_bf16");
  add(f.amx_int8, "amx_int8");
  return names;
}

nlohmann::ordered_json to_json(const CpuInfo& i) {
  nlohmann::ordered_json caches = nlohmann::ordered_json::array();
  for (const auto& c : i.caches)
    caches.push_back({{"level", c.level}, {"type", c.type}, {"size_bytes", c.size_bytes}, {"instances", c.instances}});
  return {{"vendor", i.vendor},
          {"model_name", i.model_name},
          {"family", i.family},
          {"model", i.model},
          {"stepping", i.stepping},
          {"sockets", i.sockets},
          {"physical_cores", i.physical_cores},
          {"logical_cpus", i.logical_cpus},
          {"isa", isa_names(i.isa)},
          {"onednn_isa", i.onednn_isa},
          {"rooftop_isa", i.rooftop_isa},
          {"isa_cap", i.isa_cap.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(i.isa_cap)},
          {"caches", caches},
          {"memory_bytes", i.memory_bytes},
          {"cpus_available", i.limits.cpus_available},
          {"cpu_quota", i.limits.cpu_quota > 0 ? nlohmann::ordered_json(i.limits.cpu_quota) : nlohmann::ordered_json(nullptr)},
          {"virtual_machine", i.limits.virtual_machine},
          {"hypervisor", i.limits.hypervisor.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(i.limits.hypervisor)}};
}

std::string fingerprint(const CpuInfo& i) {
  // What defines the hardware's roof: model, core count, ISA, caches, memory (to the GiB).
  std::string identity = fmt::format("{}|{}|{}-{}-{}|{}x{}|{}|{}", i.vendor, i.model_name, i.family, i.model,
                                     i.stepping, i.sockets, i.physical_cores, i.logical_cpus,
                                     (i.memory_bytes + (1u << 29)) >> 30);
  for (const auto& n : isa_names(i.isa)) identity += "|" + n;
  // A capped ISA has other ceilings: its profile is another machine's.
  if (!i.isa_cap.empty()) identity += "|cap:" + i.rooftop_isa;
  for (const auto& c : i.caches) identity += fmt::format("|L{}:{}x{}", c.level, c.size_bytes, c.instances);
  return make_fingerprint("cpu", i.model_name, fmt::format("{}c", i.logical_cpus), identity);
}

double current_clock_mhz() {
  double sum = 0;
  int n = 0;
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  for (long c = 0; c < cpus; ++c) {
    const auto khz = read_line(fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/scaling_cur_freq", c));
    if (!khz.empty()) { sum += std::atof(khz.c_str()) / 1000.0; ++n; }
  }
  if (n) return sum / n;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("cpu MHz", 0) == 0) { sum += std::atof(line.substr(line.find(':') + 1).c_str()); ++n; }
  return n ? sum / n : 0.0;
}

double available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024.0;
  return 0;
}

}  // namespace rooftop::cpu
