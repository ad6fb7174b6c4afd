// SPDX-License-Identifier: GPL-2.0-or-later
// The admin-managed profile store: STORE/APP/tT.vV.profile, one file per
// application, thread count and version. Readers trust only files owned by
// root or by the store's owner and writable by nobody else, so a user cannot
// plant a profile that steers other users' jobs.
#pragma once
#include <string>
#include <vector>

#include "input/user_file.hh"
#include "slurm_pin_options.h"

namespace slurmpin {

struct StoredProfile {
  std::string app;
  int threads = 0;
  int version = 0;
  std::string path;
  FileBytes text;  // filled by find_profile: the entry as mapped, once, from its descriptor
};

// Every profile in the store, sorted by app, threads, version. Throws Error
// when the store or an entry is not trustworthy; with `problems`, an
// untrustworthy entry is described there and left out instead.
std::vector<StoredProfile> list_store(const std::string& dir, std::vector<std::string>* problems = nullptr);

// The profile of `app` at `threads` threads; version 0 means the newest.
// Throws Error naming what the store has instead.
// `cpus`: the CPUs (slots) each task has, when known (0: not), so that
// the error for a missing thread count says what the others would cost.
StoredProfile find_profile(const std::string& dir, const std::string& app, int threads, int version, int cpus = 0);

// An entry's text, read through the store's descriptors (no symbolic links,
// trust checked on the opened file).
FileBytes read_stored_profile(const std::string& dir, const StoredProfile& p);

// Where a profile of that app, thread count and version lives.
std::string profile_path(const std::string& dir, const std::string& app, int threads, int version);

// Writes a new version of APP's profile at THREADS threads atomically (a
// temporary file, fsync, rename, under a lock against concurrent writers),
// keeping earlier versions. Returns the entry written.
StoredProfile store_profile(const std::string& dir, const std::string& app, int threads,
                            const std::string& content);

// Rewrites STORE/.index (atomically, generation + 1): every trusted profile
// as "p APP THREADS VERSION". Readers that cannot list directories cheaply
// (the Lua policy in slurmctld) read its generation line per job and reload
// the rest only when it changed. store_profile calls it; so do profile
// removal and `slurm-pin profiles reindex`.
void rebuild_store_index(const std::string& dir);

// The one rule for store profile names, used by the CLI, the plugin and the
// Lua policy (generated from these constants), in slurm_pin_options.h:
// NAME of kProfileNameChars, at most kMaxProfileName long, not starting with
// a dot; VERSION a positive number of at most kMaxProfileVersionDigits.
constexpr const char* kProfileNameChars = SP_PROFILE_NAME_CHARS;
constexpr size_t kMaxProfileName = SP_PROFILE_NAME_MAX;
constexpr size_t kMaxProfileVersionDigits = SP_PROFILE_VERSION_DIGITS;
bool valid_app(const std::string& app);

// "NAME" or "NAME@VERSION"; anything with a '/' is a file path instead.
struct ProfileSpec {
  bool is_path = false;
  std::string path, app;
  int version = 0;
};
ProfileSpec parse_profile_spec(const std::string& text);

}  // namespace slurmpin
