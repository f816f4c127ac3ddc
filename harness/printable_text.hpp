#pragma once
// Text read from a file, made safe to put in a message: control bytes but newline and tab
// shown as \xNN. A NUL byte would otherwise end the message there (what() is a C string).
#include <cstdio>
#include <string>
#include <string_view>

namespace rooftop {

inline std::string printable_text(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace rooftop
