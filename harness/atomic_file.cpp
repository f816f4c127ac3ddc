#include "harness/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
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

// /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name a descriptor this process
// already has: written through it, so `> file` and `>> file` mean what the shell said
// (opening the path anew would start at offset 0, and a rename would replace the file).
std::optional<int> own_descriptor(const std::filesystem::path& path) {
  const std::string p = path.lexically_normal().string();
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"})
    if (p.starts_with(prefix) && p.size() > prefix.size() && p.size() - prefix.size() <= 6 &&
        std::all_of(p.begin() + static_cast<std::ptrdiff_t>(prefix.size()), p.end(), [](unsigned char c) { return std::isdigit(c); }))
      return std::stoi(p.substr(prefix.size()));
  return std::nullopt;
}

// A character device, a pipe or a socket (/dev/null, /dev/stdout, a FIFO), or a descriptor
// of this process, is written as it is: renaming a file over it would replace the device
// node for everyone, or the file the shell opened.
void write_stream(const std::filesystem::path& path, std::string_view content) {
  const auto own = own_descriptor(path);
  const int fd = own ? *own : ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) refuse(path, std::string("open: ") + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string reason = std::strerror(errno);
      if (!own) ::close(fd);
      refuse(path, "write: " + reason);
    }
    done += static_cast<std::size_t>(n);
  }
  if (!own) ::close(fd);
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

// The temporary file's name: recognisable, with the writer's pid, so that one a killed
// writer left behind can be told from one a live writer is filling.
constexpr const char* kTempMark = ".rooftop-tmp.";
// The name is cut to 200 bytes, so that a target whose name is near the file system's limit
// (255) still has a temporary.
constexpr std::size_t kTempNameBytes = 200;
std::filesystem::path temp_path(const std::filesystem::path& dir, const std::filesystem::path& target, long pid) {
  return dir / fmt::format(".{}{}{}", target.filename().string().substr(0, kTempNameBytes), kTempMark, pid);
}

// Removes the temporaries of `target` whose writer is no longer alive (a SIGKILL between
// open and rename leaves one); a live process's, another user's included, is kept.
// ".<name>.tmp.<pid>" is the name older versions used.
void remove_stale_temporaries(const std::filesystem::path& dir, const std::filesystem::path& target) {
  const std::string name = "." + target.filename().string().substr(0, kTempNameBytes);
  const std::string prefixes[] = {name + kTempMark, name + ".tmp."};
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    for (const auto& prefix : prefixes) {
      if (!file.starts_with(prefix)) continue;
      const std::string digits = file.substr(prefix.size());
      if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
        continue;
      const auto pid = static_cast<pid_t>(std::stol(digits));
      if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or cannot tell
      std::error_code ignored;
      std::filesystem::remove(it->path(), ignored);
    }
  }
}

// The same, once a target a process: a run rewrites its results after every point, and a
// killed writer's temporary is there from before this process, not made between two writes.
void remove_stale_temporaries_once(const std::filesystem::path& dir, const std::filesystem::path& target) {
  static std::mutex mutex;
  static std::set<std::filesystem::path> cleaned;
  {
    const std::lock_guard lock(mutex);
    if (!cleaned.insert(target).second) return;
  }
  remove_stale_temporaries(dir, target);
}

// /dev/full opens, and takes a write of nothing, but fails every real write.
bool always_full(const struct stat& st) {
#ifdef __linux__
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 7;
#else
  (void)st;
  return false;
#endif
}

[[noreturn]] void refuse_output(const NamedFile& f, const std::string& why) {
  throw InputError(fmt::format("cannot write {} {}: {} (choose a path you can write)", f.flag, f.path.string(), why));
}

// The folder a file would be made in: the nearest one that exists (the writer makes the rest).
std::filesystem::path nearest_existing_folder(const std::filesystem::path& file) {
  std::filesystem::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  while (!std::filesystem::exists(dir, ec)) {
    const auto up = dir.parent_path();
    if (up.empty() || up == dir) return up.empty() ? std::filesystem::path(".") : up;
    dir = up;
  }
  return dir;
}

void check_writable(const NamedFile& f) {
  if (own_descriptor(f.path)) return;  // written through the descriptor the shell gave
  const auto name = f.path.filename();
  if (name.empty() || name == "." || name == "..")
    refuse_output(f, "it names a folder, not a file: give a file's path");
  struct stat st {};
  if (::stat(f.path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) refuse_output(f, "it is a directory: give a file's path");
    if (always_full(st)) refuse_output(f, "every write to it fails (no space left on device)");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) return;  // written as it is
    if (!S_ISREG(st.st_mode)) refuse_output(f, "it is not a regular file");
  } else if (errno != ENOENT) {
    refuse_output(f, std::strerror(errno));  // a file where a folder should be, a link loop, ...
  }
  const auto dir = nearest_existing_folder(resolved(f.path));
  if (!std::filesystem::is_directory(dir)) refuse_output(f, dir.string() + " is not a folder");
  // A trial file where the writer makes its temporary: a read-only folder or file system
  // is found now, not after the measurement.
  const auto probe = temp_path(dir, f.path.filename().empty() ? std::filesystem::path("output") : f.path.filename(), ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return;  // this process's own temporary: the folder takes files
    refuse_output(f, fmt::format("cannot create a file in {}: {}", dir.string(), std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

// Whether `file` lies inside the folder `dir` (links, "." and ".." resolved).
bool inside_folder(const std::filesystem::path& file, const std::filesystem::path& dir) {
  std::error_code ed, ef;
  if (!std::filesystem::is_directory(dir, ed)) return false;
  const auto d = std::filesystem::weakly_canonical(dir, ed), f = std::filesystem::weakly_canonical(file, ef);
  if (ed || ef) return false;
  const auto [end, _] = std::mismatch(d.begin(), d.end(), f.begin(), f.end());
  return end == d.end();
}

// Whether two paths name one file: the same inode where both exist, else the same path
// once made absolute and "..", "." and links resolved (weakly_canonical leaves a relative
// path of no existing folder relative: o.json and ./o.json compared unequal).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ea, eb;
  if (std::filesystem::exists(a, ea) && std::filesystem::exists(b, eb)) {
    std::error_code ec;
    const bool same = std::filesystem::equivalent(a, b, ec);
    return !ec && same;
  }
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ea), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, eb), eb);
  return !ea && !eb && ca == cb;
}
}  // namespace

