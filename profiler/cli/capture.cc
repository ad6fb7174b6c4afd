// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture.hh"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace slurmpin {

std::string capture(const std::vector<std::string>& argv, size_t limit) {
  int fds[2];
  if (pipe(fds) != 0) return "";
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& x : argv) args.push_back(const_cast<char*>(x.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[256];
  ssize_t n;
  while (pid > 0 && (n = read(fds[0], buf, sizeof buf)) > 0)
    if (out.size() < limit) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  return out;
}

}  // namespace slurmpin
