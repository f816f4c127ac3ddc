#include "harness/watchdog.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>


namespace rooftop {

Watchdog::Watchdog(std::string consequence, int exit_code)
    : consequence_(std::move(consequence)), exit_code_(exit_code), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  stop_ = true;
  thread_.join();
}

void Watchdog::arm(double seconds, std::string what) {
  {
    std::lock_guard lock(mutex_);
    what_ = std::move(what);
  }
  deadline_ = Clock::now().time_since_epoch().count() +
              std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)).count();
}

void Watchdog::watch() {
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto d = deadline_.load();
    if (d != 0 && Clock::now().time_since_epoch().count() > d) {
      std::lock_guard lock(mutex_);
      fmt::print(stderr, "rooftop: {} did not finish in time: {} (exit {})\n", what_, consequence_, exit_code_);
      std::fflush(stderr);
      std::_Exit(exit_code_);
    }
  }
}

}  // namespace rooftop
