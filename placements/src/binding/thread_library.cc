// SPDX-License-Identifier: GPL-2.0-or-later
#include "binding/thread_library.hh"

#include <dlfcn.h>

#include <vector>

#include "error.hh"
#include "input/user_file.hh"

namespace slurmpin {

namespace {

constexpr const char* kLibrary = "libslurm_pin_threads.so";

// Relative to the directory of the file looking: beside it (a build tree's
// lib/ for the plugin and libslurmpin), the packages' LIBDIR/slurm-pin/ for
// libslurmpin, the packages' plugin directory (slurm-wlm/ next to
// slurm-pin/), a build tree's bin/, the packages' bin/ (configured).
std::vector<std::string> candidates(const std::string& dir) {
  std::vector<std::string> out = {dir + "/" + kLibrary, dir + "/slurm-pin/" + kLibrary, dir + "/../slurm-pin/" + kLibrary,
                                  dir + "/../lib/" + kLibrary,
                                  dir + "/" + SLURM_PIN_BIN_TO_THREADS_LIB + "/" + kLibrary};
  return out;
}

}  // namespace

std::string this_library() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&find_thread_library), &info) || !info.dli_fname)
    throw Error("cannot tell where slurm-pin's library is: give the thread library's path");
  return info.dli_fname;
}

void check_thread_library(const std::string& path) {
  if (path.empty()) throw Error("no thread library given");
  check_user_file(path);
}

std::string find_thread_library(const std::string& from) {
  size_t slash = from.rfind('/');
  if (slash == std::string::npos)
    throw Error("cannot tell where slurm-pin is installed from '" + from + "': give the thread library's path");
  std::string tried;
  for (const std::string& c : candidates(from.substr(0, slash))) {
    try {
      check_thread_library(c);
      return c;
    } catch (const Error&) {
      tried += (tried.empty() ? "" : ", ") + c;
    }
  }
  throw Error(std::string("the thread library ") + kLibrary + " is in none of " + tried +
              ": install it with slurm-pin, or give its path");
}

}  // namespace slurmpin
