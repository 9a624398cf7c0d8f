// The host side of cuDNN's attention: which kernels a model runs (BERT_CUDA_ATTENTION, the build), the
// ragged entries cuDNN is told (lengths and offsets from the batch's sequences; padded entries last,
// offsets never decreasing), and the dropout's Philox keys (one per run seed, rank, micro-step and layer).
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/user_error.h"
#include "trainer/cuda/attention_choice.h"
#include "trainer/cuda/cudnn_attention_maths.h"

using namespace bert::cuda;

TEST_CASE("BERT_CUDA_ATTENTION: auto, cudnn or own; anything else is a user error naming the variable") {
  CHECK(parse_attention_choice(nullptr) == AttentionChoice::automatic);
  CHECK(parse_attention_choice("") == AttentionChoice::automatic);
  CHECK(parse_attention_choice("auto") == AttentionChoice::automatic);
  CHECK(parse_attention_choice("cudnn") == AttentionChoice::cudnn);
  CHECK(parse_attention_choice("own") == AttentionChoice::own);
  try {
    parse_attention_choice("flash");
    FAIL("no error");
  } catch (const bert::UserError& e) {
    const std::string m = e.what();
    CHECK(m.find("BERT_CUDA_ATTENTION=flash") != std::string::npos);
    CHECK(m.find("auto, cudnn, own") != std::string::npos);
  }
}

TEST_CASE("cuDNN is the default where built; asking for it without it is a user error") {
  CHECK(use_cudnn_attention(AttentionChoice::automatic, true));
  CHECK_FALSE(use_cudnn_attention(AttentionChoice::automatic, false));
  CHECK_FALSE(use_cudnn_attention(AttentionChoice::own, true));
  CHECK(use_cudnn_attention(AttentionChoice::cudnn, true));
  CHECK_THROWS_AS(use_cudnn_attention(AttentionChoice::cudnn, false), bert::UserError);
  CHECK(use_cudnn_attention(AttentionChoice::automatic) == cudnn_attention_built());
}

TEST_CASE("ragged entries: a packed row's sequences, a padded row's, and the entries static shapes pad with") {
  // 2 rows of 8 tokens: row 0 packs sequences of 3 and 5 tokens, row 1 holds one of 6; then 2 padded entries
  const std::vector<int32_t> first{0, 3, 8, -1, -1}, lens{3, 5, 6, 0, 0};
  const int entries = 5, tokens = 16, hidden = 128;
  std::vector<int32_t> len, qkv, out;
  for (int b = 0; b < entries; ++b) len.push_back(cudnn_sequence_length(first.data(), lens.data(), b, entries));
  for (int b = 0; b <= entries; ++b) {
    qkv.push_back(cudnn_ragged_offset(first.data(), b, entries, tokens, 3 * hidden));
    out.push_back(cudnn_ragged_offset(first.data(), b, entries, tokens, hidden));
  }
  CHECK(len == std::vector<int32_t>{3, 5, 6, 0, 0});
  CHECK(qkv == std::vector<int32_t>{0, 3 * 384, 8 * 384, 16 * 384, 16 * 384, 16 * 384});
  CHECK(out == std::vector<int32_t>{0, 3 * 128, 8 * 128, 16 * 128, 16 * 128, 16 * 128});
  for (size_t b = 0; b + 1 < qkv.size(); ++b) CHECK(qkv[b] <= qkv[b + 1]);
  // a sequence's rows end before the next entry starts
  for (int b = 0; b < entries; ++b) CHECK(out[static_cast<size_t>(b)] + len[static_cast<size_t>(b)] * hidden <= out[static_cast<size_t>(b) + 1]);
}

TEST_CASE("dropout keys: the same inputs the same key; each of seed, rank, micro-step and layer changes it") {
  CHECK(cudnn_dropout_seed(7, 0, 3, 5) == cudnn_dropout_seed(7, 0, 3, 5));
  std::set<uint64_t> keys;
  int n = 0;
  for (uint64_t seed : {0ull, 1ull, 12345ull})
    for (uint32_t rank : {0u, 1u, 7u})
      for (uint32_t step : {0u, 1u, 2u, 1000u})
        for (uint32_t layer = 0; layer < 24; ++layer, ++n) keys.insert(cudnn_dropout_seed(seed, rank, step, layer));
  CHECK(keys.size() == static_cast<size_t>(n));
  CHECK(splitmix64(0) == 0xe220a8397b1dcdafull);  // SplitMix64's first output from state 0
}
