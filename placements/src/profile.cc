// SPDX-License-Identifier: GPL-2.0-or-later
#include "profile.hh"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "error.hh"
#include "matrix_file.hh"
#include "text_lines.hh"
#include "user_file.hh"

namespace slurmpin {

namespace {

const char kHeader[] = "slurm-pin-profile";
const char* const kModels[] = {"simple", "rw"};
const char* const kDrrClasses[] = {"no", "medium", "good"};

std::string rest_of(const TextLine& l) {
  size_t sp = l.text.find_first_of(" \t");
  if (sp == std::string::npos) return "";
  return l.text.substr(l.text.find_first_not_of(" \t", sp));
}

int parse_int(const std::string& s, const std::string& at, const std::string& key, int lo, int hi) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(s) < lo || std::stoi(s) > hi)
    throw Error(at + key + " must be an integer from " + std::to_string(lo) + " to " +
                std::to_string(hi) + ", not '" + s + "'");
  return std::stoi(s);
}

class ProfileParser {
 public:
  ProfileParser(const std::string& text, const std::string& path) : path_(path), lines_(split_text_lines(text, path)) {}

  Profile parse() {
    header();
    while (skip_blank()) {
      const TextLine& l = lines_[pos_];
      std::vector<std::string> f = split_fields_blank(l.text);
      std::string at = where(path_, l.number);
      ++pos_;
      if (f[0] == "matrix" || f[0] == "edges") matrix(f, at);
      else if (f[0] == "region") region(f, at);
      else if (!region_.empty())
        throw Error(at + "'" + f[0] + "' inside region " + region_ +
                    " (put whole-run keys before the first region line)");
      else key(f, l, at);
    }
    if (p_.threads == 0) throw Error(path_ + ": no 'threads N' line (every profile states its thread count)");
    if (!p_.matrices.count("simple") && !p_.edges.count("simple"))
      throw Error(path_ + ": no 'matrix simple' section (every profile has the whole-run simple-model matrix)");
    if (!p_.thread_working_set_lines.empty() &&
        static_cast<int>(p_.thread_working_set_lines.size()) != p_.threads)
      throw Error(path_ + ": thread_working_set_lines has " +
                  std::to_string(p_.thread_working_set_lines.size()) + " values for " +
                  std::to_string(p_.threads) + " threads (one per thread)");
    return p_;
  }

 private:
  bool skip_blank() {
    while (pos_ < lines_.size() && lines_[pos_].text.empty()) ++pos_;
    return pos_ < lines_.size();
  }

  void header() {
    if (!skip_blank()) throw Error(path_ + ": empty profile (make one with `slurm-pin profile`)");
    const TextLine& l = lines_[pos_++];
    std::vector<std::string> f = split_fields_blank(l.text);
    if (f.size() != 2 || f[0] != kHeader)
      throw Error(where(path_, l.number) + "not a profile: the first line must be '" + kHeader +
                  " 1' (make one with `slurm-pin profile`)");
    if (f[1] != "1")
      throw Error(where(path_, l.number) + "profile format version " + f[1] +
                  " is not supported by this slurm-pin (it reads version 1): re-profile or upgrade");
  }

  // 'matrix MODEL' then dense rows, or 'edges MODEL' then 'I J W' lines.
  void matrix(const std::vector<std::string>& f, const std::string& at) {
    if (f.size() != 2 || std::find(std::begin(kModels), std::end(kModels), f[1]) == std::end(kModels))
      throw Error(at + "expected '" + f[0] + " simple' or '" + f[0] + " rw'");
    if (p_.threads == 0) throw Error(at + "'threads N' must come before the first matrix");
    auto& rows = region_.empty() ? p_.matrices : p_.regions.back().matrices;
    auto& edges = region_.empty() ? p_.edges : p_.regions.back().edges;
    if (rows.count(f[1]) || edges.count(f[1]))
      throw Error(at + "matrix " + f[1] + " given twice" + (region_.empty() ? "" : " in region " + region_));
    if (f[0] == "edges") edges[f[1]] = parse_edge_lines(lines_, pos_, p_.threads, path_);
    else rows[f[1]] = parse_matrix_rows(lines_, pos_, p_.threads, path_);
  }

  void region(const std::vector<std::string>& f, const std::string& at) {
    if (f.size() != 2) throw Error(at + "expected 'region NAME' (one word)");
    if (!region_names_.insert(f[1]).second) throw Error(at + "region " + f[1] + " given twice (keep one)");
    region_ = f[1];
    p_.regions.push_back({f[1], {}});
  }

