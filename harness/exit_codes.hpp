#pragma once
// Exit codes of the rooftop CLI (documented in docs/cli.md and in --help; a test holds them together).
namespace rooftop {
inline constexpr int kExitOk = 0;           // everything ran and every check passed
inline constexpr int kExitFailure = 1;      // run: a point failed or errored; gate: a regression (FAIL)
inline constexpr int kExitUsage = 2;        // bad flags, shapes or input files
inline constexpr int kExitNoBaseline = 3;   // gate: no baseline for this device (CTest maps it to SKIP)
inline constexpr int kExitNoDevice = 4;     // the backend's device is not present (CTest maps gpu tests to SKIP)
inline constexpr int kExitCommFault = 5;   // collectives: a rank died or hung; the finished sizes were kept
inline constexpr int kExitUnresolved = 6;  // gate/compare/ab: no FAIL, but a slowdown above tau not ruled out where it
                                           // matters (an interval wholly above tau, a suite-wide shift) or nothing decided
inline constexpr int kExitInterrupted = 130;  // Ctrl-C: the results of finished points were kept
}  // namespace rooftop
