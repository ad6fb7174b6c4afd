/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "region_name.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Looks `offset` (relative to the object's load base) up in the object's
 * .symtab (or .dynsym); returns 0 when found. */
static int lookup(const char *path, uintptr_t offset, char *buf, size_t len) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
    close(fd);
    return -1;
  }
  const unsigned char *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return -1;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;
  int found = -1;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
      eh->e_shoff <= (size_t)st.st_size &&
      (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= (size_t)st.st_size - eh->e_shoff) {
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(map + eh->e_shoff);
    for (int pass = 0; pass < 2 && found < 0; ++pass) {
      Elf64_Word want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
      for (int i = 0; i < eh->e_shnum && found < 0; ++i) {
        if (sh[i].sh_type != want || sh[i].sh_link >= eh->e_shnum) continue;
        /* A truncated or odd file names nothing rather than reading past it. */
        const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > (size_t)st.st_size || sh[i].sh_size > (size_t)st.st_size - sh[i].sh_offset ||
            strtab->sh_offset > (size_t)st.st_size || strtab->sh_size > (size_t)st.st_size - strtab->sh_offset)
          continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(map + sh[i].sh_offset);
        const char *names = (const char *)(map + sh[sh[i].sh_link].sh_offset);
        size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < count; ++k) {
          if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_value == 0 ||
              sym[k].st_name >= strtab->sh_size ||
              !memchr(names + sym[k].st_name, '\0', strtab->sh_size - sym[k].st_name))
            continue;
          uintptr_t start = sym[k].st_value;
          if (offset < start || offset >= start + (sym[k].st_size ? sym[k].st_size : 1)) continue;
          if (offset == start) snprintf(buf, len, "%s", names + sym[k].st_name);
          else snprintf(buf, len, "%s+%lu", names + sym[k].st_name, (unsigned long)(offset - start));
          found = 0;
          break;
        }
      }
    }
  }
  munmap((void *)map, (size_t)st.st_size);
  return found;
}

/* "libname.so.N+0xOFFSET" of `code` in `lm` when it is a shared library. */
static int library_offset(const void *code, const struct link_map *lm, char *buf, size_t len) {
  if (!lm->l_name || !lm->l_name[0]) return -1;
  const char *base = strrchr(lm->l_name, '/');
  snprintf(buf, len, "%s+0x%lx", base ? base + 1 : lm->l_name, (unsigned long)((uintptr_t)code - (uintptr_t)lm->l_addr));
  return 0;
}

int sp_library_offset(const void *code, char *buf, size_t len) {
  Dl_info info;
  struct link_map *lm = NULL;
  if (!dladdr1(code, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return -1;
  return library_offset(code, lm, buf, len);
}

void sp_region_name(const void *code, char *buf, size_t len) {
  Dl_info info;
  struct link_map *lm = NULL;
  if (dladdr1(code, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm) {
    const char *path = lm->l_name && lm->l_name[0] ? lm->l_name : "/proc/self/exe";
    /* l_addr: the load bias (0 for non-PIE executables). */
    if (lookup(path, (uintptr_t)code - (uintptr_t)lm->l_addr, buf, len) == 0) return;
    /* No symbol in a shared library (stripped, as distributions ship
     * them): its file name and the offset, as the Valgrind tool names it,
     * so that a thread an MPI library starts says whose it is. */
    if (library_offset(code, lm, buf, len) == 0) return;
  }
  snprintf(buf, len, "%p", code);
}
