// The text pipeline of `bert-data create` against CPython / the reference tokenizer: MT19937 and
// random's draws (values printed by CPython 3.7 and 3.11), Unicode 11 properties (the 5 code
// points whose category changed later, a sample of the 7,323 assigned later), TF's line reading,
// and BasicTokenizer + WordPiece ids equal to the reference FullTokenizer's on the fixture lines
// (tests/fixtures/data_prep/tokens.json, written by make_fixtures.sh).
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/unit/data/test_util.h"
#include "formats/data_error.h"
#include "dataset/text/basic_tokenizer.h"
#include "dataset/text/py_random.h"
#include "dataset/text/text_lines.h"
#include "dataset/text/unicode_props.h"
#include "dataset/text/vocab.h"

using namespace bert::data;
using namespace bert::data::text;

namespace {

std::u32string u32(const std::string& utf8) {
  std::u32string out;
  REQUIRE(decode_utf8(utf8, out) == std::string::npos);
  return out;
}

}  // namespace

TEST_CASE("PyRandom: MT19937 outputs, random(), getrandbits and seeding equal CPython's") {
  PyRandom r(12345);
  for (uint32_t want : {1789368711u, 3146859322u, 43676229u, 3522623596u, 3544234957u}) CHECK(r.genrand_uint32() == want);
  PyRandom f(12345);
  CHECK(f.random() == 0.41661987254534116);
  CHECK(f.random() == 0.010169169457068361);
  CHECK(f.random() == 0.8252065092537432);
  PyRandom z(0);
  CHECK(z.getrandbits(32) == 3626764237u);
  CHECK(z.randbelow(1ull << 40) == 927241537154ull);  // 41 bits: two words, the high one shifted
  CHECK(PyRandom(4294967296ull + 5).getrandbits(32) == 675479763u);  // a two-word seed
  PyRandom g(0);
  g.getrandbits(32);
  CHECK(g.getrandbits(40) == 834878271422ull);
  CHECK(g.randint(2, 509) == 457);
}

TEST_CASE("PyRandom: _randbelow, randint and shuffle equal CPython's") {
  PyRandom r(12345);
  const uint64_t ns[] = {1, 2, 3, 5, 7, 100, 1000, 30522, 2147483647ull, 4294967295ull};
  const uint64_t want[] = {0, 0, 1, 2, 1, 34, 579, 14294, 347221957, 1602297017};
  for (int i = 0; i < 10; ++i) CHECK(r.randbelow(ns[i]) == want[i]);
  PyRandom h(12345);
  uint64_t s = 0;
  const uint64_t mod = (1ull << 61) - 1;
  for (int64_t i = 0; i < 100000; ++i)
    s = static_cast<uint64_t>((static_cast<unsigned __int128>(s) * 31 + static_cast<uint64_t>(h.randint(0, i))) % mod);
  CHECK(s == 2220660852842710530ull);  // randint(0, 0) still draws: the stream stays aligned
  CHECK(h.getrandbits(32) == 355856277u);
  PyRandom sh(24);
  std::vector<int> x(20);
  for (int i = 0; i < 20; ++i) x[i] = i;
  sh.shuffle(x.data(), x.size());
  CHECK(x == std::vector<int>{11, 15, 9, 8, 7, 16, 14, 0, 4, 13, 1, 19, 10, 2, 3, 17, 6, 5, 18, 12});
  PyRandom seq(12345);
  std::vector<int> digits;
  for (int i = 0; i < 10; ++i) digits.push_back(static_cast<int>(seq.randint(0, 9)));
  CHECK(digits == std::vector<int>{6, 0, 4, 5, 3, 4, 9, 6, 2, 5});
}

