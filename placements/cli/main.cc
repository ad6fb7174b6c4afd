// slurm-pin: the command-line front end. Subcommands live one per file.
#include <cstdio>
#include <cstring>
#include <exception>

#include "place_command.hh"

namespace {

const char kUsage[] =
    "usage: slurm-pin <command> [options]\n"
    "commands:\n"
    "  place     compute and explain a thread placement (slurm-pin place --help)\n"
    "  version   print the version\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  try {
    if (!std::strcmp(argv[1], "place")) return slurmpin::place_command(argc - 1, argv + 1);
    if (!std::strcmp(argv[1], "version") || !std::strcmp(argv[1], "--version")) {
      std::printf("slurm-pin %s\n", SLURM_PIN_VERSION);
      return 0;
    }
    std::fprintf(stderr, "slurm-pin: error: unknown command '%s' (see slurm-pin --help)\n", argv[1]);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slurm-pin: error: %s\n", e.what());
    return 1;
  }
}
