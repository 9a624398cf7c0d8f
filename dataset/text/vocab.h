// BERT's vocab.txt and the WordPiece lookup, with the reference's semantics (tokenization.py
// load_vocab): one token per line (read as TextLines, trimmed with str.strip()), id = line index;
// a repeated token keeps its first place in the word list but maps to its last line's id.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bert::data::text {

class Vocab {
 public:
  static Vocab load(const std::string& path);  // DataError naming the file and line
  static Vocab from_tokens(const std::vector<std::u32string>& lines);  // same rules, for tests

  int num_ids() const { return num_ids_; }  // lines in the file
  // The reference's `list(vocab.keys())`: distinct tokens in first-seen order, as ids.
  const std::vector<int32_t>& word_ids() const { return word_ids_; }
  // Id of a whole token, -1 if absent. `continuation` looks up "##" + the characters.
  int32_t find(const char32_t* s, size_t n, bool continuation = false) const;
  int32_t find(const std::u32string& s) const { return find(s.data(), s.size()); }
  int32_t require(const char* token) const;  // id of an ASCII token; DataError if missing
  size_t max_len(bool continuation) const { return continuation ? max_cont_ : max_init_; }
  const std::string& path() const { return path_; }

 private:
  struct Table {
    std::vector<char32_t> pool;
    struct Slot {
      uint32_t off = 0, len = 0;
      int32_t id = -1;
    };
    std::vector<Slot> slots;
    void build(const std::vector<std::pair<std::u32string, int32_t>>& entries);
    int32_t find(const char32_t* s, size_t n) const;
  };
  std::string path_;
  int num_ids_ = 0;
  std::vector<int32_t> word_ids_;
  Table init_, cont_;
  size_t max_init_ = 0, max_cont_ = 0;
};

// Greedy longest-match-first WordPiece of one basic token: ids appended to `out`; a token of more
// than 200 characters, or one with an unmatched rest, becomes [UNK].
class WordPiece {
 public:
  WordPiece(const Vocab& vocab);
  void tokenize(const char32_t* word, size_t n, std::vector<int16_t>& out) const;

 private:
  const Vocab& vocab_;
  int16_t unk_;
};

}  // namespace bert::data::text
