// SPDX-License-Identifier: GPL-2.0-or-later
#include "binding/preloadable.hh"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "error.hh"
#include "input/user_file.hh"

namespace slurmpin {

namespace {

enum class Kind { kDynamic, kStatic, kSetId, kScript, kUnknown };

// A program's first bytes, and whether it is set-user/group-ID: one open.
struct Head {
  Kind kind = Kind::kUnknown;
  std::string interpreter;  // for a script
};

bool read_at(int fd, void* buf, size_t size, off_t at) {
  return pread(fd, buf, size, at) == static_cast<ssize_t>(size);
}

// PT_INTERP among the program headers of a 64- or 32-bit ELF file.
template <typename Ehdr, typename Phdr>
Kind elf_kind(int fd) {
  Ehdr e;
  if (!read_at(fd, &e, sizeof e, 0) || e.e_phentsize != sizeof(Phdr) || e.e_phnum == 0 || e.e_phnum > 4096)
    return Kind::kUnknown;
  std::vector<Phdr> ph(e.e_phnum);
  if (!read_at(fd, ph.data(), ph.size() * sizeof(Phdr), static_cast<off_t>(e.e_phoff))) return Kind::kUnknown;
  for (const Phdr& h : ph)
    if (h.p_type == PT_INTERP) return Kind::kDynamic;
  return Kind::kStatic;
}

Head inspect(const std::string& path) {
  Head h;
  Fd f(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  struct stat st;
  if (f.fd < 0 || fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return h;
  if (st.st_mode & (S_ISUID | S_ISGID)) return h.kind = Kind::kSetId, h;
  char start[256] = {0};
  ssize_t n = pread(f.fd, start, sizeof start - 1, 0);
  if (n >= 2 && start[0] == '#' && start[1] == '!') {
    const char* p = start + 2;
    while (*p == ' ' || *p == '\t') ++p;
    h.interpreter.assign(p, std::strcspn(p, " \t\n"));
    h.kind = Kind::kScript;
  } else if (n >= EI_NIDENT && std::memcmp(start, ELFMAG, SELFMAG) == 0) {
    h.kind = start[EI_CLASS] == ELFCLASS64 ? elf_kind<Elf64_Ehdr, Elf64_Phdr>(f.fd)
             : start[EI_CLASS] == ELFCLASS32 ? elf_kind<Elf32_Ehdr, Elf32_Phdr>(f.fd)
                                             : Kind::kUnknown;
  }
  return h;
}

// As execvp: a name with a slash as is, else the first executable in PATH.
std::string resolve(const std::string& program, const std::string& path_env) {
  if (program.find('/') != std::string::npos) return program;
  size_t at = 0;
  while (at <= path_env.size()) {
    size_t end = path_env.find(':', at);
    if (end == std::string::npos) end = path_env.size();
    std::string dir = path_env.substr(at, end - at);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return "";
}

std::string cannot_load(const std::string& program, const std::string& why) {
  return "slurm-pin's thread library cannot be loaded into " + program + ": " + why;
}

}  // namespace

std::string preload_problem(const std::string& program, const std::string& path_env) {
  std::string path = resolve(program, path_env);
  if (path.empty()) return "";
  Head h = inspect(path);
  if (h.kind == Kind::kScript && !h.interpreter.empty()) {
    Head i = inspect(h.interpreter);
    if (i.kind == Kind::kStatic) return cannot_load(path, "its interpreter " + h.interpreter + " is statically linked");
    if (i.kind == Kind::kSetId)
      return cannot_load(path, "its interpreter " + h.interpreter + " is set-user-ID or set-group-ID");
    return "";
  }
  if (h.kind == Kind::kStatic) return cannot_load(path, "it is statically linked, so no loader runs to preload it");
  if (h.kind == Kind::kSetId)
    return cannot_load(path, "it is set-user-ID or set-group-ID, so the loader ignores LD_PRELOAD");
  return "";
}

void check_preloadable(const std::string& program, const std::string& path_env) {
  std::string problem = preload_problem(program, path_env);
  if (!problem.empty())
    throw Error(problem + " (bind threads with OpenMP's variables instead: thread binding env; or run a dynamically "
                          "linked program without set-user-ID)");
}

std::string env_only_note(const std::string& why) {
  return "threads bound by OMP_PLACES only (" + why +
         "): an OpenMP program's threads are placed, other threads run on the task's CPUs";
}

}  // namespace slurmpin
