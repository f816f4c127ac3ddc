#include "devices/cpu/isa_level.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "harness/errors.hpp"

namespace rooftop::cpu {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

// Our names and oneDNN's (its ONEDNN_MAX_CPU_ISA values), each to the level it allows.
bool parse_level(std::string_view value, IsaLevel& level) {
  const std::string v = upper(value);
  if (v == "X86_64" || v == "SSE41" || v == "AVX") level = IsaLevel::x86_64;
  else if (v == "AVX2" || v == "AVX2_VNNI") level = IsaLevel::avx2;
  else if (v == "AVX512" || v == "AVX512_CORE" || v == "AVX512_CORE_VNNI") level = IsaLevel::avx512;
  else if (v == "AVX512_BF16" || v == "AVX512_CORE_BF16") level = IsaLevel::avx512_bf16;
  else if (v == "AMX" || v == "AVX512_CORE_AMX" || v == "ALL") level = IsaLevel::amx;
  else return false;
  return true;
}

const char* cap_variable() {
  const char* ours = std::getenv("ROOFTOP_MAX_CPU_ISA");
  if (ours && *ours) return "ROOFTOP_MAX_CPU_ISA";
  const char* onednn = std::getenv("ONEDNN_MAX_CPU_ISA");
  return onednn && *onednn ? "ONEDNN_MAX_CPU_ISA" : nullptr;
}

std::string_view env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string_view(v) : std::string_view();
}

}  // namespace

IsaLevel detected_isa_level() {
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl");
  if (avx512 && __builtin_cpu_supports("avx512bf16")) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
    return (d >> 24) & 1 ? IsaLevel::amx : IsaLevel::avx512_bf16;  // AMX-TILE
  }
  if (avx512) return IsaLevel::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return IsaLevel::avx2;
  return IsaLevel::x86_64;
}

IsaLevel isa_cap_from(std::string_view rooftop_value, std::string_view onednn_value) {
  const bool ours = !rooftop_value.empty();
  const std::string_view value = ours ? rooftop_value : onednn_value;
  if (value.empty()) return IsaLevel::amx;
  IsaLevel level = IsaLevel::amx;
  if (!parse_level(value, level))
    throw InputError(fmt::format(
        "{}={} is no ISA rooftop knows: use x86_64, avx2, avx512, avx512_bf16 or amx (or oneDNN's names, "
        "e.g. AVX512_CORE), or unset it",
        ours ? "ROOFTOP_MAX_CPU_ISA" : "ONEDNN_MAX_CPU_ISA", value));
  return level;
}

IsaLevel usable_isa_level() {
  static const IsaLevel level =
      std::min(detected_isa_level(), isa_cap_from(env("ROOFTOP_MAX_CPU_ISA"), env("ONEDNN_MAX_CPU_ISA")));
  return level;
}

std::string isa_level_name(IsaLevel level) {
  switch (level) {
    case IsaLevel::x86_64: return "x86_64";
    case IsaLevel::avx2: return "avx2";
    case IsaLevel::avx512: return "avx512";
    case IsaLevel::avx512_bf16: return "avx512_bf16";
    case IsaLevel::amx: return "amx";
  }
  return "unknown";
}

std::string isa_cap_note() {
  const char* variable = cap_variable();
  if (!variable || usable_isa_level() == detected_isa_level()) return "";
  return fmt::format("capped at {} by {} (the CPU has {})", isa_level_name(usable_isa_level()), variable,
                     isa_level_name(detected_isa_level()));
}

}  // namespace rooftop::cpu
