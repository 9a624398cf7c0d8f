#include "dataset/synth.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <numeric>
#include <vector>

#include "formats/data_error.h"
#include "formats/shard_write.h"
#include "dataset/packing.h"

namespace bert::data {

int SynthOptions::resolved_max_pred() const { return max_pred > 0 ? max_pred : std::max(1, 76 * seq_len / 512); }

namespace {

// One sample into `out`; `original` receives the unmasked tokens when non-null.
void make_sample(const SynthOptions& opt, const Grammar& g, Rng& rng, SequenceSet& out,
                 std::vector<int16_t>* original) {
  const int max_tokens = opt.seq_len - 3;
  int target = max_tokens;
  if (rng.uniform() < opt.short_seq_prob) target = 2 + static_cast<int>(rng.below(static_cast<uint64_t>(max_tokens - 1)));
  const double mean_doc = 0.627 * max_tokens;
  const int doc = static_cast<int>(std::ceil(-mean_doc * std::log(1.0 - rng.uniform())));
  const int n = std::clamp(std::min(target, doc), 2, max_tokens);
  const int n_a = 1 + static_cast<int>(rng.below(static_cast<uint64_t>(n - 1)));
  const int8_t is_random = rng.uniform() < 0.5 ? 1 : 0;

  std::vector<int16_t> ids;
  std::vector<int8_t> seg;
  ids.reserve(static_cast<size_t>(n) + 3);
  ids.push_back(kClsId);
  seg.push_back(0);
  const int topic = static_cast<int>(rng.below(static_cast<uint64_t>(g.topics())));
  int state = g.random_state_in_topic(topic, rng);
  for (int t = 0; t < n_a; ++t) {
    ids.push_back(static_cast<int16_t>(g.token(state)));
    seg.push_back(0);
    state = g.next_state(state, rng);
  }
  ids.push_back(kSepId);
  seg.push_back(0);
  if (is_random) {
    int other = topic;
    if (g.topics() > 1) other = (topic + 1 + static_cast<int>(rng.below(static_cast<uint64_t>(g.topics() - 1)))) % g.topics();
    state = g.random_state_in_topic(other, rng);
  }
  for (int t = 0; t < n - n_a; ++t) {
    ids.push_back(static_cast<int16_t>(g.token(state)));
    seg.push_back(1);
    state = g.next_state(state, rng);
  }
  ids.push_back(kSepId);
  seg.push_back(1);
  if (original) *original = ids;

  const int len = static_cast<int>(ids.size());
  std::vector<int16_t> cand;
  for (int p = 1; p < len - 1; ++p)
    if (p != n_a + 1) cand.push_back(static_cast<int16_t>(p));
  rng.shuffle(cand.begin(), cand.end());
  const int num = std::min({opt.resolved_max_pred(), std::max(1, static_cast<int>(std::lround(len * opt.masked_lm_prob))),
                            static_cast<int>(cand.size())});
  cand.resize(static_cast<size_t>(num));
  std::sort(cand.begin(), cand.end());
  std::vector<int16_t> labels(static_cast<size_t>(num));
  for (int m = 0; m < num; ++m) {
    labels[m] = ids[cand[m]];
    const double u = rng.uniform();
    if (u < 0.8) ids[cand[m]] = kMaskId;
    else if (u >= 0.9) ids[cand[m]] = static_cast<int16_t>(g.random_token(rng));
  }
  out.append(ids.data(), seg.data(), len, cand.data(), labels.data(), num, is_random);
}

void check_options(const SynthOptions& opt) {
  if (opt.seq_len < 8 || opt.seq_len > 32767) throw DataError(fmt::format("synth: seq_len {} outside [8, 32767]", opt.seq_len));
  if (opt.vocab_size > 32767) throw DataError(fmt::format("synth: vocab size {} > 32767 (ids are int16)", opt.vocab_size));
}

}  // namespace

SequenceSet synth_sequences(const SynthOptions& opt, const Grammar& grammar, uint64_t stream, int64_t first,
                            int64_t count) {
  check_options(opt);
  SequenceSet out;
  out.reserve(count, count * opt.seq_len / 2, count * opt.resolved_max_pred());
  for (int64_t i = first; i < first + count; ++i) {
    Rng rng{opt.seed, stream, static_cast<uint64_t>(i)};
    make_sample(opt, grammar, rng, out, nullptr);
  }
  return out;
}

void write_synth_dataset(const SynthOptions& opt, const SynthLayout& lay, void (*progress)(int, int)) {
  namespace fs = std::filesystem;
  check_options(opt);
  if (lay.shards < 1 || lay.samples_per_shard < 1 || lay.eval_samples < 0)
    throw DataError("synth: --shards and --samples-per-shard must be >= 1, --eval-samples >= 0");
  const Grammar grammar(opt.vocab_size, opt.topics, opt.seed, opt.content_tokens, opt.topic_skew);
  const Limits lim{opt.vocab_size, opt.seq_len, opt.resolved_max_pred()};
  std::error_code ec;
  fs::create_directories(fs::path(lay.out_dir) / "train", ec);
  fs::create_directories(fs::path(lay.out_dir) / "eval", ec);
  if (ec) throw DataError(fmt::format("{}: cannot create: {}", lay.out_dir, ec.message()));
  int64_t packs = 0, tokens = 0;
  for (int s = 0; s < lay.shards; ++s) {
    SequenceSet seqs = synth_sequences(opt, grammar, static_cast<uint64_t>(s), 0, lay.samples_per_shard);
    tokens += seqs.total_tokens();
    std::string name;
    if (lay.format == Format::packed) {
      seqs = pack_sequences(seqs, opt.seq_len, 3, opt.seed + static_cast<uint64_t>(s));
      packs += seqs.num_packs();
      name = fmt::format("part_{:05d}", s);
    } else {
      name = fmt::format("part_{:05d}_of_{:05d}.hdf5", s, lay.shards);
    }
    write_shard((fs::path(lay.out_dir) / "train" / name).string(), seqs, lay.format, lim);
    if (progress) progress(s + 1, lay.shards);
  }
  if (lay.eval_samples > 0) {
    SequenceSet ev = synth_sequences(opt, grammar, kEvalStream, 0, lay.eval_samples);
    write_shard((fs::path(lay.out_dir) / "eval" / "part_eval.hdf5").string(), ev,
                lay.format == Format::fixed ? Format::fixed : Format::varlength, lim);
  }
  std::ofstream js(fs::path(lay.out_dir) / "synth.json");
  js << fmt::format(
      "{{\"generator\": \"bert-data synth\", \"format\": \"{}\", \"vocab_size\": {}, \"max_seq_length\": {}, "
      "\"max_predictions_per_seq\": {}, \"seed\": {}, \"topics\": {}, \"content_tokens\": {}, \"shards\": {}, \"train_sequences\": {}, "
      "\"train_packs\": {}, \"train_tokens\": {}, \"eval_samples\": {}, \"train_dir\": \"train\", "
      "\"eval_file\": \"eval/part_eval.hdf5\"}}\n",
      format_name(lay.format), opt.vocab_size, opt.seq_len, opt.resolved_max_pred(), opt.seed, opt.topics, grammar.num_states(), lay.shards,
      lay.shards * lay.samples_per_shard, packs, tokens, lay.eval_samples);
  if (!js) throw DataError(fmt::format("{}/synth.json: write failed", lay.out_dir));
}

namespace {

// Posterior argmax per position of one segment [begin, end) of `ids` under the true grammar.
class SegmentPosterior {
 public:
  SegmentPosterior(const Grammar& g, double noise) : g_(g), noise_(noise), S_(g.num_states()), G_(g.topic_size()) {}

