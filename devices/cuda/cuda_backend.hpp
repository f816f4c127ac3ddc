#pragma once
#include <memory>

#include "harness/backend.hpp"

namespace rooftop::gpu {
// The GPU backend of this build: "cuda" where nvcc was found, or "hip" in a HIP build (the
// same sources); built in either way, usable where a GPU and its driver are.
std::unique_ptr<Backend> make_cuda_backend();
}  // namespace rooftop::gpu
