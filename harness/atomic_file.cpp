#include "harness/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
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

namespace {
std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  return path.parent_path() / fmt::format(".{}.tmp.{}", path.filename().string(), ::getpid());
}

// The whole content into a new file, flushed to disk; the reason it could not be, else empty.
std::string write_and_sync(const std::filesystem::path& file, std::string_view content) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::string("open: ") + std::strerror(errno);
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string reason = std::string("write: ") + std::strerror(errno);
      ::close(fd);
      return reason;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const std::string reason = std::string("fsync: ") + std::strerror(errno);
    ::close(fd);
    return reason;
  }
  return ::close(fd) == 0 ? std::string() : std::string("close: ") + std::strerror(errno);
}

std::optional<std::string> content_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

void write_files_atomically(const std::vector<FileContent>& files) {
  std::vector<std::filesystem::path> temporaries;
  const auto remove_temporaries = [&](std::size_t from) {
    for (std::size_t i = from; i < temporaries.size(); ++i) ::unlink(temporaries[i].c_str());
  };
  // Stage: every file's content beside it, before any is replaced.
  for (const auto& f : files) {
    const auto dir = f.path.has_parent_path() ? f.path.parent_path() : std::filesystem::path(".");
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      remove_temporaries(0);
      refuse(f.path, fmt::format("cannot create the folder {}: {}; nothing was written", dir.string(), ec.message()));
    }
    temporaries.push_back(temporary_beside(f.path));
    if (const auto why = write_and_sync(temporaries.back(), f.content); !why.empty()) {
      remove_temporaries(0);
      refuse(f.path, why + "; nothing was written");
    }
  }
  // Replace: one rename each; a failure puts back what the earlier ones replaced.
  std::vector<std::optional<std::string>> before;
  for (const auto& f : files) before.push_back(content_of(f.path));
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::rename(temporaries[i].c_str(), files[i].path.c_str()) == 0) continue;
    const std::string reason = std::strerror(errno);
    remove_temporaries(i);
    for (std::size_t j = 0; j < i; ++j) {
      try {
        if (before[j]) write_file_atomically(files[j].path, *before[j]);
        else ::unlink(files[j].path.c_str());
      } catch (const InputError&) {  // the failure that matters is the one said below
      }
    }
    refuse(files[i].path, "rename: " + reason + "; the files written before it were put back");
  }
}

}  // namespace rooftop
