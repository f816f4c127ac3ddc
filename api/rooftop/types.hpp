#pragma once
// Types shared by rooftop's public API (rooftop/rooftop.hpp) and its harness: one
// definition, so a benchmark declared through the API and a built-in suite mean the same.
namespace rooftop {

// The work one iteration of a problem must do. Roofline numbers are computed from it by
// the harness; a benchmark only declares it.
struct Work {
  double flops = 0;  // operations: FLOPs, or integer multiply-adds x2 for integer dtypes
  double bytes = 0;  // compulsory bytes: every input read once, every output written once
  double arithmetic_intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

// How much of a sweep runs: smoke (seconds, a check), quick (before a merge), full (nightly).
enum class Tier { smoke, quick, full };

}  // namespace rooftop
