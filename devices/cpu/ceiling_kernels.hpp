#pragma once
// Kernels that measure the CPU's ceilings, in the Empirical Roofline Toolkit's way:
// a FLOP kernel that keeps every FMA unit busy, and a read kernel swept over working sets.
#include <cstddef>
#include <cstdint>
#include <string>

namespace rooftop::cpu {

struct FmaKernel {
  std::string unit;           // "avx512_fma", "avx2_fma", "scalar"
  int lanes = 1;              // fp32 lanes per instruction
  int accumulators = 1;       // independent chains, to cover the FMA latency
};
// The widest FMA kernel this CPU runs.
FmaKernel best_fma_kernel();
// Runs `iterations` rounds of `accumulators` dependent-chain FMAs on one thread;
// returns a value that depends on every FMA, so none is optimised away.
float run_fma_kernel(const FmaKernel& kernel, std::int64_t iterations, float seed);
inline double fma_kernel_flops(const FmaKernel& k, std::int64_t iterations) {
  return 2.0 * static_cast<double>(k.lanes) * k.accumulators * static_cast<double>(iterations);
}

// Sums `count` floats (a multiple of 256), `passes` times over, with wide loads and
// independent accumulators; with `prefetch`, software prefetches ahead of the loads
// (AVX-512 path only).
float read_sum(const float* data, std::size_t count, int passes, bool prefetch);

}  // namespace rooftop::cpu