  void run(const int16_t* ids, int n, std::vector<int>& best) {
    alpha_.assign(static_cast<size_t>(n) * S_, 0.0);
    std::vector<double> beta(static_cast<size_t>(S_), 1.0), next(static_cast<size_t>(S_)), tmp(static_cast<size_t>(S_));
    for (int x = 0; x < S_; ++x) alpha_[x] = emission(ids[0], x);
    normalize(alpha_.data());
    for (int k = 1; k < n; ++k) {
      forward(alpha_.data() + static_cast<size_t>(k - 1) * S_, alpha_.data() + static_cast<size_t>(k) * S_);
      for (int x = 0; x < S_; ++x) alpha_[static_cast<size_t>(k) * S_ + x] *= emission(ids[k], x);
      normalize(alpha_.data() + static_cast<size_t>(k) * S_);
    }
    best.assign(static_cast<size_t>(n), -1);
    for (int k = n - 1; k >= 0; --k) {
      const double* a = alpha_.data() + static_cast<size_t>(k) * S_;
      int arg = 0;
      double top = -1;
      for (int x = 0; x < S_; ++x)
        if (a[x] * beta[x] > top) top = a[x] * beta[x], arg = x;
      best[k] = g_.token(arg);
      if (k == 0) break;
      for (int y = 0; y < S_; ++y) tmp[y] = emission(ids[k], y) * beta[y];
      backward(tmp.data(), next.data());
      normalize(next.data());
      beta.swap(next);
    }
  }

