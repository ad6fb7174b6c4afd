// SPDX-License-Identifier: GPL-2.0-or-later
#include "path_search.hh"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace slurmpin {

namespace {

bool runnable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_executable(const std::string& word) {
  if (word.empty()) return "";
  if (word.find('/') != std::string::npos) return runnable(word) ? word : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t i = 0; i <= dirs.size();) {
    size_t j = dirs.find(':', i);
    if (j == std::string::npos) j = dirs.size();
    std::string cand = (j > i ? dirs.substr(i, j - i) : ".") + "/" + word;  // an empty entry is the current directory
    if (runnable(cand)) return cand;
    i = j + 1;
  }
  return "";
}

}  // namespace slurmpin
