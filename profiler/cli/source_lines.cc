// SPDX-License-Identifier: GPL-2.0-or-later
#include "source_lines.hh"

#include <map>

#include "capture.hh"

namespace slurmpin {

void resolve_sources(RunHeader& h) {
  std::map<std::string, std::vector<size_t>> by_object;
  for (size_t r = 0; r < h.codes.size(); ++r)
    if (!h.codes[r].first.empty() && (r >= h.sources.size() || h.sources[r].empty())) by_object[h.codes[r].first].push_back(r);
  for (const auto& [object, regions] : by_object) {
    std::vector<std::string> argv = {"addr2line", "-e", object};
    for (size_t r : regions) argv.push_back(h.codes[r].second);
    std::string out = capture(argv, 64 * 1024);
    // One "path/file.c:31" line per address, "??:0" or "??:?" when unknown.
    size_t at = 0;
    for (size_t r : regions) {
      size_t end = out.find('\n', at);
      if (end == std::string::npos) break;
      std::string where = out.substr(at, end - at);
      at = end + 1;
      size_t colon = where.rfind(':');
      if (where.compare(0, 2, "??") == 0 || colon == std::string::npos || where.find('?', colon) != std::string::npos)
        continue;
      size_t discriminator = where.find(" (");  // "file.c:31 (discriminator 2)"
      if (discriminator != std::string::npos) where.resize(discriminator);
      size_t slash = where.rfind('/');
      h.sources.resize(h.regions.size());
      h.sources[r] = slash == std::string::npos ? where : where.substr(slash + 1);
    }
  }
}

}  // namespace slurmpin