TEST_CASE("Unicode 11 properties: categories changed or assigned after 11.0 keep their 11.0 values") {
  CHECK(std::string(unicode_version()) == "11.0.0");
  // Category changed after 11.0 (Python 3.11 says So, Mc, Mn, Lo, Lo).
  CHECK(category_name(0x166D) == "Po");
  CHECK(category_name(0x1734) == "Mn");
  CHECK(category_name(0xA9BD) == "Mc");
  CHECK(category_name(0x1CF2) == "Mc");
  CHECK(category_name(0x1CF3) == "Mc");
  CHECK(is_punctuation(0x166D));
  CHECK(props(0x1734).is_mark_nonspacing());
  CHECK_FALSE(props(0xA9BD).is_mark_nonspacing());
  // Assigned after 11.0: unassigned (Cn) here, so neither control (Cc/Cf) nor punctuation (U+061D
  // is Po from 14.0 on and would split words there).
  for (char32_t cp : {0x61D, 0x11FF0, 0x18CCC, 0x1FA9C, 0x301A0, 0x3045C, 0x30718, 0x309D4, 0x30C90, 0x30F4C, 0x31208,
                      0x1F971, 0x1FA70, 0x31BB, 0x9FF0}) {
    CAPTURE(static_cast<uint32_t>(cp));
    CHECK(category_name(cp) == "Cn");
    CHECK_FALSE(props(cp).is_control());
    CHECK_FALSE(is_punctuation(cp));
  }
  CHECK(category_name(0x2B734) == "Lo");  // assigned in 11.0 (CJK Extension C)
  CHECK(category_name(U'A') == "Lu");
  CHECK(category_name(0x10FFFF) == "Cn");
  CHECK(category_name(0xE000) == "Co");
  CHECK_FALSE(props(0xE000).is_control());  // private use is kept (unlike HF's tokenizer)
  CHECK(props(0x200D).is_control());        // Cf
  CHECK(props(0x85).is_control());          // Cc
}

TEST_CASE("Unicode 11 properties: whitespace, case mappings, final-sigma context, NFD") {
  for (char32_t c : {U' ', U'\t', U'\n', char32_t{0x0B}, char32_t{0x1C}, char32_t{0x1F}, char32_t{0x85}, char32_t{0xA0},
                     char32_t{0x1680}, char32_t{0x2028}, char32_t{0x2029}, char32_t{0x3000}})
    CHECK(props(c).space);
  for (char32_t c : {char32_t{0x200B}, char32_t{0x180E}, char32_t{0xFEFF}, U'a'}) CHECK_FALSE(props(c).space);
  char32_t out[4];
  REQUIRE(lower_full(0x130, out) == 2);  // İ -> i + combining dot above
  CHECK((out[0] == U'i' && out[1] == 0x307));
  REQUIRE(lower_full(0x212A, out) == 1);  // Kelvin sign -> k
  CHECK(out[0] == U'k');
  CHECK(props(0x3A3).cased);
  CHECK(props(U'.').case_ignorable);
  CHECK(props(0xAD).case_ignorable);
  CHECK_FALSE(props(U'1').cased);
  REQUIRE(nfd_full(0x1F82, out) == 4);  // ᾂ: alpha, psili, varia, ypogegrammeni
  CHECK((out[0] == 0x3B1 && out[1] == 0x313 && out[2] == 0x300 && out[3] == 0x345));
  REQUIRE(nfd_full(0xD55C, out) == 3);  // Hangul 한 (algorithmic)
  CHECK((out[0] == 0x1112 && out[1] == 0x1161 && out[2] == 0x11AB));
  CHECK(props(0x301).ccc == 230);
  CHECK(props(0x323).ccc == 220);
}

