// SPDX-License-Identifier: GPL-2.0-or-later
// slurm-pin profile's work directory, where the backends and the MPI ranks
// write their results before they are analysed. Whoever runs the profiler
// (an admin filling the store, often as root) reads what lands there into a
// profile and removes it after, so the directory is held by descriptor:
// made in a parent that no other user can rename things in, opened
// O_NOFOLLOW and checked, and every read, unlink and rmdir made relative to
// that descriptor; each file read must be a regular file of the runner's
// own. The path is only what the writers are told.
#pragma once
#include <string>
#include <vector>

#include "input/user_file.hh"

namespace slurmpin {

struct WorkDir {
  std::string path;  // absolute, for the backends and the ranks to write into
  std::string name;  // its name in the parent
  int fd = -1;       // the directory itself
  int parent = -1;   // its parent, to remove it by name once checked
};

// A new directory .slurm-pin-profile.XXXXXX (0755) in `parent`. Throws
// Error naming the fix when `parent` is writable by group or others without
// being sticky, or belongs to a user other than root and the caller: that
// user could put a directory of theirs in its place.
WorkDir make_work_dir(const std::string& parent);

// An existing directory of the caller's own, `path` (its last part not a
// link): a recording job's rows (slurm-pin profile --rows). Throws Error
// naming it otherwise.
WorkDir open_work_dir(const std::string& path);

// Names in `dir` starting with `prefix`, sorted.
std::vector<std::string> work_names(const WorkDir& dir, const std::string& prefix);

// `name` in `dir` opened once (open_file_at, O_NOFOLLOW) and checked: a
// regular file owned by the caller. Holds nothing (fd -1) when nothing is
// there; throws Error for anything else.
Fd open_work_file(const WorkDir& dir, const std::string& name);

// The whole of `name` in `dir`, checked as above, at most `max_bytes`.
std::string read_work_file(const WorkDir& dir, const std::string& name, size_t max_bytes);

// Whether `name` exists in `dir` (a link is not followed).
bool work_file_exists(const WorkDir& dir, const std::string& name);

// Removes the directory from its parent if its name there still names it
// (what it holds must be gone first). Async-signal-safe.
void remove_work_dir(int parent, const char* name, int fd);

}  // namespace slurmpin
