#pragma once
// The metadata of a small CPU run that the results tests build by hand: one place, so a
// field added to RunMetadata is filled once.
#include <string>

#include "harness/results.hpp"

namespace rooftop::testing {

inline RunMetadata test_run_meta(const std::string& tier) {
  RunMetadata m;
  m.rooftop_version = "0.1.0";
  m.git_commit = "abc123";
  m.created = "2026-11-21T00:00:00Z";
  m.host = {{"hostname", "h"}};
  m.command = "rooftop run";
  m.tier = tier;
  m.backend = "cpu";
  m.fingerprint = "cpu-test-2c-0000";
  m.device = {{"model_name", "Test CPU"}};
  m.ceilings_source = "none";
  m.complete = true;
  return m;
}

}  // namespace rooftop::testing
