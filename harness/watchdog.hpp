#pragma once
// Ends the process when a blocking step outlives its deadline: MPI has no timeout of its
// own, and a dead peer would hang the other ranks forever. The launcher then ends the rest.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

namespace rooftop {

class Watchdog {
 public:
  Watchdog();
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(double seconds, std::string what);
  void disarm() { deadline_ = 0; }
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
  std::thread thread_;
};

}  // namespace rooftop
