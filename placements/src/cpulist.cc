#include "cpulist.hh"

#include <algorithm>
#include <cctype>

#include "error.hh"

namespace slurmpin {

namespace {

constexpr unsigned long kMaxCpu = 1u << 20;  // far above any real machine

unsigned long parse_index(const std::string& text, size_t& pos, const std::string& what) {
  if (pos >= text.size() || !std::isdigit(static_cast<unsigned char>(text[pos])))
    throw Error(what + ": '" + text + "' is not a CPU list: expected a number at position " +
                std::to_string(pos + 1) + " (write lists like 0-3,8,10-11)");
  unsigned long v = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    v = v * 10 + static_cast<unsigned long>(text[pos] - '0');
    if (v > kMaxCpu) throw Error(what + ": CPU index in '" + text + "' is too large");
    ++pos;
  }
  return v;
}

}  // namespace

std::vector<unsigned> parse_cpulist(const std::string& text, const std::string& what) {
  if (text.empty()) throw Error(what + ": empty CPU list (write lists like 0-3,8,10-11)");
  std::vector<unsigned> cpus;
  size_t pos = 0;
  while (true) {
    unsigned long lo = parse_index(text, pos, what), hi = lo;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      hi = parse_index(text, pos, what);
      if (hi < lo)
        throw Error(what + ": reversed range " + std::to_string(lo) + "-" + std::to_string(hi) +
                    " in '" + text + "' (write the lower CPU first)");
    }
    for (unsigned long c = lo; c <= hi; ++c) cpus.push_back(static_cast<unsigned>(c));
    if (pos == text.size()) break;
    if (text[pos] != ',')
      throw Error(what + ": unexpected '" + std::string(1, text[pos]) + "' in CPU list '" + text +
                  "' (write lists like 0-3,8,10-11)");
    ++pos;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpulist(const std::vector<unsigned>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace slurmpin
