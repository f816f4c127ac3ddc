#include "harness/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "harness/errors.hpp"

namespace rooftop {

namespace {
// An output that cannot be written is the caller's path or environment: exit 2, like any
// bad input, not 1, which says a point or a gate failed.
[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& why) {
  throw InputError("cannot write " + path.string() + ": " + why + " (choose a path you can write)");
}

// A character device, a pipe or a socket (/dev/null, /dev/stdout, a FIFO) is written as it
// is: renaming a file over it would replace the device node for everyone.
void write_stream(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) refuse(path, std::string("open: ") + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      refuse(path, "write: " + reason);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

// Where a symbolic link leads: its target is written, and the link stays a link.
std::filesystem::path resolved(const std::filesystem::path& path) {
  std::filesystem::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec))) return p;
    const auto target = std::filesystem::read_symlink(p, ec);
    if (ec) refuse(path, "cannot read the symbolic link: " + ec.message());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  refuse(path, "too many levels of symbolic links");
}
}  // namespace

void write_file_atomically(const std::filesystem::path& requested, std::string_view content) {
  struct stat st {};
  if (::stat(requested.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) return write_stream(requested, content);
    if (!S_ISREG(st.st_mode)) refuse(requested, "it is not a regular file (a directory?): give a file's path");
  }
  const auto path = resolved(requested);
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto tmp = dir / fmt::format(".{}.tmp.{}", path.filename().string(), ::getpid());
  auto fail = [&](const char* what) {
    const std::string reason = std::strerror(errno);
    ::unlink(tmp.c_str());
    refuse(requested, std::string(what) + ": " + reason);
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("open");
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      fail("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("fsync");
  }
  if (::close(fd) != 0) fail("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename");
}

}  // namespace rooftop
