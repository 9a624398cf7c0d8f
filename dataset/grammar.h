// The generative grammar behind `bert-data synth`: a Markov chain over content tokens with strong
// local structure, so a masked token is predictable from its neighbours.
//
// Content ids are [first_content, vocab), or a random subset of them (ids below are BERT's specials: 0 [PAD], 100 [UNK],
// 101 [CLS], 102 [SEP], 103 [MASK]). They are dealt at random into `topics` cycles of G tokens. A
// document stays in one topic; from cycle position j the next token is at j+1, j+2 or j+3 with
// probabilities that depend on j mod 3 (so the order of steps is not exchangeable and both
// neighbours together pin the middle token down), or, with probability jump_prob, anywhere in the
// topic. A random next-sentence B comes from another topic, so NSP is learnable too.
#pragma once
#include <cstdint>
#include <vector>

#include "trainer/data/rng.h"
#include "formats/data_error.h"

namespace bert::data {

inline constexpr int kPadId = 0, kUnkId = 100, kClsId = 101, kSepId = 102, kMaskId = 103;
inline constexpr int kFirstContentId = 104;

class Grammar {
 public:
  // `content_tokens` > 0 uses only that many content ids (fewer transitions to learn); 0 = all.
  // `skew` in [0, 1): with that probability the next token is drawn from the topic's peaked
  // distribution (cycle position r has weight kSkewRatio^r) instead of stepping along the cycle, so a
  // few frequent tokens per topic carry most of its mass (learnable from the bag of words); 0 = off.
  Grammar(int vocab_size, int topics, uint64_t seed, int content_tokens = 0, double skew = 0.0);

  static constexpr int kSteps = 3;
  static constexpr double kJumpProb = 0.05;
  // Step probabilities (to j+1, j+2, j+3) by class j mod 3; rows sum to 1.
  static constexpr double kStepProb[3][kSteps] = {{0.80, 0.15, 0.05}, {0.10, 0.80, 0.10}, {0.15, 0.10, 0.75}};
  static constexpr double kSkewRatio = 0.25;

  double skew() const { return skew_; }
  // Weight of cycle position j in the peaked draw (sums to 1 over a topic).
  double peak_weight(int j) const { return peak_[static_cast<size_t>(j)]; }

  int vocab_size() const { return vocab_; }
  int topics() const { return topics_; }
  int topic_size() const { return group_; }
  int num_states() const { return topics_ * group_; }
  int token(int state) const { return state_token_[state]; }
  int state_of(int token) const { return token_state_[token]; }  // -1: not a content token

  int random_state(Rng& rng) const { return static_cast<int>(rng.below(static_cast<uint64_t>(num_states()))); }
  int random_token(Rng& rng) const { return token(random_state(rng)); }
  int random_state_in_topic(int topic, Rng& rng) const;
  int next_state(int state, Rng& rng) const;
  // P(next = to | from) for states of the same topic (0 across topics).
  double transition(int from, int to) const;

 private:
  int vocab_, topics_, group_;
  double skew_;
  std::vector<double> peak_;  // per cycle position
  std::vector<int> state_token_;  // state = topic * G + cycle position
  std::vector<int> token_state_;
};

}  // namespace bert::data
