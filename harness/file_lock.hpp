#pragma once
// An exclusive advisory lock (flock) on a file, held for a read-modify-write that other
// processes may run at once: two `baseline update --append` into one store each read the old
// baseline and the second rename dropped the first run (8 at once kept 2 of 9 runs).
#include <chrono>
#include <filesystem>
#include <string>

namespace rooftop {

class FileLock {
 public:
  // Creates `path` if needed and waits up to `patience` for the lock; then InputError naming
  // the file and `what` holds it ("the baseline store").
  FileLock(const std::filesystem::path& path, const std::string& what,
           std::chrono::seconds patience = std::chrono::seconds(120));
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace rooftop
