// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/node_topology.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "topology/cpu_set.hh"
#include "error.hh"
#include "topology/topology.hh"
#include "trusted_dir.h"
#include "input/user_file.hh"

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

// A cache path as its trusted directory (checked from /, made if missing
// when `create`) and its file name.
struct CachePlace {
  Fd dir;
  std::string name;
};

CachePlace open_cache_place(const std::string& path, bool create) {
  size_t slash = path.rfind('/');
  if (path.empty() || path[0] != '/' || slash == std::string::npos || slash + 1 == path.size())
    throw Error("topology cache '" + path + "': not a file path (give an absolute path, or none)");
  CachePlace place;
  place.name = path.substr(slash + 1);
  if (!trusted_name_ok(place.name.c_str()))
    throw Error("topology cache '" + path + "': use letters, digits and . _ - in the file name");
  char err[512];
  place.dir.fd = trusted_dir_open(slash == 0 ? "/" : path.substr(0, slash).c_str(), create, err, sizeof err);
  if (place.dir.fd < 0) throw Error(std::string("topology cache: ") + err);
  return place;
}

// The CPUs the kernel has online now, or nullptr when it cannot tell.
// The kernel's list of online CPUs; false when it cannot be read.
bool online_cpus(CpuSet& set) {
  std::string text;
  try {
    text = read_file_at(AT_FDCWD, "/sys/devices/system/cpu/online", 1 << 16, 0, "online CPUs");
  } catch (const Error&) {
    return false;
  }
  return hwloc_bitmap_list_sscanf(set.get(), text.c_str()) == 0;
}

}  // namespace

bool hwloc_source_overridden() {
  for (const char* name : {"HWLOC_XMLFILE", "HWLOC_SYNTHETIC", "HWLOC_FSROOT", "HWLOC_CPUID_PATH",
                           "HWLOC_COMPONENTS", "HWLOC_THISSYSTEM"})
    if (std::getenv(name)) return true;
  return false;
}

void save_node_topology(const std::string& path) {
  // The directory is root's all the way from /: no user can redirect the
  // write through a link or a directory of their own.
  CachePlace place = open_cache_place(path, true);
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

  char err[512];
  if (trusted_file_write(place.dir.fd, place.name.c_str(), xml, static_cast<size_t>(len) - 1, 0644, err,
                         sizeof err) != 0)  // len counts the final NUL
    throw Error("topology cache " + path + ": " + err);
}

hwloc_topology_t load_node_topology(const std::string& path, bool io, std::string& why) {
  if (hwloc_source_overridden()) return why = "HWLOC_* variables choose the topology", nullptr;
  // Only a file root wrote, in directories only root can change: anyone
  // else could describe a machine that sends binding elsewhere.
  std::string xml;
  try {
    CachePlace place = open_cache_place(path, false);
    char err[512];
    size_t size = 0;
    char* text = trusted_file_read(place.dir.fd, place.name.c_str(), kMaxTopologyXmlBytes, &size, err, sizeof err);
    if (!text) return why = path + ": " + err, nullptr;
    xml.assign(text, size);
    free(text);
  } catch (const Error& e) {
    return why = e.what(), nullptr;
  }
  hwloc_topology_t raw;
  if (hwloc_topology_init(&raw) < 0) return why = "hwloc: cannot initialise a topology", nullptr;
  TopologyPtr topo(raw);
  hwloc_topology_set_flags(raw, kFlags);
  if (io) keep_devices(raw);
  if (hwloc_topology_set_xmlbuffer(raw, xml.data(), static_cast<int>(xml.size()) + 1) < 0 ||
      hwloc_topology_load(raw) < 0)
    return why = path + ": not a topology hwloc can read", nullptr;
  CpuSet online;
  if (!online_cpus(online) || !hwloc_bitmap_isequal(online.get(), hwloc_topology_get_topology_cpuset(raw)))
    return why = path + ": does not describe the CPUs online now", nullptr;
  return topo.release();
}

}  // namespace slurmpin
