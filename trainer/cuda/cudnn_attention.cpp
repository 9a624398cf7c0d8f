// cuDNN's fused attention through cudnn-frontend's graph API (cudnn_attention.h).
#include "trainer/cuda/cudnn_attention.h"

#include <cudnn.h>
#include <cudnn_frontend.h>

#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "trainer/cuda/check.h"
#include "trainer/cuda/device_buffer.h"

namespace bert::cuda {
namespace {

namespace fe = cudnn_frontend;
using Graph = fe::graph::Graph;
using Tensor = std::shared_ptr<fe::graph::Tensor_attributes>;

constexpr int64_t D = kAttentionHeadDim;
constexpr float kScale = 0.125f;  // 1 / sqrt(64)

// The tensors' ids in a graph's variant pack.
enum Uid : int64_t {
  kQ = 1, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV, kSeqLen, kQkvOffset, kOutOffset, kSeed, kOffset, kMask
};

void check_cudnn(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) throw CudaError(std::string("cuDNN: ") + what + ": " + cudnnGetErrorString(s));
}
void check_fe(fe::error_t e, const std::string& what) {
  if (!e.is_good()) throw CudaError("cuDNN attention: " + what + ": " + e.get_message());
}

enum class Kind { forward_training, forward_evaluation, backward };
const char* kind_name(Kind k) {
  return k == Kind::backward ? "backward" : k == Kind::forward_training ? "forward" : "evaluation forward";
}

struct Key {
  Kind kind;
  int entries, seq_len, heads;
  uint32_t p_bits;
  bool mask_dump = false;  // tests: the dropout mask as an output
  bool operator<(const Key& o) const {
    return std::tie(kind, entries, seq_len, heads, p_bits, mask_dump) <
           std::tie(o.kind, o.entries, o.seq_len, o.heads, o.p_bits, o.mask_dump);
  }
};

uint32_t bits_of(float p) {
  uint32_t b = 0;
  std::memcpy(&b, &p, sizeof(b));
  return b;
}

// A [entries, heads, seq_len, 64] view of token rows `row` elements apart, ragged by `offset`.
Tensor ragged(Graph& g, const char* name, int64_t uid, const Key& k, int64_t row, const Tensor& offset) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({k.entries, k.heads, k.seq_len, D})
                      .set_stride({k.seq_len * row, D, row, 1})
                      .set_ragged_offset(offset));
}
void as_ragged_output(const Tensor& t, const char* name, int64_t uid, const Key& k, int64_t row, const Tensor& offset) {
  t->set_output(true)
      .set_name(name)
      .set_uid(uid)
      .set_dim({k.entries, k.heads, k.seq_len, D})
      .set_stride({k.seq_len * row, D, row, 1})
      .set_ragged_offset(offset);
}
Tensor index_tensor(Graph& g, const char* name, int64_t uid, int64_t n) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({n, 1, 1, 1})
                      .set_stride({1, 1, 1, 1})
                      .set_data_type(fe::DataType_t::INT32));
}
Tensor rng_tensor(Graph& g, const char* name, int64_t uid) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({1, 1, 1, 1})
                      .set_stride({1, 1, 1, 1})
                      .set_data_type(fe::DataType_t::INT64));
}
void stats_layout(const Tensor& t, const Key& k) {
  t->set_uid(kStats)
      .set_name("stats")
      .set_dim({k.entries, k.heads, k.seq_len, 1})
      .set_stride({static_cast<int64_t>(k.heads) * k.seq_len, k.seq_len, 1, 1})
      .set_data_type(fe::DataType_t::FLOAT);
}

