// A checkout's config.json given alone: said, and refused with --prompt.
#include "suites/inference/config_alone.hpp"

#include <fmt/format.h>

#include "harness/errors.hpp"
#include "suites/inference/model_config.hpp"

namespace rooftop::inference {

std::optional<std::filesystem::path> checkpoint_beside_config(std::string_view name_or_path) {
  const std::filesystem::path path(name_or_path);
  std::error_code ec;
  if (path.filename() != "config.json" || !std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (checkpoint_files(folder.string()).empty()) return std::nullopt;
  return folder;
}

std::string config_alone_note(std::string_view name_or_path, std::span<const std::int32_t> prompt) {
  const auto folder = checkpoint_beside_config(name_or_path);
  if (!folder) return {};
  if (!prompt.empty())
    throw InputError(fmt::format("--prompt with {}: a checkpoint's config.json alone runs seeded random weights, whose "
                                 "tokens are not the checkpoint's; name its folder, {}, to run its weights (or leave "
                                 "--prompt out to time the model on random weights)",
                                 name_or_path, folder->string()));
  return fmt::format("{}: the config alone, on seeded random weights (the same work, other values); name its folder, "
                     "{}, to run the checkpoint's weights beside it",
                     name_or_path, folder->string());
}

}  // namespace rooftop::inference
