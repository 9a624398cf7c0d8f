// Template bodies of BasicTokenizer (included by basic_tokenizer.h).
#pragma once
#include "dataset/text/unicode_props.h"

namespace bert::data::text {

// ASCII classes: 0 letter/digit/other, 1 drop (control), 2 space, 3 punctuation, 4 upper-case letter.
inline constexpr auto kAsciiClass = [] {
  struct T {
    unsigned char c[128];
  } t{};
  for (int i = 0; i < 128; ++i) {
    if (i < 32 || i == 127) t.c[i] = 1;
    if (i >= 33 && i <= 47) t.c[i] = 3;
    if (i >= 58 && i <= 64) t.c[i] = 3;
    if (i >= 91 && i <= 96) t.c[i] = 3;
    if (i >= 123 && i <= 126) t.c[i] = 3;
    if (i >= 'A' && i <= 'Z') t.c[i] = 4;
  }
  t.c[' '] = t.c['\t'] = t.c['\n'] = t.c['\r'] = 2;
  return t;
}();

template <typename F>
void BasicTokenizer::tokenize(const std::u32string& line, F&& piece) {
  const char32_t* s = line.data();
  const size_t n = line.size();
  // Words are runs of kept characters; dropped characters vanish (their neighbours join), so a
  // word is collected into a buffer.
  std::u32string& word_buf = word_;
  word_buf.clear();
  auto flush = [&] {
    if (!word_buf.empty()) {
      word(word_buf.data(), word_buf.size(), piece);
      word_buf.clear();
    }
  };
  for (size_t i = 0; i < n; ++i) {
    const char32_t c = s[i];
    if (c < 128) {
      switch (kAsciiClass.c[c]) {
        case 1: continue;
        case 2: flush(); continue;
        default: word_buf.push_back(c); continue;
      }
    }
    if (c == 0xFFFD) continue;
    const CharProps p = props(c);
    if (p.is_control()) continue;
    if (p.is_space_separator() || p.space) {
      flush();
    } else if (is_cjk(c)) {
      flush();
      word_buf.push_back(c);
      flush();
    } else {
      word_buf.push_back(c);
    }
  }
  flush();
}

template <typename F>
void BasicTokenizer::word(const char32_t* w, size_t n, F& piece) {
  bool ascii = true;
  for (size_t i = 0; i < n && ascii; ++i) ascii = w[i] < 128;
  const char32_t* t = w;
  size_t m = n;
  if (lower_case_) {
    if (ascii) {
      norm_.assign(w, n);
      for (char32_t& c : norm_)
        if (c >= 'A' && c <= 'Z') c += 32;
    } else {
      normalize(w, n);
    }
    t = norm_.data();
    m = norm_.size();
  }
  size_t start = 0;
  for (size_t i = 0; i < m; ++i) {
    const char32_t c = t[i];
    const bool punct = c < 128 ? kAsciiClass.c[c] == 3 : is_punctuation(c);
    const bool space = c < 128 ? kAsciiClass.c[c] == 2 || (c >= 9 && c <= 13) || (c >= 28 && c <= 31)
                               : props(c).space;
    if (punct || space) {
      if (i > start) piece(t + start, i - start);
      if (punct) piece(t + i, 1);
      start = i + 1;
    }
  }
  if (m > start) piece(t + start, m - start);
}

}  // namespace bert::data::text