  void key(const std::vector<std::string>& f, const TextLine& l, const std::string& at) {
    const std::string& k = f[0];
    if (!seen_.insert(k).second) throw Error(at + "'" + k + "' given twice (keep one)");
    if (f.size() < 2) throw Error(at + "'" + k + "' needs a value");
    if (k == "application") p_.application = rest_of(l);
    else if (k == "binary_sha256") p_.binary_sha256 = f[1];
    else if (k == "tool") p_.tool = rest_of(l);
    else if (k == "date") p_.date = f[1];
    else if (k == "topology") p_.topology = rest_of(l);
    else if (k == "threads") {
      if (!p_.matrices.empty()) throw Error(at + "'threads' must come before the matrices");
      p_.threads = parse_int(f[1], at, "threads", 1, 1 << 16);
    } else if (k == "line_size") {
      p_.line_size = parse_int(f[1], at, "line_size", 8, 4096);
      if (p_.line_size & (p_.line_size - 1)) throw Error(at + "line_size must be a power of two");
    } else if (k == "working_set_lines") {
      p_.working_set_lines = parse_weight(f[1], path_, l.number);
    } else if (k == "thread_working_set_lines") {
      for (size_t i = 1; i < f.size(); ++i)
        p_.thread_working_set_lines.push_back(parse_weight(f[i], path_, l.number));
    } else if (k == "drr") {
      if (f.size() != 3 ||
          std::find(std::begin(kDrrClasses), std::end(kDrrClasses), f[2]) == std::end(kDrrClasses))
        throw Error(at + "expected 'drr VALUE no|medium|good'");
      p_.drr = parse_weight(f[1], path_, l.number);
      p_.drr_class = f[2];
    } else {
      throw Error(at + "unknown key '" + k + "' (see docs/formats.md for the profile keys)");
    }
  }

  std::string path_;
  std::vector<TextLine> lines_;
  size_t pos_ = 0;
  Profile p_;
  std::string region_;
  std::set<std::string> seen_;
  std::set<std::string> region_names_;  // a set: checking stays linear in the file
};

void format_edges(const EdgeList& edges, std::ostringstream& out) {
  for (const Edge& e : edges) out << e.i << " " << e.j << " " << e.w << "\n";
}

void format_rows(const Rows& rows, std::ostringstream& out) {
  for (const auto& r : rows) {
    for (size_t j = 0; j < r.size(); ++j) out << (j ? " " : "") << r[j];
    out << "\n";
  }
}

}  // namespace

Affinity Profile::affinity(const std::string& model, const std::string& region,
                           const std::string& path) const {
  const std::map<std::string, Rows>* m = &matrices;
  const std::map<std::string, EdgeList>* e = &edges;
  if (!region.empty()) {
    auto it = std::find_if(regions.begin(), regions.end(), [&](const auto& r) { return r.name == region; });
    if (it == regions.end()) {
      std::string names;
      for (const auto& r : regions) names += (names.empty() ? "" : ", ") + r.name;
      throw Error(path + ": no region '" + region + "' (regions: " + (names.empty() ? "none" : names) + ")");
    }
    m = &it->matrices;
    e = &it->edges;
  }
  auto sparse = e->find(model);
  if (sparse != e->end()) return Affinity::from_edges(threads, sparse->second);
  auto it = m->find(model);
  if (it == m->end())
    throw Error(path + ": no '" + model + "' matrix" + (region.empty() ? "" : " in region " + region) +
                " (use the simple model, or re-profile with the read/write model)");
  return Affinity::from_rows(it->second);
}

Profile read_profile(const std::string& path) { return parse_profile(read_user_file(path, kMaxProfileBytes), path); }

Profile parse_profile(const std::string& text, const std::string& path) { return ProfileParser(text, path).parse(); }

std::string format_profile(const Profile& p) {
  std::ostringstream out;
  out.precision(17);
  out << kHeader << " " << Profile::kVersion << "\n";
  if (!p.application.empty()) out << "application " << p.application << "\n";
  if (!p.binary_sha256.empty()) out << "binary_sha256 " << p.binary_sha256 << "\n";
  if (!p.tool.empty()) out << "tool " << p.tool << "\n";
  if (!p.date.empty()) out << "date " << p.date << "\n";
  if (!p.topology.empty()) out << "topology " << p.topology << "\n";
  out << "threads " << p.threads << "\nline_size " << p.line_size << "\n";
  if (p.working_set_lines >= 0) out << "working_set_lines " << p.working_set_lines << "\n";
  if (!p.thread_working_set_lines.empty()) {
    out << "thread_working_set_lines";
    for (double v : p.thread_working_set_lines) out << " " << v;
    out << "\n";
  }
  if (p.drr >= 0) out << "drr " << p.drr << " " << p.drr_class << "\n";
  auto sections = [&](const std::map<std::string, Rows>& rows, const std::map<std::string, EdgeList>& edges) {
    for (const auto& m : rows) {
      out << "matrix " << m.first << "\n";
      format_rows(m.second, out);
    }
    for (const auto& m : edges) {
      out << "edges " << m.first << "\n";
      format_edges(m.second, out);
    }
  };
  sections(p.matrices, p.edges);
  for (const auto& r : p.regions) {
    out << "region " << r.name << "\n";
    sections(r.matrices, r.edges);
  }
  return out.str();
}

}  // namespace slurmpin
