// SPDX-License-Identifier: GPL-2.0-or-later
// A 5x7 pixel font for the labels of generated images (heatmaps): digits,
// capital letters (lower case is drawn as capitals) and the punctuation of
// profile names. One concept: which pixels a character lights.
#pragma once

namespace slurmpin {

constexpr int kGlyphWidth = 5, kGlyphHeight = 7;

// Row `y` (0 at the top) of character c: bit 4 is the leftmost pixel. A
// character the font lacks is drawn as a box.
unsigned glyph_row(char c, int y);

}  // namespace slurmpin
