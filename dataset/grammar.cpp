#include "dataset/grammar.h"

#include <fmt/format.h>
#include <numeric>

#include "formats/data_error.h"

namespace bert::data {

Grammar::Grammar(int vocab_size, int topics, uint64_t seed, int content_tokens, double skew)
    : vocab_(vocab_size), topics_(topics), skew_(skew) {
  if (!(skew >= 0.0 && skew < 1.0)) throw DataError(fmt::format("synth: topic skew {} outside [0, 1)", skew));
  const int content = vocab_size - kFirstContentId;
  if (topics < 1) throw DataError(fmt::format("synth: topics {} < 1", topics));
  if (content_tokens < 0 || content_tokens > content)
    throw DataError(fmt::format("synth: content tokens {} outside [0, {}] for vocab size {}", content_tokens, content,
                                vocab_size));
  const int used = content_tokens > 0 ? content_tokens : content;
  if (used < 8 * topics)
    throw DataError(fmt::format("synth: {} content tokens (vocab size {}) too few for {} topics (need >= {})", used,
                                vocab_size, topics, 8 * topics));
  group_ = used / topics;
  std::vector<int> ids(static_cast<size_t>(content));
  std::iota(ids.begin(), ids.end(), kFirstContentId);
  Rng(std::initializer_list<uint64_t>{seed, 0x6772616d}).shuffle(ids.begin(), ids.end());
  state_token_.assign(ids.begin(), ids.begin() + num_states());
  token_state_.assign(static_cast<size_t>(vocab_size), -1);
  for (int s = 0; s < num_states(); ++s) token_state_[state_token_[s]] = s;
  peak_.resize(static_cast<size_t>(group_));
  double w = 1.0, total = 0.0;
  for (double& p : peak_) total += (p = w), w *= kSkewRatio;
  for (double& p : peak_) p /= total;
}

int Grammar::random_state_in_topic(int topic, Rng& rng) const {
  return topic * group_ + static_cast<int>(rng.below(static_cast<uint64_t>(group_)));
}

int Grammar::next_state(int state, Rng& rng) const {
  const int topic = state / group_, j = state % group_;
  if (skew_ > 0.0 && rng.uniform() < skew_) {  // only then a draw: skew 0 keeps the old streams
    double u = rng.uniform();
    for (int r = 0; r + 1 < group_; ++r) {
      if (u < peak_[static_cast<size_t>(r)]) return topic * group_ + r;
      u -= peak_[static_cast<size_t>(r)];
    }
    return topic * group_ + group_ - 1;
  }
  if (rng.uniform() < kJumpProb) return random_state_in_topic(topic, rng);
  double u = rng.uniform();
  int step = kSteps;
  for (int k = 0; k < kSteps; ++k) {
    if (u < kStepProb[j % 3][k]) {
      step = k + 1;
      break;
    }
    u -= kStepProb[j % 3][k];
  }
  return topic * group_ + (j + step) % group_;
}

double Grammar::transition(int from, int to) const {
  if (from / group_ != to / group_) return 0.0;
  const int j = from % group_, d = ((to % group_) - j + group_) % group_;
  double p = kJumpProb / group_;
  if (d >= 1 && d <= kSteps) p += (1.0 - kJumpProb) * kStepProb[j % 3][d - 1];
  return (1.0 - skew_) * p + skew_ * peak_[static_cast<size_t>(to % group_)];
}

}  // namespace bert::data
