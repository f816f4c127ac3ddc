#pragma once
// Ends the process when a blocking step outlives its deadline: MPI has no timeout of its
// own, and a dead peer would hang the other ranks forever (the launcher then ends the rest);
// a GPU test that hangs must fail with its name, not run until CI's limit.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "harness/exit_codes.hpp"

namespace rooftop {

class Watchdog {
 public:
  // On expiry prints "rooftop: WHAT did not finish in time: CONSEQUENCE (exit EXIT_CODE)".
  Watchdog(std::string consequence = "a rank died or hangs. The finished points are saved; ending every rank",
           int exit_code = kExitCommFault);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(double seconds, std::string what);
  void disarm() { deadline_ = 0; }
  // What the message will name, the deadline kept (a step inside the armed scope).
  void rename(std::string what) {
    std::lock_guard lock(mutex_);
    what_ = std::move(what);
  }
  // Armed for one scope: disarmed however it ends (a timeout thrown by a wait included).
  struct Armed {
    Armed(Watchdog& w, double seconds, std::string what) : dog(w) { dog.arm(seconds, std::move(what)); }
    ~Armed() { dog.disarm(); }
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;
    Watchdog& dog;
  };

 private:
  using Clock = std::chrono::steady_clock;
  void watch();
  std::atomic<bool> stop_{false};
  std::atomic<Clock::rep> deadline_{0};
  std::mutex mutex_;
  std::string what_;
  const std::string consequence_;
  const int exit_code_;
  std::thread thread_;
};

}  // namespace rooftop
