#pragma once
#include <cstdio>
#include <string>

namespace rooftop {

// A progress line on stderr: rewritten in place on a terminal, one plain line per
// finished point otherwise (CI logs).
class Progress {
 public:
  explicit Progress(int total, std::FILE* stream = stderr);
  ~Progress();
  void started(const std::string& name);
  void finished(const std::string& name, const std::string& outcome);

 private:
  int total_;
  int done_ = 0;
  std::FILE* stream_;
  bool live_;
};

}  // namespace rooftop
