#pragma once
// The fused CPU attention kernel: for each (batch, KV head) and block of query rows, all
// the query heads that share that KV head walk the keys in blocks, keeping a running max,
// sum and output per row (online softmax); scores never reach memory. fp32 arithmetic;
// bf16 and fp16 are converted on load, P is rounded to the input type before P x V.
#include "suites/attention/attention_data.hpp"

namespace rooftop::attention {

void fused_attention_cpu(AttentionData& data);

}  // namespace rooftop::attention
