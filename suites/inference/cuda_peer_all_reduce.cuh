#pragma once
// The kernel of the one-shot peer all-reduce (cuda_peer_all_reduce.hpp), with the L2
// prefetch that overlaps a tensor-parallel step's all-reduce with the next projection's
// weight stream. Queued on gpu::stream(), as the decoder's kernels are.
#include <cstddef>
#include <cstdint>

#include "devices/cuda/vendors/gpu.hpp"

namespace rooftop::inference::kernels {

inline constexpr int kPeerMaxRanks = 8;
inline constexpr int kPeerBlocks = 16;  // every call runs all of them (their epochs stay equal)

// Every rank's buffer, mapped into this process: [2][ranks][capacity] elements, each a float
// and the epoch of the call that wrote it (the half is the call's parity).
struct PeerBuffers {
  std::uint64_t* data[kPeerMaxRanks] = {};
};

// Bytes [begin, begin + bytes) of weights to pull into L2 (Hopper's bulk prefetch; nothing
// on older GPUs): the projection that runs after the all-reduce.
struct L2Prefetch {
  const void* begin = nullptr;
  std::size_t bytes = 0;
};

// In place: data[i] = the sum over ranks of their data[i], in rank order on every rank (the
// same bits everywhere). `epochs` [kPeerBlocks]: this rank's call counters, zeroed once. A
// peer whose data never comes traps the kernel after `timeout_ns` (the run's watchdog ends
// the process first).
void peer_all_reduce(const PeerBuffers& peers, int ranks, int rank, float* data, std::size_t count,
                     std::size_t capacity, std::uint32_t* epochs, std::uint64_t timeout_ns, L2Prefetch prefetch);
// Whether this build and GPU can prefetch (sm_90 and later).
bool l2_prefetch_supported();

}  // namespace rooftop::inference::kernels
