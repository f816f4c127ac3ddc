#pragma once
// One collective, as nccl-tests lays it out: its byte counts, data, bus factor and call.
// Each lives in its own file (all_reduce.cpp, ...); the instance on a transport in
// collective_instance.cpp, the timing in harness/lockstep_loop.cpp.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "harness/transport.hpp"

namespace rooftop::collectives {

// The element counts of one rank's buffers for a collective of `size` bytes on n ranks.
struct Counts {
  std::size_t send = 0, recv = 0;  // elements in each buffer
  std::size_t call = 0;            // the count the primitive takes
};

// The value rank r puts at element i of its send buffer, in every collective: integers in [-3, 3], so sums are
// exact (bf16 to 85 ranks, fp16 far beyond, int8 to 42, fp8 e4m3 to 5: kMaxExactRanks) and
// any wrong or unwritten element shows.
inline double pattern(int rank, std::size_t i) { return static_cast<double>((i + 3 * static_cast<std::size_t>(rank)) % 7) - 3.0; }
// Element i summed over all n ranks: what a reduction must deliver there.
inline double pattern_sum(int ranks, std::size_t i) {
  double sum = 0;
  for (int q = 0; q < ranks; ++q) sum += pattern(q, i);
  return sum;
}

// The most ranks whose sums of pattern() stay exact in `dtype` (integers to 16 in e4m3,
// 256 in bf16, 127 in int8).
int max_exact_ranks(Dtype dtype);

struct Collective {
  std::string_view name;
  bool reduces;        // needs a sum: not for dtypes without arithmetic
  bool has_in_place;   // whether an in-place form exists
  // nccl-tests' size: the bytes its algbw divides by (the larger buffer of a rank).
  Counts (*counts)(std::size_t size_bytes, std::size_t element_bytes, int ranks);
  // algbw x factor = busbw: the bandwidth each link carries in the ring algorithm.
  double (*bus_factor)(int ranks);
  // In place, the smaller buffer sits inside the larger at this element offset (all_gather:
  // the send chunk at the rank's slot; reduce_scatter: the result at the rank's chunk).
  std::size_t (*in_place_offset)(int rank, const Counts& c);
  // The value rank r must hold at recv element i; false where nothing is defined (the
  // non-root ranks of reduce).
  bool (*expected)(int rank, std::size_t i, const Counts& c, int ranks, double& value);
  // Queues the primitive for local rank `local` (between Transport::begin and end).
  void (*run)(Transport& t, int local, const void* send, void* recv, const Counts& c, Dtype dtype);
};

// For the collectives whose send and receive buffers are each the whole message.
inline Counts whole_message(std::size_t size, std::size_t element_bytes, int) {
  return {size / element_bytes, size / element_bytes, size / element_bytes};
}
// For those whose in-place form, if any, shares one buffer from its start.
inline std::size_t same_start(int, const Counts&) { return 0; }

// A collective registers itself from its own file, as a family does (harness/family.hpp):
// `const RegisterCollective kRegister(kMine);` beside its definition. Adding one touches no
// other source file.
struct RegisterCollective {
  explicit RegisterCollective(const Collective& collective);
};
const Collective* find_collective(std::string_view name);  // null if unknown

// The seven of nccl-tests, for the tests that check their formulas.
extern const Collective kAllReduce, kAllGather, kReduceScatter, kAlltoall, kBroadcast, kReduce, kSendRecv;

}  // namespace rooftop::collectives
