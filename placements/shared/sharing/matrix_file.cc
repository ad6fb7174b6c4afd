// SPDX-License-Identifier: GPL-2.0-or-later
#include "sharing/matrix_file.hh"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "error.hh"
#include "input/user_file.hh"
#include "sharing/weights.hh"

namespace slurmpin {

namespace {

bool looks_numeric(std::string_view text) {
  return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' ||
                           text[0] == '-' || text[0] == '+');
}

// Where the rows of a matrix of `expect` (> 0) rows from lines[pos] end:
// blank lines passed over, at the first line that does not look like a
// row, or after `expect` rows; `rows` is how many it passed. The one rule
// for reading a matrix's rows now and for passing them to read later.
size_t rows_end(const std::vector<TextLine>& lines, size_t pos, int expect, int& rows) {
  rows = 0;
  for (; pos < lines.size(); ++pos) {
    if (lines[pos].text.empty()) continue;
    if (rows == expect || !looks_numeric(lines[pos].text)) break;
    ++rows;
  }
  return pos;
}

}  // namespace

bool skip_matrix_rows(const std::vector<TextLine>& lines, size_t& pos, int expect) {
  int rows;
  size_t end = rows_end(lines, pos, expect, rows);
  if (rows != expect) return false;
  pos = end;
  return true;
}

std::vector<std::vector<double>> parse_matrix_rows(const std::vector<TextLine>& lines, size_t& pos,
                                                   int expect, const std::string& path, const std::string& item) {
  std::vector<std::vector<double>> rows;
  int first_line = pos < lines.size() ? lines[pos].number : 0;
  int found;  // rows_end's count: the rows read below say the same
  size_t end = expect > 0 ? rows_end(lines, pos, expect, found) : lines.size();
  for (; pos < end; ++pos) {
    const TextLine& l = lines[pos];
    if (l.text.empty()) continue;
    std::vector<double> row;
    row.reserve(rows.empty() ? static_cast<size_t>(std::max(expect, 0)) : rows[0].size());
    if (rows.empty()) first_line = l.number;  // errors about the whole matrix name its first row
    append_weights(l.text, row, path, l.number);
    int want = expect > 0 ? expect : static_cast<int>(rows.empty() ? row.size() : rows[0].size());
    if (static_cast<int>(row.size()) != want)
      throw Error(where(path, l.number) + "row has " + std::to_string(row.size()) +
                  " values, expected " + std::to_string(want) +
                  " (the matrix must be square: one row and one column per " + item + ")");
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw Error(where(path, first_line) + "no matrix rows (write one row per " + item + ")");
  if (expect > 0 && static_cast<int>(rows.size()) != expect)
    throw Error(where(path, first_line) + "matrix has " +
                std::to_string(rows.size()) + " rows, expected " + std::to_string(expect) +
                " (one row per " + item + ")");
  if (rows.size() != rows[0].size())
    throw Error(where(path, lines[pos - 1].number) + "matrix has " + std::to_string(rows.size()) +
                " rows of " + std::to_string(rows[0].size()) +
                " values (it must be square: one row and one column per " + item + ")");
  return rows;
}

SharingMatrix read_matrix_file(const std::string& path) {
  return parse_matrix_text(read_user_file(path, kMaxMatrixBytes), path);
}

namespace {

int parse_thread(const std::string& field, int threads, const std::string& path, int line,
                 const std::string& item = "thread") {
  if (field.empty() || field.size() > 9 || field.find_first_not_of("0123456789") != std::string::npos)
    throw Error(where(path, line) + "'" + field + "' is not a " + item + " id (edges are 'I J WEIGHT', ids from 0)");
  int t = std::stoi(field);
  if (t >= threads)
    throw Error(where(path, line) + item + " " + field + " is out of range: the list declares " +
                std::to_string(threads) + " " + item + "s (ids 0 to " + std::to_string(threads - 1) + ")");
  return t;
}

// 'slurm-pin-edges 1', 'threads N', then edges to the end.
SharingMatrix parse_edge_list(const std::vector<TextLine>& lines, const std::string& path) {
  size_t pos = 0;
  while (pos < lines.size() && lines[pos].text.empty()) ++pos;
  std::vector<std::string> f = split_fields_blank(lines[pos].text);
  if (f.size() != 2 || f[1] != "1")
    throw Error(where(path, lines[pos].number) + "edge list version '" + (f.size() > 1 ? f[1] : "") +
                "' is not supported (the first line must be '" + kEdgesHeader + " 1')");
  ++pos;
  while (pos < lines.size() && lines[pos].text.empty()) ++pos;
  f = pos < lines.size() ? split_fields_blank(lines[pos].text) : std::vector<std::string>{};
  int line = pos < lines.size() ? lines[pos].number : lines.back().number;
  if (f.size() != 2 || f[0] != "threads" || f[1].empty() || f[1].size() > 9 ||
      f[1].find_first_not_of("0123456789") != std::string::npos || std::stoi(f[1]) < 1 ||
      std::stoi(f[1]) > kMaxEdgeThreads)
    throw Error(where(path, line) + "expected 'threads N' (N from 1 to " + std::to_string(kMaxEdgeThreads) +
                ") after the header");
  int threads = std::stoi(f[1]);
  ++pos;
  std::vector<Edge> edges = parse_edge_lines(lines, pos, threads, path);
  for (; pos < lines.size(); ++pos)
    if (!lines[pos].text.empty())
      throw Error(where(path, lines[pos].number) + "unexpected text '" + std::string(lines[pos].text.substr(0, 64)) +
                  "' (edge lines are 'I J WEIGHT')");
  return SharingMatrix::from_edges(threads, std::move(edges));
}

}  // namespace

std::vector<Edge> parse_edge_lines(const std::vector<TextLine>& lines, size_t& pos, int threads,
                                   const std::string& path, const std::string& item) {
  std::vector<Edge> edges;
  for (; pos < lines.size(); ++pos) {
    const TextLine& l = lines[pos];
    if (l.text.empty()) continue;
    if (!std::isdigit(static_cast<unsigned char>(l.text[0]))) break;
    std::vector<std::string> f = split_fields(l.text);
    if (f.size() != 3)
      throw Error(where(path, l.number) + "edge has " + std::to_string(f.size()) +
                  " fields (write 'I J WEIGHT': two " + item + " ids and how much they share)");
    int i = parse_thread(f[0], threads, path, l.number, item), j = parse_thread(f[1], threads, path, l.number, item);
    if (i == j)
      throw Error(where(path, l.number) + item + " " + f[0] + " shares with itself (only pairs of different " +
                  item + "s count: drop the line)");
    edges.push_back({i, j, parse_weight(f[2], path, l.number)});
  }
  return edges;
}

SharingMatrix parse_matrix_text(const std::string& text, const std::string& path) {
  std::vector<TextLine> lines = split_text_lines(text, path);
  size_t first = 0;
  while (first < lines.size() && lines[first].text.empty()) ++first;
  if (first < lines.size() && lines[first].text.compare(0, std::strlen(kEdgesHeader), kEdgesHeader) == 0)
    return parse_edge_list(lines, path);
  size_t pos = 0;
  auto rows = parse_matrix_rows(lines, pos, 0, path);
  for (; pos < lines.size(); ++pos)
    if (!lines[pos].text.empty())
      throw Error(where(path, lines[pos].number) + "unexpected text '" + std::string(lines[pos].text) +
                  "' after the matrix (only numbers, blanks, commas and # comments)");
  return SharingMatrix::from_rows(rows);
}

}  // namespace slurmpin
