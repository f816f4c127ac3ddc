#include "suites/suites.hpp"

#include "suites/gemm/gemm_suite.hpp"

namespace rooftop {

void register_all_suites() {
  gemm::register_gemm_suite();
}

}  // namespace rooftop
