// SPDX-License-Identifier: GPL-2.0-or-later
#include "sharing/profile.hh"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>
#include <utility>

#include "error.hh"
#include "sharing/matrix_file.hh"
#include "input/text_lines.hh"
#include "sharing/weights.hh"
#include "input/user_file.hh"

namespace slurmpin {

namespace {

const char kHeader[] = "slurm-pin-profile";
const char* const kModels[] = {"simple", "rw"};
const char* const kDrrClasses[] = {"no", "medium", "good"};
const char* const kRankModels[] = {"bytes", "messages"};

std::string rest_of(const TextLine& l) {
  size_t sp = l.text.find_first_of(" \t");
  if (sp == std::string_view::npos) return "";
  return std::string(l.text.substr(l.text.find_first_not_of(" \t", sp)));
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
  ProfileParser(std::string_view text, const std::string& path, const ProfileNeeds& needs)
      : path_(path), needs_(needs), lines_(split_text_lines(text, path)) {}
  // Regions' rows left in `text` when needs.defer_region_rows.
  ProfileParser(const FileBytes& text, const std::string& path, const ProfileNeeds& needs)
      : ProfileParser(text.view(), path, needs) {
    if (needs.defer_region_rows) kept_ = &text;
  }

  Profile parse() {
    header();
    scan();
    leave_region_rows();
    return checked();
  }

 private:
  // Every line once, in order: the keys, regions and matrices' places.
  void scan() {
    while (skip_blank()) {
      const TextLine& l = lines_[pos_];
      std::vector<std::string> f = split_fields_blank(l.text);
      std::string at = where(path_, l.number);
      ++pos_;
      if (f[0] == "matrix" || f[0] == "edges") matrix(f, at);
      else if (f[0] == "rank_matrix" || f[0] == "rank_edges") rank_matrix(f, at);
      else if (f[0] == "region") region(f, at);
      else if (f[0] == "aliases" && !region_.empty()) aliases(f, at);
      else if (!region_.empty())
        throw Error(at + "'" + f[0] + "' inside region " + region_ +
                    " (put whole-run keys before the first region line)");
      else key(f, l, at);
    }
  }

  // Checks what the scan cannot check line by line, and hands the profile over.
  Profile checked() {
    if (p_.threads == 0) throw Error(path_ + ": no 'threads N' line (every profile states its thread count)");
    if (!matrices_seen_.count("\nsimple") && p_.ranks == 0)
      throw Error(path_ + ": no 'matrix simple' section (every profile has the whole-run simple-model matrix, "
                          "or a rank section: 'ranks N' and 'rank_matrix bytes')");
    if (p_.ranks && !rank_models_seen_.count("bytes"))
      throw Error(path_ + ": 'ranks " + std::to_string(p_.ranks) +
                  "' without a 'rank_matrix bytes' section (the rank section's traffic)");
    per_thread(p_.thread_working_set_lines.size(), "thread_working_set_lines");
    per_thread(p_.thread_accesses.size(), "thread_accesses");
    per_thread(p_.thread_creators.size(), "thread_creators");
    per_thread(p_.thread_starts.size(), "thread_starts");
    for (int c : p_.thread_creators)
      if (c >= p_.threads) throw Error(path_ + ": thread_creators names thread " + std::to_string(c) + ", not a thread");
    per_region(p_.region_shares.size(), "region_shares");
    per_region(p_.region_sources.size(), "region_sources");
    return std::move(p_);  // parsed once: its matrices are handed over, not copied
  }

  void per_region(size_t values, const char* key) const {
    if (values && values != p_.regions.size())
      throw Error(path_ + ": " + key + " has " + std::to_string(values) + " values for " +
                  std::to_string(p_.regions.size()) + " regions (one per region)");
  }
  void per_thread(size_t values, const char* key) const {
    if (values && static_cast<int>(values) != p_.threads)
      throw Error(path_ + ": " + key + " has " + std::to_string(values) + " values for " +
                  std::to_string(p_.threads) + " threads (one per thread)");
  }

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
    // Region names hold no newline: one key per region (or the whole run) and model.
    if (!matrices_seen_.insert(region_ + '\n' + f[1]).second)
      throw Error(at + "matrix " + f[1] + " given twice" + (region_.empty() ? "" : " in region " + region_));
    if ((!region_.empty() && !needs_.regions) || (!needs_.model.empty() && f[1] != needs_.model))
      return skip_matrix(f[0] == "edges");
    if (f[0] == "edges") {
      edges[f[1]] = parse_edge_lines(lines_, pos_, p_.threads, path_);
    } else if (size_t first = pos_; kept_ && !region_.empty() && skip_matrix_rows(lines_, pos_, p_.threads)) {
      left_.push_back({p_.regions.size() - 1, f[1], first});
    } else {  // read now, and a matrix short of rows is named as it comes
      rows[f[1]] = parse_matrix_rows(lines_, pos_, p_.threads, path_);
    }
  }

