#include "harness/watchdog.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "harness/exit_codes.hpp"

namespace rooftop {

Watchdog::Watchdog() : thread_([this] { watch(); }) {}

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
      fmt::print(stderr, "rooftop: {} did not finish in time: a rank died or hangs. The finished points are saved; "
                         "ending every rank (exit {})\n", what_, kExitCommFault);
      std::fflush(stderr);
      std::_Exit(kExitCommFault);
    }
  }
}

}  // namespace rooftop
