// SPDX-License-Identifier: GPL-2.0-or-later
#include "preflight.hh"

#include "mpi_program.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "error.hh"

namespace slurmpin {

namespace {

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// What the binary says about itself, read once from one descriptor.
struct BinaryFacts {
  bool elf = false, tsan_hooks = false, libtsan = false;
  int dwarf_version = 0;  // of the first unit of .debug_info; 0: none or compressed
  bool dwarf_indexes = false;
};

bool contains(std::string_view data, const char* what) { return data.find(what) != std::string_view::npos; }

// The DWARF version of the first unit of .debug_info (0: none, or
// compressed), and whether string and address indexes (DW_FORM_strx,
// DW_FORM_addrx: .debug_str_offsets), which clang emits with DWARF 5 and
// Valgrind before 3.20 cannot read; GCC's DWARF 5 does without them.
void read_dwarf(std::string_view data, BinaryFacts& f) {
  if (data.size() < sizeof(Elf64_Ehdr)) return;
  Elf64_Ehdr eh;
  std::memcpy(&eh, data.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr)) return;
  auto section = [&](size_t i, Elf64_Shdr& sh) {
    size_t at = eh.e_shoff + i * sizeof(Elf64_Shdr);
    if (eh.e_shoff > data.size() || i > data.size() / sizeof(Elf64_Shdr) || at > data.size() - sizeof sh)
      return false;
    std::memcpy(&sh, data.data() + at, sizeof sh);
    return true;
  };
  Elf64_Shdr names;
  if (eh.e_shstrndx >= eh.e_shnum || !section(eh.e_shstrndx, names) || names.sh_offset >= data.size()) return;
  auto named = [&](const Elf64_Shdr& sh, std::string_view want) {
    size_t at = names.sh_offset + sh.sh_name;
    return sh.sh_name < data.size() - names.sh_offset && data.size() - at > want.size() &&
           data.substr(at, want.size()) == want && data[at + want.size()] == '\0';
  };
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!section(i, sh)) continue;
    if (named(sh, ".debug_str_offsets")) f.dwarf_indexes = true;
    if (!named(sh, ".debug_info")) continue;
    if ((sh.sh_flags & SHF_COMPRESSED) || data.size() < 14 || sh.sh_offset > data.size() - 14) continue;
    uint32_t len32;
    std::memcpy(&len32, data.data() + sh.sh_offset, 4);
    uint16_t version;
    std::memcpy(&version, data.data() + sh.sh_offset + (len32 == 0xffffffffu ? 12 : 4), 2);
    f.dwarf_version = version;
  }
}

// The whole file, mapped (binaries can be large), opened once: its dynamic
// symbols and section table can be anywhere in it.
BinaryFacts facts_of(const std::string& program) {
  BinaryFacts f;
  int fd = open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("program " + program + ": " + std::strerror(errno));
  struct stat st;
  void* map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return f;
  std::string_view data(static_cast<const char*>(map), static_cast<size_t>(st.st_size));
  f.elf = data.substr(0, 4) == std::string_view(ELFMAG, 4);
  if (f.elf) {
    f.tsan_hooks = contains(data, "__tsan_func_entry") || contains(data, "__tsan_init");
    f.libtsan = contains(data, "libtsan.so");
    read_dwarf(data, f);
  }
  munmap(map, static_cast<size_t>(st.st_size));
  return f;
}

bool before_3_20(const std::string& v) {
  int major = 0, minor = 0;
  if (std::sscanf(v.c_str(), "%d.%d", &major, &minor) != 2) return false;
  return major < 3 || (major == 3 && minor < 20);
}

}  // namespace

void check_destination(const std::string& store, const std::string& output) {
  if (!output.empty()) {
    std::string dir = dir_of(output);
    if (access(dir.c_str(), W_OK) != 0)
      throw Error("cannot write the profile into " + dir + ": " + std::strerror(errno) +
                  " (give --output a file in a directory you can write)");
    return;
  }
  // The admin creates the store; writing into it needs its owner.
  if (access(store.c_str(), F_OK) != 0)
    throw Error("the profile store " + store + " does not exist: create it (owned by the admin, mode 755), or "
                "write a file with --output FILE");
  if (access(store.c_str(), W_OK) != 0)
    throw Error("the profile store " + store + " is not writable by you (" + std::strerror(errno) +
                "): run as the store's owner, or write a file with --output FILE for an admin to "
                "`slurm-pin profiles import`");
}

void check_binary(const std::string& backend, const std::string& program, const std::string& valgrind_version) {
  BinaryFacts f = facts_of(program);
  if (!f.elf) return;
  if (backend == "compiler") {
    if (f.libtsan)
      throw Error(program + " is linked with libtsan: the compiler backend needs slurm-pin's runtime instead "
                            "(link with -lslurm_pin_tsan and without -fsanitize=thread, see docs/profiler.md)");
    if (!f.tsan_hooks)
      throw Error(program + " was not built for the compiler backend: compile with -fsanitize=thread and link "
                            "with -lslurm_pin_tsan (docs/profiler.md), or profile it with --backend valgrind");
  } else if (backend == "valgrind") {
    if (f.tsan_hooks)
      throw Error(program + " was built with -fsanitize=thread: under valgrind its counts would include the "
                            "instrumentation's; profile it with --backend compiler, or rebuild without it");
    if (f.dwarf_version >= 5 && f.dwarf_indexes && before_3_20(valgrind_version))
      throw Error(program + " has clang's DWARF " + std::to_string(f.dwarf_version) + " debug info, which Valgrind " +
                  valgrind_version + " cannot read: rebuild with -gdwarf-4 (clang-14's -g is DWARF 5)");
  }
}

std::string mpi_library_of(const std::string& program) {
  int kind = mpi_program_kind(program.c_str());  // the plugin's own reading, common/mpi_program.h
  return kind > 0 ? mpi_kind_name(kind) : "";
}

void check_cpus(int cpus, int cpus_on_node, const std::vector<int>& node_cpus, const std::string& partition) {
  if (cpus_on_node > 0) {
    if (cpus > cpus_on_node)
      throw Error("the profiling step would ask " + std::to_string(cpus) + " CPUs but this allocation has " +
                  std::to_string(cpus_on_node) + " on its node: give --cpus " + std::to_string(cpus_on_node) +
                  " or fewer (the valgrind backend needs only 1)");
    return;
  }
  int largest = node_cpus.empty() ? 0 : *std::max_element(node_cpus.begin(), node_cpus.end());
  if (largest > 0 && cpus > largest)
    throw Error("the profiling job would ask " + std::to_string(cpus) + " CPUs but the largest node" +
                (partition.empty() ? "" : " of partition " + partition) + " has " + std::to_string(largest) +
                ", so it would wait forever: give --cpus " + std::to_string(largest) +
                " or fewer (the valgrind backend needs only 1)");
}

}  // namespace slurmpin
