#pragma once
// An exclusive advisory lock (flock) on a folder, held for a read-modify-write of its files
// that other processes may run at once: two `baseline update --append` into one store each
// read the old baseline and the second rename dropped the first run (8 at once kept 2 of 9
// runs). The folder itself is locked, so no lock file joins the store's layout.
#include <chrono>
#include <filesystem>
#include <string>

namespace rooftop {

class FileLock {
 public:
  // Waits up to `patience` for the lock of the folder `path`; then InputError naming it and
  // `what` it is ("the baseline store").
  FileLock(const std::filesystem::path& path, const std::string& what,
           std::chrono::seconds patience = std::chrono::seconds(120));
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace rooftop
