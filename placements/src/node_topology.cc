// SPDX-License-Identifier: GPL-2.0-or-later
#include "node_topology.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cpuset.hh"
#include "error.hh"
#include "topology.hh"
#include "user_file.hh"

namespace slurmpin {

namespace {

// Every PU, allowed or not: slurmd may run confined (CpuSpecList) and Slurm
// numbers cores over the whole node; each step restricts to its own CPUs.
constexpr unsigned long kFlags = HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED | HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM;

void keep_devices(hwloc_topology_t t) {
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  // "Important" drops GPU OS devices (nvml0, rsmi0): keep every one.
  hwloc_topology_set_type_filter(t, HWLOC_OBJ_OS_DEVICE, HWLOC_TYPE_FILTER_KEEP_ALL);
}

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void write_all(int fd, const char* data, size_t size, const std::string& shown) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(shown + ": " + std::strerror(errno));
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// The CPUs the kernel has online now, or nullptr when it cannot tell.
hwloc_bitmap_t online_cpus() {
  std::string text;
  try {
    text = read_file_at(AT_FDCWD, "/sys/devices/system/cpu/online", 1 << 16, 0, "online CPUs");
  } catch (const Error&) {
    return nullptr;
  }
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set && hwloc_bitmap_list_sscanf(set, text.c_str()) == 0) return set;
  hwloc_bitmap_free(set);
  return nullptr;
}

// A file only root may have written: anyone else could describe a machine
// that sends binding elsewhere.
bool trusted(const struct stat& st, std::string& why) {
  if (st.st_uid != 0) why = "not owned by root";
  else if (st.st_mode & (S_IWGRP | S_IWOTH)) why = "writable by others than root";
  else return true;
  return false;
}

}  // namespace

bool hwloc_source_overridden() {
  for (const char* name : {"HWLOC_XMLFILE", "HWLOC_SYNTHETIC", "HWLOC_FSROOT", "HWLOC_CPUID_PATH",
                           "HWLOC_COMPONENTS", "HWLOC_THISSYSTEM"})
    if (std::getenv(name)) return true;
  return false;
}

void save_node_topology(const std::string& path) {
  if (path.empty() || path.back() == '/') throw Error("topology cache '" + path + "': not a file path");
  hwloc_topology_t raw;
  if (hwloc_topology_init(&raw) < 0) throw Error("hwloc: cannot initialise a topology");
  TopologyPtr topo(raw);
  hwloc_topology_set_flags(raw, kFlags);
  keep_devices(raw);
  if (hwloc_topology_load(raw) < 0) throw Error("hwloc cannot discover this machine");
  char* xml = nullptr;
  int len = 0;
  if (hwloc_topology_export_xmlbuffer(raw, &xml, &len, 0) < 0 || len <= 0)
    throw Error("hwloc cannot write this machine's topology as XML");
  std::unique_ptr<char, void (*)(char*)> owned(xml, [](char* p) { free(p); });

  std::string dir = parent_of(path);
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) throw Error(dir + ": " + std::strerror(errno));
  // A new file next to the old, renamed over it: a step never reads half.
  std::string tmp = path + ".new." + std::to_string(getpid());
  Fd f(open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (f.fd < 0) throw Error(tmp + ": " + std::strerror(errno));
  try {
    if (fchmod(f.fd, 0644) != 0) throw Error(tmp + ": " + std::strerror(errno));  // whatever the umask
    write_all(f.fd, xml, static_cast<size_t>(len) - 1, tmp);                  // len counts the final NUL
    if (rename(tmp.c_str(), path.c_str()) != 0) throw Error(path + ": " + std::strerror(errno));
  } catch (...) {
    unlink(tmp.c_str());
    throw;
  }
}

hwloc_topology_t load_node_topology(const std::string& path, bool io, std::string& why) {
  if (hwloc_source_overridden()) return why = "HWLOC_* variables choose the topology", nullptr;
  std::string xml;
  struct stat st;
  try {
    xml = read_file_at(AT_FDCWD, path, kMaxTopologyXmlBytes, O_NOFOLLOW, path, &st);
  } catch (const Error& e) {
    return why = e.what(), nullptr;
  }
  if (!trusted(st, why)) return why = path + ": " + why, nullptr;
  hwloc_topology_t raw;
  if (hwloc_topology_init(&raw) < 0) return why = "hwloc: cannot initialise a topology", nullptr;
  TopologyPtr topo(raw);
  hwloc_topology_set_flags(raw, kFlags);
  if (io) keep_devices(raw);
  if (hwloc_topology_set_xmlbuffer(raw, xml.data(), static_cast<int>(xml.size()) + 1) < 0 ||
      hwloc_topology_load(raw) < 0)
    return why = path + ": not a topology hwloc can read", nullptr;
  Bitmap online(online_cpus());
  if (!online || !hwloc_bitmap_isequal(online.get(), hwloc_topology_get_topology_cpuset(raw)))
    return why = path + ": does not describe the CPUs online now", nullptr;
  return topo.release();
}

}  // namespace slurmpin
