#pragma once
namespace rooftop::attention {
void register_attention_suite();
}  // namespace rooftop::attention
