/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A command's word as execvp would run it: the program `slurm-pin profile`
 * profiles (and the MPI program inside a launcher's command), and a
 * recording task's program, whose MPI the plugin reads as the user. Plain
 * C, libc only.
 */
#ifndef SLURM_PIN_PROGRAM_PATH_H
#define SLURM_PIN_PROGRAM_PATH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `word` as execvp finds it: a path (holding '/') as given, a bare name in
 * the directories of `path_env` in order (an empty entry is the current
 * directory; NULL: /usr/bin:/bin). Its path into buf and 0 when it is a
 * regular file the caller may execute; -1 otherwise. */
int program_path_find(const char *word, const char *path_env, char *buf, size_t len);

#ifdef __cplusplus
}
#include <cstdlib>
#include <string>
namespace slurmpin {
// program_path_find for the C++ commands, with their own $PATH; "" when none.
inline std::string find_executable(const std::string& word) {
  std::string buf(4096, '\0');
  if (program_path_find(word.c_str(), std::getenv("PATH"), &buf[0], buf.size()) != 0) return "";
  buf.resize(std::char_traits<char>::length(buf.c_str()));
  return buf;
}
}  // namespace slurmpin
#endif

#endif
