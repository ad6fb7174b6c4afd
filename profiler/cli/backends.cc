// SPDX-License-Identifier: GPL-2.0-or-later
#include "backends.hh"

#include <sys/stat.h>

#include <cstdlib>

#include "error.hh"

namespace slurmpin {

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace

BackendRun backend_command(const std::string& backend, const std::string& libdir, const std::string& sums,
                           const std::string& trace, int threads, const std::vector<std::string>& program) {
  BackendRun r;
  r.env.push_back("OMP_NUM_THREADS=" + std::to_string(threads));
  // Region tags for LLVM libomp programs (OMPT); libgomp ignores it.
  std::string ompt = libdir + "/libslurm_pin_ompt.so";
  if (exists(ompt)) r.env.push_back("OMP_TOOL_LIBRARIES=" + ompt);
  if (backend == "valgrind") {
    std::string tool = libdir + "/valgrind";
    if (!exists(tool + "/slurmpin-amd64-linux"))
      throw Error("the valgrind backend is not installed (" + tool + "/slurmpin-amd64-linux is missing)");
    r.env.push_back("VALGRIND_LIB=" + tool);
    r.argv = {"valgrind", "-q", "--tool=slurmpin", "--out=" + sums};
    if (!trace.empty()) r.argv.push_back("--trace=" + trace);
  } else if (backend == "compiler") {
    // The program was built with -fsanitize=thread and linked with
    // libslurm_pin_tsan (docs/profiler.md); it writes what these name.
    r.env.push_back("SLURM_PIN_SHARING=" + sums);
    if (!trace.empty()) r.env.push_back("SLURM_PIN_TRACE=" + trace);
  } else if (backend == "pin") {
    const char* root = std::getenv("PIN_ROOT");
    if (!root || !*root) throw Error("the pin backend needs PIN_ROOT pointing at an Intel Pin kit");
    std::string pintool = libdir + "/pin/slurm_pin_pintool.so";
    if (!exists(pintool))
      throw Error("the Pin tool is not built: rebuild slurm-pin with PIN_ROOT set (" + pintool + " is missing)");
    r.argv = {std::string(root) + "/pin", "-t", pintool, "-o", trace, "--"};
    r.writes_sums = false;
  } else {
    throw Error("unknown backend '" + backend + "': use valgrind, compiler or pin");
  }
  r.argv.insert(r.argv.end(), program.begin(), program.end());
  return r;
}

}  // namespace slurmpin
