// Reading whole files in tests (goldens, transcripts, generated pages).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

/// The bytes of `p`; empty when it cannot be read (the comparison that follows then fails).
inline std::string readAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