 private:
  double emission(int16_t obs, int x) const {
    if (obs == kMaskId) return 1.0;
    return (g_.token(x) == obs ? 1.0 - noise_ : 0.0) + noise_ / S_;
  }
  void normalize(double* v) const {
    double s = 0;
    for (int x = 0; x < S_; ++x) s += v[x];
    if (s > 0)
      for (int x = 0; x < S_; ++x) v[x] /= s;
  }
  void forward(const double* a, double* out) const {
    const double keep = 1.0 - g_.skew();
    std::fill(out, out + S_, 0.0);
    for (int t = 0; t < g_.topics(); ++t) {
      double mass = 0;
      for (int j = 0; j < G_; ++j) {
        const int x = t * G_ + j;
        mass += a[x];
        for (int s = 1; s <= Grammar::kSteps; ++s)
          out[t * G_ + (j + s) % G_] += a[x] * keep * (1.0 - Grammar::kJumpProb) * Grammar::kStepProb[j % 3][s - 1];
      }
      for (int j = 0; j < G_; ++j)
        out[t * G_ + j] += mass * (keep * Grammar::kJumpProb / G_ + g_.skew() * g_.peak_weight(j));
    }
  }
  void backward(const double* gy, double* out) const {
    const double keep = 1.0 - g_.skew();
    for (int t = 0; t < g_.topics(); ++t) {
      double mass = 0;
      double peaked = 0;
      for (int j = 0; j < G_; ++j) mass += gy[t * G_ + j], peaked += g_.peak_weight(j) * gy[t * G_ + j];
      for (int j = 0; j < G_; ++j) {
        double v = mass * Grammar::kJumpProb / G_;
        for (int s = 1; s <= Grammar::kSteps; ++s)
          v += (1.0 - Grammar::kJumpProb) * Grammar::kStepProb[j % 3][s - 1] * gy[t * G_ + (j + s) % G_];
        out[t * G_ + j] = keep * v + g_.skew() * peaked;
      }
    }
  }
  const Grammar& g_;
  double noise_;
  int S_, G_;
  std::vector<double> alpha_;
};

}  // namespace

GrammarStats grammar_stats(const SynthOptions& opt, int64_t train_samples, int64_t eval_samples) {
  check_options(opt);
  const Grammar g(opt.vocab_size, opt.topics, opt.seed, opt.content_tokens, opt.topic_skew);
  const int V = opt.vocab_size;
  const bool dense = V <= 4096;
  // Bigram counts over the training samples' original tokens.
  std::vector<int32_t> pair(dense ? static_cast<size_t>(V) * V : 0, 0), left(static_cast<size_t>(V), 0),
      uni(static_cast<size_t>(V), 0);
  {
    SequenceSet sink;
    std::vector<int16_t> orig;
    for (int64_t i = 0; i < train_samples; ++i) {
      Rng rng{opt.seed, 0, static_cast<uint64_t>(i)};  // the samples of shard 0 onwards
      make_sample(opt, g, rng, sink, &orig);
      sink = SequenceSet{};
      for (size_t t = 0; t < orig.size(); ++t) {
        ++uni[orig[t]];
        if (t + 1 < orig.size()) {
          ++left[orig[t]];
          if (dense) ++pair[static_cast<size_t>(orig[t]) * V + orig[t + 1]];
        }
      }
    }
  }
  int most = kFirstContentId;
  for (int v = kFirstContentId; v < V; ++v)
    if (uni[v] > uni[most]) most = v;

  GrammarStats st;
  SegmentPosterior post(g, opt.masked_lm_prob * 0.1);
  int64_t ok_oracle = 0, ok_bigram = 0, ok_uni = 0, total_len = 0, shorts = 0, fulls = 0;
  std::vector<int> best;
  const double d = 0.01;
  for (int64_t i = 0; i < eval_samples; ++i) {
    SequenceSet one;
    Rng rng{opt.seed, kEvalStream, static_cast<uint64_t>(i)};
    make_sample(opt, g, rng, one, nullptr);
    const int16_t* ids = one.input_ids.data();
    const int len = one.length(0);
    total_len += len;
    shorts += len <= opt.seq_len / 4;
    fulls += len == opt.seq_len;
    const int sep1 = static_cast<int>(std::find(ids + 1, ids + len, kSepId) - ids);
    std::vector<int> pred(static_cast<size_t>(len), -1);
    for (auto [b, e] : {std::pair{1, sep1}, std::pair{sep1 + 1, len - 1}}) {
      if (e <= b) continue;
      post.run(ids + b, e - b, best);
      for (int k = b; k < e; ++k) pred[k] = best[k - b];
    }
    for (int m = 0; m < one.num_masked(0); ++m) {
      const int p = one.mlm_positions[m], label = one.mlm_ids[m];
      ++st.masked;
      ok_oracle += pred[p] == label;
      ok_uni += most == label;
      if (!dense) continue;
      const int a = ids[p - 1], b = ids[p + 1];
      const bool ka = a != kMaskId, kb = b != kMaskId;
      int arg = most;
      double top = -1;
      for (int x = kFirstContentId; x < V && (ka || kb); ++x) {
        double s = 1;
        if (ka) s *= (pair[static_cast<size_t>(a) * V + x] + d) / (left[a] + d * V);
        if (kb) s *= (pair[static_cast<size_t>(x) * V + b] + d) / (left[x] + d * V);
        if (!ka) s *= uni[x] + d;
        if (s > top) top = s, arg = x;
      }
      ok_bigram += arg == label;
    }
  }
  if (st.masked > 0) {
    st.oracle = static_cast<double>(ok_oracle) / st.masked;
    st.bigram = dense ? static_cast<double>(ok_bigram) / st.masked : -1;
    st.unigram = static_cast<double>(ok_uni) / st.masked;
  }
  if (eval_samples > 0) {
    st.mean_length = static_cast<double>(total_len) / eval_samples;
    st.short_fraction = static_cast<double>(shorts) / eval_samples;
    st.full_fraction = static_cast<double>(fulls) / eval_samples;
  }
  return st;
}

}  // namespace bert::data
