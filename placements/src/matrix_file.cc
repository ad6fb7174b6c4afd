// SPDX-License-Identifier: GPL-2.0-or-later
#include "matrix_file.hh"

#include <cctype>

#include "error.hh"
#include "user_file.hh"

namespace slurmpin {

namespace {

bool looks_numeric(const std::string& text) {
  return !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' ||
                           text[0] == '-' || text[0] == '+');
}

}  // namespace

std::vector<std::vector<double>> parse_matrix_rows(const std::vector<TextLine>& lines, size_t& pos,
                                                   int expect, const std::string& path) {
  std::vector<std::vector<double>> rows;
  int first_line = pos < lines.size() ? lines[pos].number : 0;
  for (; pos < lines.size(); ++pos) {
    const TextLine& l = lines[pos];
    if (l.text.empty()) continue;
    if (expect > 0 && static_cast<int>(rows.size()) == expect) break;
    if (expect > 0 && !looks_numeric(l.text)) break;
    std::vector<double> row;
    for (const auto& f : split_fields(l.text)) row.push_back(parse_weight(f, path, l.number));
    int want = expect > 0 ? expect : static_cast<int>(rows.empty() ? row.size() : rows[0].size());
    if (static_cast<int>(row.size()) != want)
      throw Error(where(path, l.number) + "row has " + std::to_string(row.size()) +
                  " values, expected " + std::to_string(want) +
                  " (the matrix must be square: one row and one column per thread)");
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw Error(where(path, first_line) + "no matrix rows (write one row per thread)");
  if (expect > 0 && static_cast<int>(rows.size()) != expect)
    throw Error(where(path, lines.empty() ? 0 : lines.back().number) + "matrix has " +
                std::to_string(rows.size()) + " rows, expected " + std::to_string(expect) +
                " (one row per thread)");
  if (rows.size() != rows[0].size())
    throw Error(where(path, lines[pos - 1].number) + "matrix has " + std::to_string(rows.size()) +
                " rows of " + std::to_string(rows[0].size()) +
                " values (it must be square: one row and one column per thread)");
  return rows;
}

Affinity read_matrix_file(const std::string& path) {
  return parse_matrix_text(read_user_file(path, kMaxMatrixBytes), path);
}

Affinity parse_matrix_text(const std::string& text, const std::string& path) {
  std::vector<TextLine> lines = split_text_lines(text, path);
  size_t pos = 0;
  auto rows = parse_matrix_rows(lines, pos, 0, path);
  for (; pos < lines.size(); ++pos)
    if (!lines[pos].text.empty())
      throw Error(where(path, lines[pos].number) + "unexpected text '" + lines[pos].text +
                  "' after the matrix (only numbers, blanks, commas and # comments)");
  return Affinity::from_rows(rows);
}

}  // namespace slurmpin