std::shared_ptr<Graph> make_graph(const Key& k) {
  auto g = std::make_shared<Graph>();
  g->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const int64_t H = static_cast<int64_t>(k.heads) * D;
  const Tensor qkv_off = index_tensor(*g, "qkv_offset", kQkvOffset, k.entries + 1);
  const Tensor out_off = index_tensor(*g, "out_offset", kOutOffset, k.entries + 1);
  const Tensor seq_len = index_tensor(*g, "seq_len", kSeqLen, k.entries);
  const Tensor q = ragged(*g, "q", kQ, k, 3 * H, qkv_off), kt = ragged(*g, "k", kK, k, 3 * H, qkv_off),
               v = ragged(*g, "v", kV, k, 3 * H, qkv_off);
  float p = 0.f;
  std::memcpy(&p, &k.p_bits, sizeof(p));
  if (k.kind != Kind::backward) {
    auto opt = fe::graph::SDPA_attributes()
                   .set_name("bert_attention")
                   .set_generate_stats(k.kind == Kind::forward_training)
                   .set_attn_scale(kScale)
                   .set_padding_mask(true)
                   .set_seq_len_q(seq_len)
                   .set_seq_len_kv(seq_len);
    if (p > 0.f) opt.set_dropout(p, rng_tensor(*g, "seed", kSeed), rng_tensor(*g, "offset", kOffset));
    if (k.mask_dump)
      opt.set_rng_dump(g->tensor(fe::graph::Tensor_attributes()
                                     .set_name("dropout_mask")
                                     .set_uid(kMask)
                                     .set_dim({k.entries, k.heads, k.seq_len, k.seq_len})
                                     .set_stride({static_cast<int64_t>(k.heads) * k.seq_len * k.seq_len,
                                                  static_cast<int64_t>(k.seq_len) * k.seq_len, k.seq_len, 1})
                                     .set_data_type(fe::DataType_t::FLOAT)));
    auto [o, stats] = g->sdpa(q, kt, v, opt);
    as_ragged_output(o, "o", kO, k, H, out_off);
    if (k.kind == Kind::forward_training) {
      stats->set_output(true);
      stats_layout(stats, k);
    }
  } else {
    const Tensor o = ragged(*g, "o", kO, k, H, out_off), dout = ragged(*g, "do", kDO, k, H, out_off);
    const Tensor stats = g->tensor(fe::graph::Tensor_attributes());
    stats_layout(stats, k);
    auto opt = fe::graph::SDPA_backward_attributes()
                   .set_name("bert_attention_backward")
                   .set_attn_scale(kScale)
                   .set_padding_mask(true)
                   .set_seq_len_q(seq_len)
                   .set_seq_len_kv(seq_len);
    if (p > 0.f) opt.set_dropout(p, rng_tensor(*g, "seed", kSeed), rng_tensor(*g, "offset", kOffset));
    auto [dq, dk, dv] = g->sdpa_backward(q, kt, v, o, dout, stats, opt);
    as_ragged_output(dq, "dq", kDQ, k, 3 * H, qkv_off);
    as_ragged_output(dk, "dk", kDK, k, 3 * H, qkv_off);
    as_ragged_output(dv, "dv", kDV, k, 3 * H, qkv_off);
  }
  return g;
}

class CudnnAttentionImpl final : public CudnnAttention {
 public:
  CudnnAttentionImpl() { check_cudnn(cudnnCreate(&handle_), "cudnnCreate"); }
  ~CudnnAttentionImpl() override {
    if (handle_) cudnnDestroy(handle_);
  }

  void set_batch(const AttentionShape& s, const int32_t* first, const int32_t* lens, cudaStream_t stream) override {
    const size_t n = static_cast<size_t>(s.num_sequences) + 1;
    if (n > capacity_) {  // the first pass of a shape: eager (never under capture)
      require_not_capturing(stream, "the batch's entries");
      seq_len_ = DeviceBuffer<int32_t>(n);
      qkv_offset_ = DeviceBuffer<int32_t>(n);
      out_offset_ = DeviceBuffer<int32_t>(n);
      capacity_ = n;
    }
    if (s.num_sequences == 0) return;
    cudnn_attention_entries(s, first, lens, seq_len_.get(), qkv_offset_.get(), out_offset_.get(), stream);
  }

  void forward(const CudnnForwardArgs& a, cudaStream_t stream) override {
    const AttentionShape& s = a.shape;
    const size_t H = static_cast<size_t>(s.heads) * D;
    // Rows of tokens outside every sequence must read as zeros downstream (cuDNN writes the sequences' rows).
    BERT_CUDA_CHECK(cudaMemsetAsync(a.out, 0, static_cast<size_t>(s.tokens) * H * sizeof(__nv_bfloat16), stream));
    if (s.tokens == 0 || s.num_sequences == 0) return;
    const float p = a.dropout.p;
    const Key key{a.training ? Kind::forward_training : Kind::forward_evaluation, s.num_sequences, s.seq_len, s.heads,
                  bits_of(p > 0.f ? p : 0.f), p > 0.f && a.dropout_mask};
    if (p > 0.f) cudnn_attention_seed(a.dropout, a.rng, stream);
    std::unordered_map<int64_t, void*> pack = entries();
    pack[kQ] = const_cast<__nv_bfloat16*>(a.qkv);
    pack[kK] = const_cast<__nv_bfloat16*>(a.qkv + H);
    pack[kV] = const_cast<__nv_bfloat16*>(a.qkv + 2 * H);
    pack[kO] = a.out;
    if (a.training) pack[kStats] = a.stats;
    if (p > 0.f) {
      pack[kSeed] = a.rng;
      pack[kOffset] = a.rng + 1;
    }
    if (key.mask_dump) pack[kMask] = a.dropout_mask;
    execute(key, pack, stream);
  }

