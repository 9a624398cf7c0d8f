// BERT's BasicTokenizer (tokenization.py) on decoded text, with Unicode 11 properties:
//  1. clean: drop U+0000, U+FFFD and control characters (Cc, Cf; not \t \n \r); \t \n \r
//     and Zs become a space;
//  2. put spaces around CJK ideographs (the fixed blocks of tokenization.py);
//  3. split on str.split() whitespace;
//  4. per word, with lower_case: str.lower() (full mappings, final sigma), NFD, drop Mn;
//  5. split off every punctuation character (ASCII 33-47, 58-64, 91-96, 123-126, or P*);
//  6. split again on whitespace (str.split() of the joined pieces).
#pragma once
#include <string>
#include <vector>

namespace bert::data::text {

class BasicTokenizer {
 public:
  explicit BasicTokenizer(bool lower_case) : lower_case_(lower_case) {}
  // Calls `piece(const char32_t*, size_t)` for each basic token of `line`, in order.
  template <typename F>
  void tokenize(const std::u32string& line, F&& piece);
  // Convenience for tests: the pieces as strings.
  std::vector<std::u32string> tokenize(const std::u32string& line);

 private:
  template <typename F>
  void word(const char32_t* w, size_t n, F& piece);
  void normalize(const char32_t* w, size_t n);  // lower + NFD + drop Mn into norm_
  bool lower_case_;
  std::u32string word_, lowered_, decomposed_, norm_;
};

bool is_cjk(char32_t cp);
bool is_punctuation(char32_t cp);

}  // namespace bert::data::text

#include "dataset/text/basic_tokenizer_impl.h"
