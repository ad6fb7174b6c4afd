/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "mpi_program.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PHDRS 256      /* program headers read: linkers write about 15 */
#define MAX_DYNAMIC 4096   /* dynamic entries read */
#define MAX_NAME 256       /* bytes of one DT_NEEDED name */

static int read_at(int fd, void *buf, size_t len, uint64_t off) {
  return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The file offset of virtual address `addr`, through the PT_LOAD segments. */
static int offset_of(const Elf64_Phdr *ph, int n, uint64_t addr, uint64_t *off) {
  for (int i = 0; i < n; ++i)
    if (ph[i].p_type == PT_LOAD && addr >= ph[i].p_vaddr && addr - ph[i].p_vaddr < ph[i].p_filesz) {
      *off = ph[i].p_offset + (addr - ph[i].p_vaddr);
      return 0;
    }
  return -1;
}

static int kind_of_name(const char *name) {
  if (strncmp(name, "libmpich.so", 11) == 0 || strncmp(name, "libmpi.so.12", 12) == 0) return MPI_KIND_MPICH;
  if (strncmp(name, "libmpi.so.", 10) == 0) return MPI_KIND_OPENMPI;
  return MPI_KIND_NONE;
}

static int kind_of_elf(int fd) {
  Elf64_Ehdr eh;
  if (read_at(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > MAX_PHDRS)
    return MPI_KIND_NONE; /* not a 64-bit ELF program: a script, say */
  Elf64_Phdr ph[MAX_PHDRS];
  if (read_at(fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff) != 0) return MPI_KIND_NONE;
  const Elf64_Phdr *dyn = NULL;
  for (int i = 0; i < eh.e_phnum; ++i)
    if (ph[i].p_type == PT_DYNAMIC) dyn = &ph[i];
  if (!dyn) return MPI_KIND_NONE; /* static */
  size_t n = dyn->p_filesz / sizeof(Elf64_Dyn);
  if (n > MAX_DYNAMIC) n = MAX_DYNAMIC;
  Elf64_Dyn *d = malloc(n * sizeof *d + 1);
  if (!d || read_at(fd, d, n * sizeof *d, dyn->p_offset) != 0) {
    free(d);
    return MPI_KIND_NONE;
  }
  uint64_t strtab = 0, strsz = 0, off = 0;
  for (size_t i = 0; i < n && d[i].d_tag != DT_NULL; ++i) {
    if (d[i].d_tag == DT_STRTAB) strtab = d[i].d_un.d_ptr;
    if (d[i].d_tag == DT_STRSZ) strsz = d[i].d_un.d_val;
  }
  int kind = MPI_KIND_NONE;
  if (strtab && offset_of(ph, eh.e_phnum, strtab, &off) == 0)
    for (size_t i = 0; i < n && d[i].d_tag != DT_NULL && kind == MPI_KIND_NONE; ++i) {
      char name[MAX_NAME];
      if (d[i].d_tag != DT_NEEDED || d[i].d_un.d_val >= strsz) continue;
      ssize_t got = pread(fd, name, sizeof name - 1, (off_t)(off + d[i].d_un.d_val));
      if (got <= 0) continue;
      name[got] = '\0';
      kind = kind_of_name(name);
    }
  free(d);
  return kind;
}

int mpi_program_kind(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat st;
  int kind = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? kind_of_elf(fd) : MPI_KIND_NONE;
  close(fd);
  return kind;
}

const char *mpi_kind_name(int kind) {
  return kind == MPI_KIND_OPENMPI ? "openmpi" : kind == MPI_KIND_MPICH ? "mpich" : "";
}
