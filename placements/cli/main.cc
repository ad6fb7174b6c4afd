// SPDX-License-Identifier: GPL-2.0-or-later
// slurm-pin: the command-line front end. Subcommands live one per file.
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "error.hh"
#include "place_command.hh"
#include "input/printable.hh"
#include "run_command.hh"
#include "self_dir.h"
#include "stderr_line.h"

namespace {

const char kUsage[] =
    "usage: slurm-pin <command> [options]\n"
    "commands:\n"
    "  place     compute and explain a thread placement (slurm-pin place --help)\n"
    "  run       bind this process and run a program, outside Slurm (slurm-pin run --help)\n"
    "  profile   profile an application's sharing as a Slurm job (slurm-pin profile --help)\n"
    "  profiles  list, show, export, import and remove stored profiles\n"
    "  policy    check a site policy file, explain what a job would get, probe its install\n"
    "  evaluate  measure which strategy pays for an application (slurm-pin evaluate --help)\n"
    "  autopilot learn each explored application's placement from its runs (slurm-pin autopilot --help)\n"
    "  doctor    check this node's or the controller's setup, one line per problem with its fix\n"
    "  version   print the version\n"
    "exit status: 0 success, 1 error, 2 the command line is wrong\n";

// Other components ship their commands as slurm-pin-NAME (as git does), so
// the engine's CLI depends on none of them: beside this binary in a build
// tree, in LIBEXECDIR/slurm-pin once installed (relative to this binary).
int run_sibling(const char* command, char** argv) {
  char self[PATH_MAX];
  if (self_dir(self, sizeof self) != 0) return -1;
  std::string dir(self);
  if (std::strchr(command, '/') || !*command || *command == '-') return -1;
  std::string path = dir + "/slurm-pin-" + command;
  if (access(path.c_str(), X_OK) != 0) path = dir + "/" + SLURM_PIN_BIN_TO_HELPERS + "/slurm-pin-" + command;
  if (access(path.c_str(), X_OK) != 0) return -1;
  argv[0] = const_cast<char*>(path.c_str());
  execv(path.c_str(), argv);
  stderr_line("slurm-pin: error: cannot run %s: %s\n", path.c_str(), std::strerror(errno));
  return 126;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  try {
    if (!std::strcmp(argv[1], "place")) return slurmpin::place_command(argc - 1, argv + 1);
    if (!std::strcmp(argv[1], "run")) return slurmpin::run_command(argc - 1, argv + 1);
    if (!std::strcmp(argv[1], "version") || !std::strcmp(argv[1], "--version")) {
      std::printf("slurm-pin %s\n", SLURM_PIN_VERSION);
      return 0;
    }
    int rc = run_sibling(argv[1], argv + 1);
    if (rc >= 0) return rc;
    stderr_line("slurm-pin: error: unknown command '%s' (see slurm-pin --help)\n", argv[1]);
    return 2;
  } catch (const std::exception& e) {
    stderr_line("slurm-pin: error: %s\n", slurmpin::printable(e.what()).c_str());
    return dynamic_cast<const slurmpin::UsageError*>(&e) ? 2 : 1;
  }
}
