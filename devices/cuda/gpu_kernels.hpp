#pragma once
// Kernels shared by the CUDA backend and the suites: seeded random fills on the device,
// output poisoning and its check, the bandwidth and FMA ceiling kernels, and a spin.
// All are queued on gpu::stream(); each launch is checked.
#include <cstddef>
#include <cstdint>

#include "harness/dtype.hpp"

namespace rooftop::gpu {

// Why fp8 points are skipped in a build whose vendor has no fp8 type (ROOFTOP_GPU_HAS_FP8 0).
inline constexpr const char* kNoFp8 =
    "fp8 (e4m3): this HIP build has no fp8 type (ROCm 5.2; gfx90a and gfx908 have no fp8 units, MI300 needs ROCm 6)";

// Uniform values in [lo, hi], rounded to `dtype`'s storage (tf32 is stored as fp32, fp8
// as e4m3, int8 as whole numbers). Counter-based: the same seed gives the same data.
void fill_uniform(Dtype dtype, void* data, std::size_t count, std::uint64_t seed, double lo, double hi);

// Element types of outputs, which poisoning and its check need.
enum class OutputType { f32, bf16, f16, s32 };
OutputType output_type(Dtype dtype);  // fp8 results are bf16, int8 results s32
// NaN for floating types, INT32_MIN for s32: a value no correct kernel writes.
void poison(OutputType type, void* data, std::size_t count);
// How many elements still hold the poison (waits for the result).
std::uint64_t count_poisoned(OutputType type, const void* data, std::size_t count);

// Bandwidth kernels over 16-byte words; `bytes` must be a multiple of 16. `blocks` x 512
// threads, 4 words in flight per thread. Reads bypass L1 so repeated passes hit L2.
void read_words(const void* data, std::size_t bytes, int passes, int blocks, int* sink);
void write_words(void* data, std::size_t bytes, int blocks);
void copy_words(void* dst, const void* src, std::size_t bytes, int blocks);

// fp32 FMA chains in registers: returns the FLOPs the launch performs.
double fma_chains(float* sink, int blocks, int threads, int iterations);

// One thread that waits `ns` nanoseconds on the GPU's clock: queued before a timed region,
// it keeps the host's launch gap out of the device-side timing.
void spin(unsigned long long ns);

}  // namespace rooftop::gpu
