#pragma once
// Exit codes of the rooftop CLI (documented in README.md and in --help).
namespace rooftop {
inline constexpr int kExitOk = 0;           // everything ran and every check passed
inline constexpr int kExitFailure = 1;      // a point failed its correctness check or errored
inline constexpr int kExitUsage = 2;        // bad flags, shapes or input files
inline constexpr int kExitInterrupted = 130;  // Ctrl-C: the results of finished points were kept
}  // namespace rooftop