  // 'rank_matrix MODEL' then `ranks` dense rows, or 'rank_edges MODEL' then
  // 'I J W' lines: what each rank sent to each other one.
  void rank_matrix(const std::vector<std::string>& f, const std::string& at) {
    if (f.size() != 2 || std::find(std::begin(kRankModels), std::end(kRankModels), f[1]) == std::end(kRankModels))
      throw Error(at + "expected '" + f[0] + " bytes' or '" + f[0] + " messages'");
    if (!region_.empty()) throw Error(at + "the rank section comes before the first region line");
    if (p_.ranks == 0) throw Error(at + "'ranks N' must come before the rank matrices");
    if (!rank_models_seen_.insert(f[1]).second) throw Error(at + f[0] + " " + f[1] + " given twice (keep one)");
    if (p_.ranks > needs_.max_ranks || (!needs_.rank_model.empty() && f[1] != needs_.rank_model))
      return skip_matrix(f[0] == "rank_edges", p_.ranks);
    if (f[0] == "rank_edges") p_.rank_edges[f[1]] = parse_edge_lines(lines_, pos_, p_.ranks, path_, "rank");
    else p_.rank_matrices[f[1]] = parse_matrix_rows(lines_, pos_, p_.ranks, path_, "rank");
  }

  // The region matrices left as text: the lines (and the bytes they view)
  // handed to them, shared.
  void leave_region_rows() {
    if (left_.empty()) return;
    auto text = std::make_shared<ProfileText>();
    text->bytes = *kept_;
    text->lines = std::move(lines_);
    for (const Deferred& d : left_) p_.regions[d.region].deferred[d.model] = DeferredRows{text, d.pos};
  }

  // A region matrix nobody asked for: its lines passed over, not parsed
  // (dense: `threads` rows; edges: lines that start with a digit).
  void skip_matrix(bool edges) { skip_matrix(edges, p_.threads); }
  void skip_matrix(bool edges, int dense_rows) {
    for (int rows = 0; pos_ < lines_.size(); ++pos_) {
      std::string_view t = lines_[pos_].text;
      if (t.empty()) continue;
      if (edges ? !std::isdigit(static_cast<unsigned char>(t[0])) : rows == dense_rows) break;
      ++rows;
    }
  }

  // Every region name and alias once, and no more of them than profilers make.
  void new_region_name(const std::string& name, const std::string& at) {
    if (region_names_.size() >= kMaxRegionNames)
      throw Error(at + "more than " + std::to_string(kMaxRegionNames) +
                  " regions and aliases (the profilers record at most that many): keep the regions that matter");
    if (!region_names_.insert(name).second) throw Error(at + "region " + name + " given twice (keep one)");
  }

  void region(const std::vector<std::string>& f, const std::string& at) {
    if (f.size() != 2) throw Error(at + "expected 'region NAME' (one word)");
    new_region_name(f[1], at);
    region_ = f[1];
    p_.regions.push_back(ProfileRegion());
    p_.regions.back().name = f[1];
  }

