#pragma once
// What a result's place under the roofline means, in plain words, and the next step that
// usually pays. The rules live here and only here.
#include <string>

#include "harness/results.hpp"
#include "harness/roofline.hpp"

namespace rooftop::reports {

struct Diagnosis {
  std::string finding;    // "memory-bound at 82% of the L3 bandwidth"
  std::string next_step;  // "cut bytes: fuse, or a narrower dtype"
  // The measured numbers the finding rests on: "streams 1.2 MB at 39.4 GB/s, 82% of the
  // 48.0 GB/s measured L3 ceiling; 0.50 FLOP/B, under the ridge at 6.25"; "" where nothing
  // was measured.
  std::string evidence = {};
};

// `record` a derived record (of a run, or read back from a file); `ceilings` the run's measured
// ones (to see whether a faster unit exists for this work), or nullptr. The rules read the typed
// record: its derived numbers and the facts the suite declared (DeclaredFacts).
Diagnosis diagnose(const ResultRecord& record, const Ceilings* ceilings);

}  // namespace rooftop::reports
