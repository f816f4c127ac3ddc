#pragma once
// The vector ISA rooftop's own CPU kernels may use: what the CPU has, capped by
// ROOFTOP_MAX_CPU_ISA (or, where that is unset, by oneDNN's ONEDNN_MAX_CPU_ISA), so that
// one variable runs every ISA-dependent path of an AVX2-only machine on a larger one.
// (The auto-vectorised loops built with GCC's target_clones pick their copy by cpuid alone:
// the cap leaves them at the CPU's width; one source each, what they compute is the same.)
#include <string>
#include <string_view>

namespace rooftop::cpu {

// Ordered: each level includes the ones below it.
enum class IsaLevel { x86_64 = 0, avx2 = 1, avx512 = 2, avx512_bf16 = 3, amx = 4 };

// What this CPU has (cpuid through GCC's __builtin_cpu_supports).
IsaLevel detected_isa_level();
// The cap the environment sets (IsaLevel::amx where none); throws InputError naming the
// variable and the values it takes when it holds anything else.
IsaLevel isa_cap_from(std::string_view rooftop_value, std::string_view onednn_value);
// min(detected, cap), read once.
IsaLevel usable_isa_level();
inline bool isa_usable(IsaLevel level) { return usable_isa_level() >= level; }
std::string isa_level_name(IsaLevel level);  // "avx2", "avx512_bf16", ...
// "" when nothing caps the ISA here, else e.g. "capped at avx2 by ONEDNN_MAX_CPU_ISA".
std::string isa_cap_note();

}  // namespace rooftop::cpu
