#include "suites/suites.hpp"

#include "suites/attention/attention_suite.hpp"
#include "suites/gemm/gemm_suite.hpp"

namespace rooftop {

void register_all_suites() {
  gemm::register_gemm_suite();
  attention::register_attention_suite();
}

}  // namespace rooftop
