#pragma once
// The one header GPU code includes. Kernels and their host code are written with CUDA's
// names; a HIP build (ROOFTOP_HIP) maps those names onto HIP's in vendors/hip.hpp, so the
// same sources serve both (ggml's vendors/ approach), never a fork.
#if defined(ROOFTOP_HIP)
#include "devices/cuda/vendors/hip.hpp"
#else
#include "devices/cuda/vendors/cuda.hpp"
#endif