TEST_CASE("TextLines: TF's line reading (every \\r dropped, \\n ends a line) and strict UTF-8") {
  test::TempDir dir;
  const std::string f = dir.file("t.txt");
  std::ofstream(f, std::ios::binary) << "a\r\nre\rturn\n\xc3\r\xa9\n\nlast";
  TextLines lines(f);
  std::u32string l;
  REQUIRE(lines.next(l));
  CHECK(l == U"a");
  REQUIRE(lines.next(l));
  CHECK(l == U"return");
  REQUIRE(lines.next(l));
  CHECK(l == U"\u00e9");  // the \r inside the sequence is dropped before decoding
  REQUIRE(lines.next(l));
  CHECK(l.empty());
  REQUIRE(lines.next(l));
  CHECK(l == U"last");
  CHECK_FALSE(lines.next(l));
  CHECK(is_blank(U"\u00a0\x1c \u2029"));
  CHECK_FALSE(is_blank(U"\u200b"));

  for (const auto& [bytes, offset] : std::vector<std::pair<std::string, int>>{
           {"ok\nab\xff", 5}, {"x\xc0\xaf", 1}, {"\xed\xa0\x80", 0}, {"\xf4\x90\x80\x80", 0}, {"ab\xe2\x82", 2},
           {"\r\r\xc3", 2}}) {
    const std::string g = dir.file("bad.txt");
    std::ofstream(g, std::ios::binary) << bytes;
    TextLines bad(g);
    std::string err;
    try {
      while (bad.next(l)) {
      }
    } catch (const DataError& e) {
      err = e.what();
    }
    CAPTURE(bytes);
    CHECK(err.find("invalid UTF-8 at byte offset " + std::to_string(offset) + " ") != std::string::npos);
    CHECK(err.rfind(g + ":", 0) == 0);
  }
}

TEST_CASE("BasicTokenizer + WordPiece give the reference FullTokenizer's ids on the fixture lines") {
  const std::string dir = BERT_DATA_PREP_FIXTURES;
  const Vocab vocab = Vocab::load(dir + "/vocab.txt");
  const WordPiece wp(vocab);
  std::ifstream in(dir + "/tokens.json");
  const auto cases = nlohmann::json::parse(in);
  REQUIRE(cases.size() >= 20);
  for (const auto& c : cases) {
    const std::u32string line = u32(c["line"].get<std::string>());
    for (const bool lower : {true, false}) {
      BasicTokenizer basic(lower);
      std::vector<int16_t> ids;
      basic.tokenize(line, [&](const char32_t* p, size_t n) { wp.tokenize(p, n, ids); });
      const std::string got = fmt::format("{}", fmt::join(ids, " "));
      const std::string want = fmt::format("{}", fmt::join(c[lower ? "lower" : "cased"].get<std::vector<int>>(), " "));
      CAPTURE(c["line"].get<std::string>());
      CAPTURE(lower);
      CHECK(got == want);
    }
  }
}

TEST_CASE("WordPiece: longest match first, ## continuations, [UNK] for long or unmatched words") {
  const Vocab v = Vocab::from_tokens({U"[UNK]", U"un", U"##aff", U"##able", U"unaff", U"a", U"##b"});
  const WordPiece wp(v);
  auto ids = [&](const std::u32string& w) {
    std::vector<int16_t> out;
    wp.tokenize(w.data(), w.size(), out);
    return std::vector<int>(out.begin(), out.end());
  };
  CHECK(ids(U"unaffable") == std::vector<int>{4, 3});
  CHECK(ids(U"unable") == std::vector<int>{1, 3});
  CHECK(ids(U"unx") == std::vector<int>{0});
  std::vector<int> two_hundred(200, 6);
  two_hundred[0] = 5;
  CHECK(ids(U"a" + std::u32string(199, U'b')) == two_hundred);  // 200 characters: still split
  CHECK(ids(U"a" + std::u32string(200, U'b')) == std::vector<int>{0});  // 201 characters
  CHECK(v.word_ids().size() == 7);
  // A repeated token keeps its first place in the word list and maps to its last line.
  const Vocab d = Vocab::from_tokens({U"[UNK]", U"x", U" x\u00a0", U"y"});
  CHECK(d.find(U"x") == 2);
  CHECK(d.word_ids() == std::vector<int32_t>{0, 2, 3});
}
