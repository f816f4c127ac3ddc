#pragma once
// Filled in at build time (harness/write_version.cmake), so results name the exact commit.
namespace rooftop {
extern const char* const kVersion;
extern const char* const kGitCommit;
}  // namespace rooftop
