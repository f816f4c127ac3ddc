#pragma once
// The tile choices `rooftop tune` made on a device, with their evidence, in
// $ROOFTOP_HOME/tuning/<fingerprint>.json: for each tuned point, the tile that won and every
// candidate's median time (or why it did not run). `rooftop run` on that device runs each
// tuned point with its choice.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "harness/errors.hpp"

namespace rooftop {

struct TileCandidate {
  std::string tile;     // empty: the point's default
  std::string status;   // ok, failed, skipped, error
  double median_s = 0;  // ok only
  std::string reason;   // why it did not run or failed
};

struct TunedPoint {
  std::string tile;  // the winner (empty: the default won)
  std::string tuned_at, rooftop_version;
  std::vector<TileCandidate> candidates;
};

std::filesystem::path tuning_cache_path(const std::string& fingerprint);

// A tuning file whose own fingerprint is not the device's (copied from another machine):
// its tiles were chosen for another device.
struct TuningOfAnotherDevice : InputError {
  using InputError::InputError;
};

// The choices kept for a device, by point name; empty when the file does not exist.
// Throws InputError naming the file and the way out when it is not a tuning file, and
// TuningOfAnotherDevice when `fingerprint` is given and the file's own is another.
std::map<std::string, TunedPoint> load_tuning(const std::filesystem::path& path, const std::string& fingerprint = {});
// Throws InputError, before anything is timed, when `path` cannot be written (its folder
// cannot be made or written, or the path is a folder).
void check_tuning_writable(const std::filesystem::path& path);
// Writes `points` over the kept ones of the same names and removes `dropped` (others stay,
// unless the file is another device's: then it is replaced), atomically.
void save_tuning(const std::filesystem::path& path, const std::string& fingerprint,
                 const std::map<std::string, TunedPoint>& points, const std::vector<std::string>& dropped = {});

}  // namespace rooftop
