// A bare NCCL loop: the anchor the collectives suite is compared with (docs/PERFORMANCE.md).
// One process drives every visible GPU, as rooftop does without MPI; bf16 sums; each
// repetition times `iterations` collectives queued back to back, after a warm-up.
//
// usage: rooftop_bare_nccl_benchmark SIZE_BYTES [REPETITIONS] [ITERATIONS]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/nccl_api.hpp"

using namespace rooftop::gpu;

int main(int argc, char** argv) {
  const std::size_t size = argc > 1 ? std::stoull(argv[1]) : (4ull << 30);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 10, iterations = argc > 3 ? std::atoi(argv[3]) : 5;
  int n = 0;
  ROOFTOP_GPU_CHECK(cudaGetDeviceCount(&n));
  const auto& api = nccl();
  std::vector<int> devs(n);
  for (int i = 0; i < n; ++i) devs[i] = i;
  std::vector<ncclComm_t> comms(n);
  ROOFTOP_NCCL_CHECK(api.ncclCommInitAll(comms.data(), n, devs.data()));
  std::vector<cudaStream_t> streams(n);
  std::vector<void*> send(n), recv(n);
  for (int i = 0; i < n; ++i) {
    ROOFTOP_GPU_CHECK(cudaSetDevice(i));
    ROOFTOP_GPU_CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    ROOFTOP_GPU_CHECK(cudaMalloc(&send[i], size));
    ROOFTOP_GPU_CHECK(cudaMalloc(&recv[i], size));
    ROOFTOP_GPU_CHECK(cudaMemset(send[i], 0, size));
  }
  struct Coll {
    const char* name;
    double bus_factor;
  };
  const Coll colls[] = {{"all_reduce", 2.0 * (n - 1) / n}, {"all_gather", (n - 1.0) / n}, {"reduce_scatter", (n - 1.0) / n}};
  for (const auto& c : colls) {
    const std::string name = c.name;
    const auto queue = [&] {
      ROOFTOP_NCCL_CHECK(api.ncclGroupStart());
      for (int i = 0; i < n; ++i) {
        if (name == "all_reduce")
          ROOFTOP_NCCL_CHECK(api.ncclAllReduce(send[i], recv[i], size / 2, ncclBfloat16, ncclSum, comms[i], streams[i]));
        else if (name == "all_gather")  // size = the gathered buffer
          ROOFTOP_NCCL_CHECK(api.ncclAllGather(send[i], recv[i], size / 2 / n, ncclBfloat16, comms[i], streams[i]));
        else  // size = the buffer each rank sends
          ROOFTOP_NCCL_CHECK(api.ncclReduceScatter(send[i], recv[i], size / 2 / n, ncclBfloat16, ncclSum, comms[i], streams[i]));
      }
      ROOFTOP_NCCL_CHECK(api.ncclGroupEnd());
    };
    const auto sync = [&] {
      for (int i = 0; i < n; ++i) ROOFTOP_GPU_CHECK(cudaStreamSynchronize(streams[i]));
    };
    for (int w = 0; w < 3; ++w) queue();
    sync();
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int it = 0; it < iterations; ++it) queue();
      sync();
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iterations);
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2], algbw = static_cast<double>(size) / median;
    fmt::print("bare {} bf16 {} bytes on {} GPUs: median {:.3f} ms, algbw {:.1f} GB/s, busbw {:.1f} GB/s\n", name, size, n,
               median * 1e3, algbw / 1e9, algbw * c.bus_factor / 1e9);
  }
  for (auto comm : comms) api.ncclCommDestroy(comm);
  return 0;
}
