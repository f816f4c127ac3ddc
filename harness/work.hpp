#pragma once
// The work one iteration of a problem must do. Roofline numbers are computed from it by
// the harness; a suite only declares it.
namespace rooftop {

struct Work {
  double flops = 0;  // operations: FLOPs, or integer multiply-adds x2 for integer dtypes
  double bytes = 0;  // compulsory bytes: every input read once, every output written once
  double arithmetic_intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

}  // namespace rooftop