  void backward(const CudnnBackwardArgs& a, cudaStream_t stream) override {
    const AttentionShape& s = a.shape;
    const size_t H = static_cast<size_t>(s.heads) * D;
    // dQKV of tokens outside every sequence must read as zeros (cuDNN writes the sequences' rows)
    BERT_CUDA_CHECK(
        cudaMemsetAsync(a.dqkv, 0, static_cast<size_t>(s.tokens) * 3 * H * sizeof(__nv_bfloat16), stream));
    if (s.tokens == 0 || s.num_sequences == 0) return;
    const float p = a.dropout.p;
    const Key key{Kind::backward, s.num_sequences, s.seq_len, s.heads, bits_of(p > 0.f ? p : 0.f)};
    std::unordered_map<int64_t, void*> pack = entries();
    pack[kQ] = const_cast<__nv_bfloat16*>(a.qkv);
    pack[kK] = const_cast<__nv_bfloat16*>(a.qkv + H);
    pack[kV] = const_cast<__nv_bfloat16*>(a.qkv + 2 * H);
    pack[kO] = const_cast<__nv_bfloat16*>(a.out);
    pack[kDO] = const_cast<__nv_bfloat16*>(a.dout);
    pack[kStats] = const_cast<float*>(a.stats);
    pack[kDQ] = a.dqkv;
    pack[kDK] = a.dqkv + H;
    pack[kDV] = a.dqkv + 2 * H;
    if (p > 0.f) {
      pack[kSeed] = const_cast<int64_t*>(a.rng);
      pack[kOffset] = const_cast<int64_t*>(a.rng + 1);
    }
    execute(key, pack, stream);
  }

 private:
  static void require_not_capturing(cudaStream_t stream, const std::string& what) {
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    BERT_CUDA_CHECK(cudaStreamIsCapturing(stream, &capturing));
    if (capturing != cudaStreamCaptureStatusNone)
      throw CudaError("cuDNN attention: " + what + " first needed under graph capture (run a shape eagerly first)");
  }

  std::unordered_map<int64_t, void*> entries() const {
    return {{kSeqLen, seq_len_.get()}, {kQkvOffset, qkv_offset_.get()}, {kOutOffset, out_offset_.get()}};
  }

  // The key's graph, built on first use (eagerly: building allocates), and its workspace.
  void execute(const Key& key, std::unordered_map<int64_t, void*>& pack, cudaStream_t stream) {
    std::shared_ptr<Graph>& g = graphs_[key];
    const std::string what = std::string(kind_name(key.kind)) + " of " + std::to_string(key.entries) +
                             " sequences x " + std::to_string(key.seq_len) + " x " + std::to_string(key.heads) +
                             " heads";
    if (!g) {
      require_not_capturing(stream, "the graph of the " + what);
      auto built = make_graph(key);
      check_fe(built->validate(), what + ": validate");
      check_fe(built->build_operation_graph(handle_), what + ": build_operation_graph");
      check_fe(built->create_execution_plans({fe::HeurMode_t::A}), what + ": create_execution_plans");
      check_fe(built->check_support(handle_), what + ": check_support");
      check_fe(built->build_plans(handle_), what + ": build_plans");
      int64_t bytes = 0;
      check_fe(built->get_workspace_size(bytes), what + ": get_workspace_size");
      if (static_cast<size_t>(bytes) > workspace_.size()) {
        BERT_CUDA_CHECK(cudaStreamSynchronize(stream));  // the old workspace may still be in use
        workspace_ = DeviceBuffer<uint8_t>(static_cast<size_t>(bytes));
      }
      g = std::move(built);
    }
    check_cudnn(cudnnSetStream(handle_, stream), "cudnnSetStream");
    check_fe(g->execute(handle_, pack, workspace_.get()), what + ": execute");
  }

  cudnnHandle_t handle_ = nullptr;
  std::map<Key, std::shared_ptr<Graph>> graphs_;
  DeviceBuffer<uint8_t> workspace_;
  DeviceBuffer<int32_t> seq_len_, qkv_offset_, out_offset_;
  size_t capacity_ = 0;
};

}  // namespace

std::unique_ptr<CudnnAttention> CudnnAttention::create() { return std::make_unique<CudnnAttentionImpl>(); }
size_t CudnnAttention::library_version() { return cudnnGetVersion(); }

}  // namespace bert::cuda
