#include "dataset/text/vocab.h"

#include <algorithm>
#include <fmt/format.h>
#include <unordered_map>

#include "formats/data_error.h"
#include "dataset/text/text_lines.h"
#include "dataset/text/unicode_props.h"

namespace bert::data::text {
namespace {

uint64_t hash_chars(const char32_t* s, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  for (size_t i = 0; i < n; ++i) h = (h ^ s[i]) * 0x100000001B3ull;
  return h ^ (h >> 29);
}

std::u32string py_strip(const std::u32string& s) {
  size_t b = 0, e = s.size();
  while (b < e && props(s[b]).space) ++b;
  while (e > b && props(s[e - 1]).space) --e;
  return s.substr(b, e - b);
}

constexpr int kMaxInputCharsPerWord = 200;

}  // namespace

void Vocab::Table::build(const std::vector<std::pair<std::u32string, int32_t>>& entries) {
  size_t cap = 16;
  while (cap < entries.size() * 2) cap *= 2;
  slots.assign(cap, Slot{});
  for (const auto& [s, id] : entries) {
    size_t h = hash_chars(s.data(), s.size()) & (cap - 1);
    while (slots[h].id >= 0) h = (h + 1) & (cap - 1);
    slots[h] = Slot{static_cast<uint32_t>(pool.size()), static_cast<uint32_t>(s.size()), id};
    pool.insert(pool.end(), s.begin(), s.end());
  }
}

int32_t Vocab::Table::find(const char32_t* s, size_t n) const {
  const size_t mask = slots.size() - 1;
  for (size_t h = hash_chars(s, n) & mask;; h = (h + 1) & mask) {
    const Slot& slot = slots[h];
    if (slot.id < 0) return -1;
    if (slot.len == n && std::equal(s, s + n, pool.data() + slot.off)) return slot.id;
  }
}

Vocab Vocab::from_tokens(const std::vector<std::u32string>& lines) {
  Vocab v;
  std::unordered_map<std::u32string, int32_t> ids;  // token -> last line
  std::vector<std::u32string> order;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::u32string token = py_strip(lines[i]);
    if (ids.emplace(token, 0).second) order.push_back(token);
    ids[token] = static_cast<int32_t>(i);
  }
  v.num_ids_ = static_cast<int>(lines.size());
  std::vector<std::pair<std::u32string, int32_t>> init, cont;
  for (const auto& token : order) {
    const int32_t id = ids[token];
    v.word_ids_.push_back(id);
    init.emplace_back(token, id);
    v.max_init_ = std::max(v.max_init_, token.size());
    if (token.size() >= 2 && token[0] == U'#' && token[1] == U'#') {
      cont.emplace_back(token.substr(2), id);
      v.max_cont_ = std::max(v.max_cont_, token.size() - 2);
    }
  }
  v.init_.build(init);
  v.cont_.build(cont);
  return v;
}

Vocab Vocab::load(const std::string& path) {
  TextLines lines(path);
  std::vector<std::u32string> tokens;
  std::u32string line;
  while (lines.next(line)) tokens.push_back(line);
  Vocab v = from_tokens(tokens);
  v.path_ = path;
  if (v.num_ids_ == 0) throw DataError(fmt::format("{}: empty vocabulary", path));
  if (v.num_ids_ > 32768)
    throw DataError(fmt::format("{}: {} tokens; the HDF5 layout stores ids as int16 (at most 32768)", path, v.num_ids_));
  return v;
}

int32_t Vocab::find(const char32_t* s, size_t n, bool continuation) const {
  return (continuation ? cont_ : init_).find(s, n);
}

int32_t Vocab::require(const char* token) const {
  std::u32string t(token, token + std::char_traits<char>::length(token));
  const int32_t id = find(t);
  if (id < 0) throw DataError(fmt::format("{}: the vocabulary has no {} token", path_.empty() ? "vocab" : path_, token));
  return id;
}

WordPiece::WordPiece(const Vocab& vocab) : vocab_(vocab), unk_(static_cast<int16_t>(vocab.require("[UNK]"))) {}

void WordPiece::tokenize(const char32_t* w, size_t n, std::vector<int16_t>& out) const {
  if (n > kMaxInputCharsPerWord) {
    out.push_back(unk_);
    return;
  }
  const size_t mark = out.size();
  size_t start = 0;
  while (start < n) {
    const bool cont = start > 0;
    size_t end = std::min(n, start + vocab_.max_len(cont));
    int32_t id = -1;
    for (; end > start; --end)
      if ((id = vocab_.find(w + start, end - start, cont)) >= 0) break;
    if (id < 0) {
      out.resize(mark);
      out.push_back(unk_);
      return;
    }
    out.push_back(static_cast<int16_t>(id));
    start = end;
  }
}

}  // namespace bert::data::text
