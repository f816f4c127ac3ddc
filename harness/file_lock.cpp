#include "harness/file_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "harness/errors.hpp"

namespace rooftop {

FileLock::FileLock(const std::filesystem::path& path, const std::string& what, std::chrono::seconds patience) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0)
    throw InputError(fmt::format("{}: cannot open {} to lock it ({})", path.string(), what,
                                 std::strerror(errno)));
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int error = errno;
      ::close(fd_);
      throw InputError(fmt::format("{}: cannot lock {} ({})", path.string(), what, std::strerror(error)));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(fd_);
      throw InputError(fmt::format("{} is being updated by another process (it held {} for {} s): try again when "
                                   "it has finished",
                                   what, path.string(), patience.count()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace rooftop
