#pragma once
#include <stdexcept>
#include <string>

namespace rooftop {

// Bad input from the user (flags, shapes, files): the CLI exits with kExitUsage.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Ctrl-C (SIGINT) stopped a command that keeps nothing partial (tune): the CLI exits with
// kExitInterrupted, 130, as a shell reports a process ended by SIGINT.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A point that does not apply on this machine (e.g. oneDNN has no implementation):
// recorded as "skipped" with the reason; the run goes on and does not fail.
struct PointSkipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A backend whose device is not here (no GPU, no driver): the CLI exits with
// kExitNoDevice and the message says which backend still runs.
struct DeviceUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace rooftop
