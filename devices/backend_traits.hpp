#pragma once
// What a suite asks of a backend instead of comparing its name: its capabilities, known in
// every build, whether or not the backend is built in or its device is here (`list` and the
// tests plan CUDA points on a CPU-only build). A new backend is one line in backend_traits.cpp.
#include <string>
#include <string_view>
#include <vector>

namespace rooftop {

struct BackendTraits {
  std::string name;
  // A device with its own memory, fed by launches from the host: a GEMM keeps B as [N,K]
  // beside a library workspace; inference replays CUDA graphs and can page its KV cache.
  bool gpu = false;
  // rooftop's own GPU kernels (devices/cuda's sources, built by nvcc or hipcc) run on it:
  // the split-KV decode and its split counts.
  bool rooftop_gpu_kernels = false;
  // NVIDIA PTX (mma.sync, wgmma) runs on it: the prefill kernels and their tuned tiles.
  bool nvidia_ptx = false;
  // NVIDIA's cuDNN attention graph (attention's `:cudnn` points).
  bool cudnn_attention = false;
};

// InputError naming the known backends for another name.
const BackendTraits& backend_traits(std::string_view backend);
// The backends whose traits satisfy `has` ("cuda"), for a message's way out.
std::vector<std::string> backends_with(bool BackendTraits::*has);

}  // namespace rooftop
