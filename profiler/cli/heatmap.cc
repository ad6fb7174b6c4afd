// SPDX-License-Identifier: GPL-2.0-or-later
#include "heatmap.hh"

#include <fcntl.h>
#include <jansson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "error.hh"
#include "self_dir.h"

namespace slurmpin {

namespace {

// The drawer, slurm-pin-heatmap, sits beside this helper: in a build's bin/
// and in LIBEXECDIR/slurm-pin once installed.
std::string drawer_path() {
  char dir[PATH_MAX];
  if (self_dir(dir, sizeof dir) != 0)
    throw Error(std::string("cannot find slurm-pin-heatmap: ") + std::strerror(errno));
  return std::string(dir) + "/slurm-pin-heatmap";
}

// Runs the drawer with `input` on its standard input; its error, if any,
// becomes ours.
void run_drawer(const std::string& input, const std::string& path) {
  std::string drawer = drawer_path();
  int in[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) throw Error(std::string("heatmap: ") + std::strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]);
    throw Error(std::string("heatmap: ") + std::strerror(errno));
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(err[1], STDERR_FILENO);
    execl(drawer.c_str(), drawer.c_str(), path.c_str(), static_cast<char*>(nullptr));
    dprintf(STDERR_FILENO, "cannot run %s: %s (slurm-pin-profiler installs it)\n", drawer.c_str(), std::strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(err[1]);
  void (*old)(int) = std::signal(SIGPIPE, SIG_IGN);  // a drawer that died early is reported below
  for (size_t done = 0; pid > 0 && done < input.size();) {
    ssize_t w = write(in[1], input.data() + done, input.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += static_cast<size_t>(w);
  }
  close(in[1]);
  std::signal(SIGPIPE, old);
  std::string message;
  char buf[512];
  for (ssize_t r; pid > 0 && (r = read(err[0], buf, sizeof buf)) != 0;) {
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    if (message.size() < 4096) message.append(buf, static_cast<size_t>(r));
  }
  close(err[0]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!message.empty() && message.back() == '\n') message.pop_back();
    size_t last = message.rfind('\n');  // a traceback's last line says what went wrong
    throw Error("heatmap not drawn: " + (message.empty() ? std::string("slurm-pin-heatmap failed")
                                                         : message.substr(last == std::string::npos ? 0 : last + 1)));
  }
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 1e6 ? "%.2e" : "%.0f", v);
  return buf;
}

}  // namespace

namespace {

// A cell's own value as written in it: a share in percent, or a count.
std::string cell_text(double v, bool share) {
  char buf[32];
  if (share)
    std::snprintf(buf, sizeof buf, v == 0 ? "0" : v >= 0.1 ? "%.1f%%" : v >= 0.01 ? "%.2f%%" : v >= 0.0001 ? "%.4f%%" : "%.0e%%", v);
  else std::snprintf(buf, sizeof buf, v >= 1e4 ? "%.1e" : "%.0f", v);
  return buf;
}

}  // namespace

void write_heatmap_png(const std::vector<std::vector<double>>& m, const std::vector<double>& thread_accesses,
                       const std::string& title, const std::string& unit, const std::string& path,
                       const std::string& axis, const std::vector<std::string>& names) {
  size_t n = m.size();
  if (n == 0) throw Error("empty matrix: nothing to draw");
  double max = 0, accesses = 0;
  for (const auto& row : m)
    for (double v : row) max = std::max(max, v);
  bool share = thread_accesses.size() == n;
  if (share)
    for (double a : thread_accesses) accesses += a;
  share = share && accesses > 0;
  std::unique_ptr<json_t, void (*)(json_t*)> rows(json_array(), json_decref), texts(json_array(), json_decref),
      labels(json_array(), json_decref);
  for (size_t i = 0; i < n; ++i) {
    json_t *r = json_array(), *t = json_array();
    for (size_t j = 0; j < n && j < m[i].size(); ++j) {
      json_array_append_new(r, json_real(max > 0 ? m[i][j] / max : 0));
      json_array_append_new(t, json_string(cell_text(share ? 100 * m[i][j] / accesses : m[i][j], share).c_str()));
    }
    json_array_append_new(rows.get(), r);
    json_array_append_new(texts.get(), t);
    std::string label = std::to_string(i);
    if (i < names.size() && !names[i].empty() && names[i] != "-") label += " " + names[i].substr(0, 16);
    json_array_append_new(labels.get(), json_string(label.c_str()));
  }
  std::string top = share ? cell_text(100 * max / accesses, true) + " of the run's accesses" : number(max);
  std::string caption = "cells: " + unit + (share ? ", as a share of all " + number(accesses) + " accesses of the run" : "") +
                        "; colour relative to the pair that shares most (" + top + ")";
  std::unique_ptr<json_t, void (*)(json_t*)> spec(
      json_pack("{s:s%, s:s%, s:O, s:O, s:O, s:s, s:s%}", "title", title.data(), title.size(), "caption",
                caption.data(), caption.size(), "values", rows.get(), "texts", texts.get(), "labels", labels.get(),
                "top", top.c_str(), "axis", axis.data(), axis.size()),
      json_decref);
  char* text = spec ? json_dumps(spec.get(), JSON_COMPACT) : nullptr;
  if (!text) throw Error("heatmap: out of memory");
  std::string input(text);
  std::free(text);
  run_drawer(input, path);
}

}  // namespace slurmpin
