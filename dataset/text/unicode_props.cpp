#include "dataset/text/unicode_props.h"

#include <algorithm>
#include <vector>

namespace bert::data::text {
namespace {

struct RangeEntry {
  char32_t first;
  uint32_t value;
};
struct MapEntry {
  char32_t cp;
  char32_t to[4];
};

#include "dataset/text/unicode_tables.inc"

constexpr char32_t kMaxCp = 0x110000;

// One 16-bit value per code point (the packed range value) for O(1) lookups: 2.2 MB, built once.
const std::vector<uint16_t>& flat() {
  static const std::vector<uint16_t> table = [] {
    std::vector<uint16_t> t(kMaxCp);
    const size_t n = std::size(kRanges);
    for (size_t i = 0; i < n; ++i) {
      const char32_t end = i + 1 < n ? kRanges[i + 1].first : kMaxCp;
      std::fill(t.begin() + kRanges[i].first, t.begin() + end, static_cast<uint16_t>(kRanges[i].value));
    }
    return t;
  }();
  return table;
}

template <size_t N>
int map_lookup(const MapEntry (&table)[N], char32_t cp, char32_t out[4]) {
  const MapEntry* it = std::lower_bound(std::begin(table), std::end(table), cp,
                                        [](const MapEntry& e, char32_t c) { return e.cp < c; });
  if (it == std::end(table) || it->cp != cp) {
    out[0] = cp;
    return 1;
  }
  int n = 0;
  while (n < 4 && it->to[n] != 0) {
    out[n] = it->to[n];
    ++n;
  }
  return n;
}

}  // namespace

const char* unicode_version() { return kUnicodeVersion; }

CharProps props(char32_t cp) {
  const uint16_t v = cp < kMaxCp ? flat()[cp] : 0;
  return CharProps{static_cast<uint8_t>(v & 31), (v >> 5 & 1) != 0, (v >> 6 & 1) != 0, (v >> 7 & 1) != 0,
                   static_cast<uint8_t>(v >> 8)};
}

std::string_view category_name(char32_t cp) { return kCategoryNames[props(cp).category]; }

int lower_full(char32_t cp, char32_t out[4]) {
  if (cp < 128) {
    out[0] = (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
    return 1;
  }
  return map_lookup(kLower, cp, out);
}

int nfd_full(char32_t cp, char32_t out[4]) {
  constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
  constexpr char32_t kTCount = 28, kNCount = 21 * 28, kSCount = 19 * kNCount;
  if (cp < 0xC0) {
    out[0] = cp;
    return 1;
  }
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const char32_t s = cp - kSBase;
    out[0] = kLBase + s / kNCount;
    out[1] = kVBase + (s % kNCount) / kTCount;
    if (s % kTCount == 0) return 2;
    out[2] = kTBase + s % kTCount;
    return 3;
  }
  return map_lookup(kNfd, cp, out);
}

}  // namespace bert::data::text