bool is_stream_output(const std::filesystem::path& path) {
  if (own_descriptor(path)) return true;
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

void check_outputs(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& out = outputs[i];
    if (out.path.empty()) continue;
    // A stream (/dev/null, /dev/stdout as a pipe or a terminal, a FIFO) is written, never
    // replaced: two outputs to it are two writes, and it destroys no input.
    const bool stream = is_stream_output(out.path);
    for (const auto& in : inputs) {
      if (stream || in.path.empty()) continue;
      if (same_file(out.path, in.path))
        throw InputError(fmt::format("{} {} is the same file as {} {}, which this command reads: writing it would destroy "
                                     "it; give {} another path", out.flag, out.path.string(), in.flag, in.path.string(),
                                     out.flag));
      // A folder read as a whole (a baseline store): its files and its gate config.
      if (inside_folder(out.path, in.path))
        throw InputError(fmt::format("{} {} is inside {} {}, a folder this command reads: writing there could replace "
                                     "a file it reads; give {} a path outside it", out.flag, out.path.string(), in.flag,
                                     in.path.string(), out.flag));
    }
    for (std::size_t j = 0; j < i; ++j)
      if (!stream && !outputs[j].path.empty() && same_file(out.path, outputs[j].path))
        throw InputError(fmt::format("{} {} and {} {} are the same file: one would overwrite the other; give each output "
                                     "its own path", outputs[j].flag, outputs[j].path.string(), out.flag,
                                     out.path.string()));
    check_writable(out);
  }
}

void make_parent_folders(const std::vector<NamedFile>& outputs) {
  for (const auto& out : outputs) {
    if (out.path.empty() || !out.path.has_parent_path() || is_stream_output(out.path)) continue;
    std::error_code ec;
    std::filesystem::create_directories(out.path.parent_path(), ec);
    if (ec) refuse_output(out, fmt::format("cannot make its folder: {}", ec.message()));
  }
}

namespace {
// The regular file a rewrite replaces, whose mode (and owner) its replacement keeps; none
// for a new file, or a link that is replaced rather than followed.
std::optional<struct stat> replaced_file(const std::filesystem::path& path, bool follow_links) {
  struct stat st {};
  if ((follow_links ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  return st;
}

// Gives a new file the owner and mode of the file it will replace, before any content is in
// it: a results file or baseline made 0600 (it holds host names and command lines) stays
// 0600. The owner first, since a change of owner clears the set-id bits the mode puts back.
// Where either is refused (another user's file, a file system without modes) the new file
// keeps the writer's, as before.
void keep_owner_and_mode(int fd, const struct stat& replaced) {
  if ((replaced.st_uid != ::geteuid() || replaced.st_gid != ::getegid()) &&
      ::fchown(fd, replaced.st_uid, replaced.st_gid) != 0) {
    // not allowed: the writer's
  }
  ::fchmod(fd, replaced.st_mode & 07777);
}

// The whole content into a new file, flushed to disk; the reason it could not be, else empty.
// `replaced`: the file it will be renamed over, whose owner and mode it takes; none: 0644
// less the umask.
std::string write_and_sync(const std::filesystem::path& file, std::string_view content,
                           const std::optional<struct stat>& replaced) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::string("open: ") + std::strerror(errno);
  if (replaced) keep_owner_and_mode(fd, *replaced);
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

void write_file_atomically(const std::filesystem::path& requested, std::string_view content) {
  if (own_descriptor(requested)) return write_stream(requested, content);
  struct stat st {};
  if (::stat(requested.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) return write_stream(requested, content);
    if (!S_ISREG(st.st_mode)) refuse(requested, "it is not a regular file (a directory?): give a file's path");
  }
  const auto path = resolved(requested);
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  remove_stale_temporaries_once(dir, path);
  const auto tmp = temp_path(dir, path, ::getpid());
  std::string why = write_and_sync(tmp, content, replaced_file(path, true));
  if (why.empty() && ::rename(tmp.c_str(), path.c_str()) != 0) why = std::string("rename: ") + std::strerror(errno);
  if (!why.empty()) {
    ::unlink(tmp.c_str());
    refuse(requested, why);
  }
}


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
    remove_stale_temporaries_once(dir, f.path);
    temporaries.push_back(temp_path(dir, f.path, ::getpid()));
    if (const auto why = write_and_sync(temporaries.back(), f.content, replaced_file(f.path, false)); !why.empty()) {
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
