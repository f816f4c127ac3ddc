#pragma once
// Tensor-parallel scaling across results files: for each model's decode or generate point
// (same device, dtype and shape), its TPOT and output tokens/s at each tp measured (tp1,
// tp2, tp4, tp8, from runs at those rank counts), the speed-up over the smallest tp and the
// efficiency against ideal scaling (TPOT falling as 1/tp). `rooftop report` prints it and
// the HTML report shows it where a point was measured at two tps or more.
#include <iosfwd>
#include <string>
#include <vector>

#include "harness/results.hpp"

namespace rooftop::reports {

struct TpScalingRow {
  std::string device, point, dtype;  // point: the shape without its tp ("tiny_decode_b1_c128")
  int tp = 1;
  double tpot_s = 0, tokens_per_s = 0;
  double speedup = 1;     // the smallest tp's TPOT over this one's
  double efficiency = 1;  // speedup / (tp / the smallest tp): 1 is ideal
};

// The rows of every point measured at two tps or more, grouped by point, tp ascending.
std::vector<TpScalingRow> tp_scaling_rows(const std::vector<const RunResults*>& runs);
// Those rows as a table in kTerminalColumns; nothing where there are none.
void print_tp_scaling(std::ostream& out, const std::vector<TpScalingRow>& rows);

}  // namespace rooftop::reports
