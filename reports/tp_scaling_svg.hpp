#pragma once
// The tensor-parallel speed-up against tp as a chart: a line a point through its tps, the
// ideal (speed-up = tp over the smallest tp) dashed, on log2 axes, so that scaling reads at a
// glance as nccl-tests' and Megatron's users read it.
#include <string>
#include <vector>

#include "reports/tp_scaling.hpp"

namespace rooftop::reports {

// One inline SVG; empty where no point was measured at two tps.
std::string tp_scaling_svg(const std::vector<TpScalingRow>& rows);

}  // namespace rooftop::reports
