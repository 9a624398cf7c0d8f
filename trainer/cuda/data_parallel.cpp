#include "trainer/cuda/data_parallel.h"

#include <nccl.h>

#include <vector>

#include "trainer/cuda/check.h"

namespace bert::cuda {
namespace {

void check_nccl(ncclResult_t r, const char* what, const char* file, int line) {
  if (r != ncclSuccess) throw_cuda_error(what, ncclGetErrorString(r), file, line);
}
#define BERT_NCCL_CHECK(call) check_nccl((call), #call, __FILE__, __LINE__)

std::string to_hex(const ncclUniqueId& id) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (char c : id.internal) {
    const auto b = static_cast<unsigned char>(c);
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

ncclUniqueId from_hex(const std::string& s) {
  ncclUniqueId id{};
  if (s.size() != 2 * sizeof(id.internal)) throw CudaError("NCCL unique id from the KV store has the wrong length");
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw CudaError("NCCL unique id from the KV store is not hex");
  };
  for (size_t i = 0; i < sizeof(id.internal); ++i)
    id.internal[i] = static_cast<char>(nib(s[2 * i]) << 4 | nib(s[2 * i + 1]));
  return id;
}

}  // namespace

struct NcclDataParallel::Impl {
  ncclComm_t comm = nullptr;
  cudaStream_t comm_stream = nullptr;
  cudaEvent_t done = nullptr;
  std::vector<cudaEvent_t> ready;  // one per bucket in flight, reused across steps
  size_t next_ready = 0;
  bool pending = false;
};

NcclDataParallel::NcclDataParallel(const dist::ProcessInfo& p, dist::KVStore& kv, const std::string& tag)
    : impl_(new Impl), rank_(p.rank), size_(p.size) {
  const std::string key = "nccl_unique_id/" + tag;
  ncclUniqueId id{};
  if (rank_ == 0) {
    BERT_NCCL_CHECK(ncclGetUniqueId(&id));
    kv.put(key, to_hex(id));
  }
  kv.fence();
  if (rank_ != 0) id = from_hex(kv.get(key, 0));
  BERT_NCCL_CHECK(ncclCommInitRank(&impl_->comm, size_, id, rank_));
  BERT_CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->comm_stream, cudaStreamNonBlocking));
  BERT_CUDA_CHECK(cudaEventCreateWithFlags(&impl_->done, cudaEventDisableTiming));
}

NcclDataParallel::~NcclDataParallel() {
  for (cudaEvent_t e : impl_->ready) cudaEventDestroy(e);
  if (impl_->done) cudaEventDestroy(impl_->done);
  if (impl_->comm_stream) cudaStreamDestroy(impl_->comm_stream);
  if (impl_->comm) ncclCommDestroy(impl_->comm);
  delete impl_;
}

void NcclDataParallel::grads_ready(float* grads, size_t offset, size_t count, cudaStream_t compute) {
  if (count == 0) return;
  if (impl_->next_ready == impl_->ready.size()) {
    cudaEvent_t e;
    BERT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    impl_->ready.push_back(e);
  }
  cudaEvent_t e = impl_->ready[impl_->next_ready++];
  BERT_CUDA_CHECK(cudaEventRecord(e, compute));
  BERT_CUDA_CHECK(cudaStreamWaitEvent(impl_->comm_stream, e, 0));
  BERT_NCCL_CHECK(ncclAllReduce(grads + offset, grads + offset, count, ncclFloat32, ncclAvg, impl_->comm,
                                impl_->comm_stream));
  impl_->pending = true;
}

void NcclDataParallel::finish(cudaStream_t compute) {
  if (impl_->pending) {
    BERT_CUDA_CHECK(cudaEventRecord(impl_->done, impl_->comm_stream));
    BERT_CUDA_CHECK(cudaStreamWaitEvent(compute, impl_->done, 0));
  }
  impl_->pending = false;
  impl_->next_ready = 0;
}

void NcclDataParallel::allreduce_max(float* data, size_t count, cudaStream_t stream) {
  BERT_NCCL_CHECK(ncclAllReduce(data, data, count, ncclFloat32, ncclMax, impl_->comm, stream));
}

}  // namespace bert::cuda
