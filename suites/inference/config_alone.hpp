#pragma once
// A checkout's config.json named where a shape names the model, its weights beside it: the
// config alone, timed on seeded random weights (the way out docs/inference.md gives for a
// field whose values the decoder does not compute). Issue 52, N16: it ran so without a word,
// and with --prompt its greedy tokens were not the checkpoint's.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rooftop::inference {

// The folder of `name_or_path` where it is a file named config.json with *.safetensors
// beside it; nullopt for a shipped name, a folder, another file or a config without weights.
std::optional<std::filesystem::path> checkpoint_beside_config(std::string_view name_or_path);

// What a point of such a config says before it is measured (empty for any other model).
// Throws InputError where `prompt` is given: random weights' tokens are not the checkpoint's.
std::string config_alone_note(std::string_view name_or_path, std::span<const std::int32_t> prompt);

}  // namespace rooftop::inference
