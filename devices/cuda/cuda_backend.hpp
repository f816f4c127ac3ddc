#pragma once
#include <memory>

#include "harness/backend.hpp"

namespace rooftop::gpu {
// The CUDA backend; built in whenever nvcc was found, usable where a GPU and driver are.
std::unique_ptr<Backend> make_cuda_backend();
}  // namespace rooftop::gpu
