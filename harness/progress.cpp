#include "harness/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace rooftop {

Progress::Progress(int total, std::FILE* stream)
    : total_(total), stream_(stream), live_(::isatty(::fileno(stream)) != 0) {}

Progress::~Progress() {
  if (live_) fmt::print(stream_, "\r\033[K");
}

void Progress::started(const std::string& name) {
  if (!live_) return;
  fmt::print(stream_, "\r\033[K[{}/{}] {} ...", done_ + 1, total_, name);
  std::fflush(stream_);
}

void Progress::finished(const std::string& name, const std::string& outcome) {
  ++done_;
  if (live_) fmt::print(stream_, "\r\033[K[{}/{}] {}: {}", done_, total_, name, outcome);
  else fmt::print(stream_, "[{}/{}] {}: {}\n", done_, total_, name, outcome);
  std::fflush(stream_);
}

}  // namespace rooftop
