#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>

namespace rooftop {

// Reads and parses a JSON file, keeping key order. A missing, empty or corrupt file is an
// InputError naming the file and `what` it was meant to be ("results file", "gate config").
nlohmann::ordered_json read_json_file(const std::filesystem::path& path, const char* what);

}  // namespace rooftop