  // 'aliases NAME...' right after 'region NAME': every name once in the profile.
  void aliases(const std::vector<std::string>& f, const std::string& at) {
    ProfileRegion& r = p_.regions.back();
    if (!r.aliases.empty() || !r.matrices.empty() || !r.edges.empty() || f.size() < 2)
      throw Error(at + "'aliases NAME...' comes once, right after 'region " + region_ + "'");
    for (size_t i = 1; i < f.size(); ++i) {
      new_region_name(f[i], at);
      r.aliases.push_back(f[i]);
    }
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
      if (p_.threads > needs_.max_threads)
        throw Error(at + "a profile of " + std::to_string(p_.threads) + " threads, but at most " +
                    std::to_string(needs_.max_threads) + " can run here" +
                    (needs_.too_many_threads.empty() ? "" : " (" + needs_.too_many_threads + ")"));
    } else if (k == "ranks") {
      p_.ranks = parse_int(f[1], at, "ranks", 1, 1 << 16);
    } else if (k == "rank_collective_share") {
      p_.rank_collective_share = parse_weight(f[1], path_, l.number);
      if (p_.rank_collective_share > 1) throw Error(at + "the collectives' share of the bytes is from 0 to 1");
    } else if (k == "line_size") {
      p_.line_size = parse_int(f[1], at, "line_size", 8, 4096);
      if (p_.line_size & (p_.line_size - 1)) throw Error(at + "line_size must be a power of two");
    } else if (k == "working_set_lines") {
      p_.working_set_lines = parse_weight(f[1], path_, l.number);
    } else if (k == "thread_working_set_lines") {
      for (size_t i = 1; i < f.size(); ++i)
        p_.thread_working_set_lines.push_back(parse_weight(f[i], path_, l.number));
    } else if (k == "thread_accesses") {
      for (size_t i = 1; i < f.size(); ++i) p_.thread_accesses.push_back(parse_weight(f[i], path_, l.number));
    } else if (k == "thread_creators") {
      for (size_t i = 1; i < f.size(); ++i)
        p_.thread_creators.push_back(f[i] == "-" ? -1 : parse_int(f[i], at, "a creator", 0, (1 << 16) - 1));
    } else if (k == "thread_starts") {
      p_.thread_starts.assign(f.begin() + 1, f.end());
    } else if (k == "region_sources") {
      p_.region_sources.assign(f.begin() + 1, f.end());
    } else if (k == "region_shares") {
      for (size_t i = 1; i < f.size(); ++i) {
        p_.region_shares.push_back(parse_weight(f[i], path_, l.number));
        if (p_.region_shares.back() > 1) throw Error(at + "a region's share of accesses is from 0 to 1");
      }
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

  // A region's dense matrix the scan passed over: its region and first row.
  struct Deferred {
    size_t region;  // index in p_.regions
    std::string model;
    size_t pos;
  };

  std::string path_;
  ProfileNeeds needs_;
  // Regions' matrices left as text, and the text (defer_region_rows).
  std::vector<Deferred> left_;
  const FileBytes* kept_ = nullptr;
  std::vector<TextLine> lines_;
  size_t pos_ = 0;
  Profile p_;
  std::string region_;
  std::set<std::string> seen_;
  std::set<std::string> matrices_seen_;  // region + '\n' + model, parsed or passed over
  std::set<std::string> rank_models_seen_;
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

namespace {

std::string some_names(const std::vector<const ProfileRegion*>& rs) {
  std::string names;
  for (size_t i = 0; i < rs.size() && i < 8; ++i) names += (i ? ", " : "") + rs[i]->name;
  if (rs.size() > 8) names += ", ... (" + std::to_string(rs.size()) + " in all)";
  return names.empty() ? "none" : names;
}

}  // namespace

const ProfileRegion& Profile::find_region(const std::string& pattern, const std::string& path) const {
  std::vector<const ProfileRegion*> all, glob, prefix;
  // fnmatch backtracks: a few stars in a short pattern keep it cheap
  // whoever wrote the pattern.
  bool globbing = pattern.size() <= 256 && std::count(pattern.begin(), pattern.end(), '*') <= 4;
  for (const auto& r : regions) {
    if (r.name == pattern || std::find(r.aliases.begin(), r.aliases.end(), pattern) != r.aliases.end()) return r;
    all.push_back(&r);
    if (globbing && fnmatch(pattern.c_str(), r.name.c_str(), 0) == 0) glob.push_back(&r);
    if (r.name.compare(0, pattern.size(), pattern) == 0) prefix.push_back(&r);
  }
  const auto& found = !glob.empty() ? glob : prefix;
  if (found.size() == 1) return *found[0];
  if (found.empty()) throw Error(path + ": no region '" + pattern + "' (regions: " + some_names(all) + ")");
  throw Error(path + ": region '" + pattern + "' matches " + std::to_string(found.size()) + " regions (" +
              some_names(found) + "): give one name, a longer prefix or a narrower pattern");
}

namespace {

const std::map<std::string, DeferredRows> kNoneLeft;

// Throws, naming what is missing, when a section (`name`: its region, empty
// for the whole run) has no matrix of `model`.
void check_section(const std::map<std::string, Rows>& m, const std::map<std::string, EdgeList>& e,
                   const std::map<std::string, DeferredRows>& d, const std::string& model, const std::string& name,
                   const std::string& path) {
  if (!e.count(model) && !m.count(model) && !d.count(model))
    throw Error(path + ": no '" + model + "' matrix" + (name.empty() ? "" : " in region " + name) +
                " (use the simple model, or re-profile with the read/write model)");
}

// `model`'s matrix among a section's; rows left as text read now, and
// dropped once the matrix is built.
SharingMatrix section_matrix(const std::map<std::string, Rows>& m, const std::map<std::string, EdgeList>& e,
                             const std::map<std::string, DeferredRows>& d, int threads, const std::string& model,
                             const std::string& name, const std::string& path) {
  check_section(m, e, d, model, name, path);
  auto sparse = e.find(model);
  if (sparse != e.end()) return SharingMatrix::from_edges(threads, sparse->second);
  auto left = d.find(model);
  if (left == d.end()) return SharingMatrix::from_rows(m.at(model));
  size_t pos = left->second.first;
  return SharingMatrix::from_rows(parse_matrix_rows(left->second.text->lines, pos, threads, path));
}

}  // namespace

SharingMatrix Profile::affinity(const std::string& model, const std::string& region,
                           const std::string& path) const {
  if (region.empty()) return section_matrix(matrices, edges, kNoneLeft, threads, model, "", path);
  return affinity(model, find_region(region, path), path);
}

SharingMatrix Profile::affinity(const std::string& model, const ProfileRegion& region, const std::string& path) const {
  return section_matrix(region.matrices, region.edges, region.deferred, threads, model, region.name, path);
}

void Profile::check_matrix(const std::string& model, const ProfileRegion& region, const std::string& path) const {
  check_section(region.matrices, region.edges, region.deferred, model, region.name, path);
}

bool Profile::has_thread_matrix() const { return !matrices.empty() || !edges.empty(); }

SharingMatrix Profile::rank_traffic(const std::string& path) const {
  if (!ranks) throw Error(path + ": no rank section (profile the program with `slurm-pin profile --mpi`)");
  auto sparse = rank_edges.find("bytes");
  if (sparse != rank_edges.end()) return SharingMatrix::from_edges(ranks, sparse->second);
  auto dense = rank_matrices.find("bytes");
  if (dense == rank_matrices.end()) throw Error(path + ": the rank section's bytes were not read (more ranks than asked for)");
  return SharingMatrix::from_rows(dense->second);
}

namespace {

// `rows` without the dropped rows and columns.
Rows kept_rows(const Rows& rows, const std::vector<bool>& drop) {
  Rows out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (drop[i]) continue;
    out.emplace_back();
    for (size_t j = 0; j < rows[i].size(); ++j)
      if (!drop[j]) out.back().push_back(rows[i][j]);
  }
  return out;
}

EdgeList kept_edges(const EdgeList& edges, const std::vector<bool>& drop, const std::vector<int>& id) {
  EdgeList out;
  for (const Edge& e : edges)
    if (!drop[e.i] && !drop[e.j]) out.push_back({id[e.i], id[e.j], e.w});
  return out;
}

template <typename T>
void keep(std::vector<T>& per_thread, const std::vector<bool>& drop) {
  if (per_thread.size() != drop.size()) return;  // not recorded
  std::vector<T> out;
  for (size_t t = 0; t < drop.size(); ++t)
    if (!drop[t]) out.push_back(per_thread[t]);
  per_thread = std::move(out);
}

}  // namespace

void drop_threads(Profile& p, const std::vector<bool>& drop) {
  if (drop.size() != static_cast<size_t>(p.threads)) throw Error("internal: one flag per thread to drop");
  std::vector<int> id(drop.size(), -1);
  int kept = 0;
  for (size_t t = 0; t < drop.size(); ++t)
    if (!drop[t]) id[t] = kept++;
  if (kept == 0) throw Error("internal: every thread dropped");
  auto section = [&](std::map<std::string, Rows>& rows, std::map<std::string, EdgeList>& edges) {
    for (auto& m : rows) m.second = kept_rows(m.second, drop);
    for (auto& m : edges) m.second = kept_edges(m.second, drop, id);
  };
  section(p.matrices, p.edges);
  for (ProfileRegion& r : p.regions) section(r.matrices, r.edges);
  for (int& c : p.thread_creators) c = c >= 0 && static_cast<size_t>(c) < id.size() ? id[c] : -1;
  keep(p.thread_creators, drop);
  keep(p.thread_starts, drop);
  keep(p.thread_accesses, drop);
  keep(p.thread_working_set_lines, drop);
  p.threads = kept;
}

Profile read_profile(const std::string& path, const ProfileNeeds& needs) {
  std::string text = read_user_file(path, std::min(needs.max_bytes, kMaxProfileBytes));
  if (needs.defer_region_rows) return parse_profile(FileBytes(std::move(text)), path, needs);
  return parse_profile(text, path, needs);
}

Profile parse_profile(std::string_view text, const std::string& path, const ProfileNeeds& needs) {
  return ProfileParser(text, path, needs).parse();
}

Profile parse_profile(const FileBytes& text, const std::string& path, const ProfileNeeds& needs) {
  return ProfileParser(text, path, needs).parse();
}

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
  if (!p.thread_accesses.empty()) {
    out << "thread_accesses";
    for (double v : p.thread_accesses) out << " " << v;
    out << "\n";
  }
  if (!p.thread_creators.empty()) {
    out << "thread_creators";
    for (int c : p.thread_creators) c < 0 ? out << " -" : out << " " << c;
    out << "\n";
  }
  if (!p.thread_starts.empty()) {
    out << "thread_starts";
    for (const std::string& s : p.thread_starts) out << " " << s;
    out << "\n";
  }
  if (!p.region_sources.empty()) {
    out << "region_sources";
    for (const std::string& v : p.region_sources) out << " " << v;
    out << "\n";
  }
  if (!p.region_shares.empty()) {
    out << "region_shares";
    for (double v : p.region_shares) out << " " << v;
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
  if (p.ranks) {
    out << "ranks " << p.ranks << "\n";
    if (p.rank_collective_share >= 0) out << "rank_collective_share " << p.rank_collective_share << "\n";
    for (const auto& m : p.rank_matrices) {
      out << "rank_matrix " << m.first << "\n";
      format_rows(m.second, out);
    }
    for (const auto& m : p.rank_edges) {
      out << "rank_edges " << m.first << "\n";
      format_edges(m.second, out);
    }
  }
  sections(p.matrices, p.edges);
  for (const auto& r : p.regions) {
    out << "region " << r.name << "\n";
    if (!r.aliases.empty()) {
      out << "aliases";
      for (const std::string& a : r.aliases) out << " " << a;
      out << "\n";
    }
    sections(r.matrices, r.edges);
  }
  return out.str();
}

}  // namespace slurmpin
