#include "dataset/text/basic_tokenizer.h"

#include <algorithm>

namespace bert::data::text {

bool is_cjk(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

bool is_punctuation(char32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126))
    return true;
  return props(cp).is_punct_category();
}

void BasicTokenizer::normalize(const char32_t* w, size_t n) {
  // str.lower(): U+03A3 becomes final sigma when preceded by a cased letter and not followed by
  // one, skipping case-ignorable characters both ways (CPython's handle_capital_sigma).
  lowered_.clear();
  char32_t buf[4];
  for (size_t i = 0; i < n; ++i) {
    if (w[i] == 0x3A3) {
      size_t j = i;
      while (j > 0 && props(w[j - 1]).case_ignorable) --j;
      bool final_sigma = j > 0 && props(w[j - 1]).cased;
      if (final_sigma) {
        size_t k = i + 1;
        while (k < n && props(w[k]).case_ignorable) ++k;
        final_sigma = k == n || !props(w[k]).cased;
      }
      lowered_.push_back(final_sigma ? 0x3C2 : 0x3C3);
      continue;
    }
    const int m = lower_full(w[i], buf);
    lowered_.append(buf, buf + m);
  }
  // NFD: full canonical decomposition, then canonical ordering of each run of non-starters.
  decomposed_.clear();
  for (char32_t c : lowered_) {
    const int m = nfd_full(c, buf);
    decomposed_.append(buf, buf + m);
  }
  for (size_t i = 0; i < decomposed_.size();) {
    if (props(decomposed_[i]).ccc == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < decomposed_.size() && props(decomposed_[j]).ccc != 0) ++j;
    if (j - i > 1)
      std::stable_sort(decomposed_.begin() + static_cast<std::ptrdiff_t>(i),
                       decomposed_.begin() + static_cast<std::ptrdiff_t>(j),
                       [](char32_t a, char32_t b) { return props(a).ccc < props(b).ccc; });
    i = j;
  }
  norm_.clear();
  for (char32_t c : decomposed_)
    if (!props(c).is_mark_nonspacing()) norm_.push_back(c);
}

std::vector<std::u32string> BasicTokenizer::tokenize(const std::u32string& line) {
  std::vector<std::u32string> out;
  tokenize(line, [&](const char32_t* p, size_t n) { out.emplace_back(p, n); });
  return out;
}

}  // namespace bert::data::text
