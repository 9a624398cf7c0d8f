// Host model of the warp-level operations the CUDA tile templates take (mma::DeviceWarp in
// trainer/cuda/mma_bf16.cuh), built from the PTX ISA's documented register layouts, and a runner that
// executes one thread block of such a template with one host thread per CUDA thread. The kernels' own
// index arithmetic then runs unchanged on the host: a wrong fragment mapping shows up as a wrong
// result here, without a GPU.
//
// Documented facts modelled (PTX ISA 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating
// point type", .bf16: Figures 79, 81, 83; 9.7.14.5.15 ldmatrix), with g = lane >> 2, t = lane & 3,
// element i of a fragment in register i / 2, the lower index in the low 16 bits:
//   mma A (16x16): a_i at row g + 8 * ((i >> 1) & 1), col 2t + (i & 1) + 8 * (i >> 2)
//   mma B (16x8):  b_i at row 2t + (i & 1) + 8 * (i >> 1), col g
//   mma C/D:       c_i at row g + 8 * (i >> 1), col 2t + (i & 1)
//   ldmatrix.m8n8.x4.b16: lanes 8m..8m+7 give the addresses of rows 0..7 of matrix m (16 bytes each,
//     16-byte aligned); register m of a lane holds matrix m's row g, cols 2t, 2t+1; with .trans the
//     matrix is read column-major: rows 2t, 2t+1 of col g (CUTLASS's SM75_U16x8_LDSM_T layout).
//   shfl.sync.bfly: lane reads lane ^ mask's value.
// Every collective checks that all 32 lanes of the warp issued the same operation (.aligned), and
// ldmatrix that each row lies inside the block's shared memory and is 16-byte aligned.
// copy16 is cp.async (zero-fill when !valid): the source is read at issue, the 16 bytes land in shared
// memory at the issue (CopyLanding::at_issue: a copy into a buffer other warps still read shows) or
// only at the thread's copy_wait (at_wait: a read before the wait sees stale bytes); a barrier reached
// with copies not waited for is an error (the kernels' discipline: every copy is waited for before the
// barrier after it).
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace bert::cuda::test {

// bf16 <-> float as the device converts (__floats2bfloat162_rn: nearest even, subnormals kept).
inline uint16_t bf16_rn(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline float bf16_float(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

class BlockModel;

enum class CopyLanding { at_wait, at_issue };

// The W of the tile templates for one simulated thread.
class WarpModel {
 public:
  using T = uint16_t;
  WarpModel(BlockModel& b, int tid) : b_(b), warp_(tid >> 5), lane_(tid & 31) {}

  void sync();
  void ldmatrix_x4(uint32_t r[4], const T* row_addr) { ldmatrix(r, row_addr, false); }
  void ldmatrix_x4_trans(uint32_t r[4], const T* row_addr) { ldmatrix(r, row_addr, true); }
  void mma(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1);
  uint32_t pack_bf16(float lo, float hi) { return bf16_rn(lo) | static_cast<uint32_t>(bf16_rn(hi)) << 16; }
  float shfl_xor(float v, int mask) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u = shuffle(u, mask);
    std::memcpy(&v, &u, 4);
    return v;
  }
  unsigned shfl_xor(unsigned v, int mask) { return shuffle(v, mask); }
  void copy16(T* dst, const T* src, bool valid);
  void copy4(uint32_t* dst, const uint32_t* src, bool valid);
  void copy_wait();
  void atomic_add(float* dst, float v) { std::atomic_ref<float>(*dst).fetch_add(v); }
  // red.global.add.v4.f32: four consecutive floats, the address 16-byte aligned (the device faults otherwise)
  void atomic_add4(float* dst, float a, float b, float c, float d);
  void store_bf16x2(T* dst, float lo, float hi) {
    dst[0] = bf16_rn(lo);
    dst[1] = bf16_rn(hi);
  }

 private:
  enum Op { kLdsm = 1, kLdsmTrans, kMma, kShfl };
  struct Slot {
    int op, arg;
    const T* addr;
    uint32_t a[4], b[2];
    float c[4];
    uint32_t v;
  };
  friend class BlockModel;
  // Deposits this lane's operands, waits for the warp, returns all 32 lanes' slots.
  const Slot* exchange(const Slot& mine);
  void ldmatrix(uint32_t r[4], const T* row_addr, bool trans);
  uint32_t shuffle(uint32_t v, int mask);

  struct Copy {
    void* dst;
    unsigned char v[16];
    size_t bytes;
  };
  void issue(void* dst, const void* src, size_t bytes, bool valid);

  BlockModel& b_;
  int warp_, lane_, parity_ = 0;
  std::vector<Copy> pending_;  // issued, not landed (at_wait)
  int in_flight_ = 0;          // issued since the last copy_wait
};

class BlockModel {
 public:
  // threads: blockDim.x (a multiple of 32); [shared, shared + shared_bytes): the block's shared memory.
  BlockModel(int threads, const void* shared, size_t shared_bytes, CopyLanding landing = CopyLanding::at_wait)
      : threads_(threads), shared_(static_cast<const char*>(shared)), shared_bytes_(shared_bytes), landing_(landing),
        block_(threads) {
    for (int w = 0; w < threads / 32; ++w) warps_.push_back(std::make_unique<WarpState>());
  }
  // Runs body(WarpModel&, tid) for every thread of the block, concurrently; returns when all are done.
  template <class Body>
  void run(Body body) {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<size_t>(threads_));
    for (int tid = 0; tid < threads_; ++tid)
      pool.emplace_back([this, tid, &body] {
        WarpModel w(*this, tid);
        try {
          body(w, tid);
        } catch (const std::exception& e) {
          error(std::string("thread ") + std::to_string(tid) + ": " + e.what());
        }
      });
    for (auto& t : pool) t.join();
  }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  friend class WarpModel;
  struct WarpState {
    std::barrier<> bar{32};
    WarpModel::Slot slot[2][32];
  };
  void error(const std::string& e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (errors_.size() < 20) errors_.push_back(e);
  }
  bool in_shared(const void* p, size_t bytes) const {
    const char* c = static_cast<const char*>(p);
    return c >= shared_ && c + bytes <= shared_ + shared_bytes_;
  }

  int threads_;
  const char* shared_;
  size_t shared_bytes_;
  CopyLanding landing_;
  std::barrier<> block_;
  std::vector<std::unique_ptr<WarpState>> warps_;
  std::mutex mu_;
  std::vector<std::string> errors_;
};

inline void WarpModel::sync() {
  if (in_flight_)
    b_.error("thread " + std::to_string(warp_ * 32 + lane_) + " reached a barrier with " + std::to_string(in_flight_) +
             " cp.async copies not waited for");
  b_.block_.arrive_and_wait();
}

inline void WarpModel::issue(void* dst, const void* src, size_t bytes, bool valid) {
  if (reinterpret_cast<uintptr_t>(dst) % bytes || !b_.in_shared(dst, bytes) ||
      (valid && reinterpret_cast<uintptr_t>(src) % bytes))
    b_.error("cp.async: a destination outside shared memory or an address not aligned to the copy's size");
  Copy c{dst, {}, bytes};
  if (valid) std::memcpy(c.v, src, bytes);
  if (b_.landing_ == CopyLanding::at_issue)
    std::memcpy(dst, c.v, bytes);
  else
    pending_.push_back(c);
  ++in_flight_;
}

inline void WarpModel::copy16(T* dst, const T* src, bool valid) { issue(dst, src, 16, valid); }
inline void WarpModel::copy4(uint32_t* dst, const uint32_t* src, bool valid) { issue(dst, src, 4, valid); }

inline void WarpModel::copy_wait() {
  for (const Copy& c : pending_) std::memcpy(c.dst, c.v, c.bytes);
  pending_.clear();
  in_flight_ = 0;
}

inline void WarpModel::atomic_add4(float* dst, float a, float b, float c, float d) {
  if (reinterpret_cast<uintptr_t>(dst) % 16) b_.error("atomic_add4: address not 16-byte aligned");
  const float v[4] = {a, b, c, d};
  for (int i = 0; i < 4; ++i) std::atomic_ref<float>(dst[i]).fetch_add(v[i]);
}

inline const WarpModel::Slot* WarpModel::exchange(const Slot& mine) {
  // Two slot sets used alternately: a lane can only overwrite set k again after every lane has
  // passed the barrier of the following collective, i.e. has finished reading set k.
  BlockModel::WarpState& ws = *b_.warps_[static_cast<size_t>(warp_)];
  ws.slot[parity_][lane_] = mine;
  ws.bar.arrive_and_wait();
  const Slot* all = ws.slot[parity_];
  parity_ ^= 1;
  for (int l = 0; l < 32; ++l)
    if (all[l].op != mine.op || all[l].arg != mine.arg)
      b_.error("warp " + std::to_string(warp_) + ": lanes " + std::to_string(lane_) + " and " + std::to_string(l) +
               " issued different warp-synchronous operations together (.aligned violated)");
  return all;
}

inline void WarpModel::ldmatrix(uint32_t r[4], const T* row_addr, bool trans) {
  Slot s{};
  s.op = trans ? kLdsmTrans : kLdsm;
  s.addr = row_addr;
  if (reinterpret_cast<uintptr_t>(row_addr) % 16 != 0 || !b_.in_shared(row_addr, 16))
    b_.error("ldmatrix: lane " + std::to_string(lane_) + " of warp " + std::to_string(warp_) +
             " gives a row address that is not a 16-byte aligned row of the block's shared memory");
  const Slot* all = exchange(s);
  const int g = lane_ >> 2, t = lane_ & 3;
  for (int m = 0; m < 4; ++m) {
    uint16_t e[2];
    for (int j = 0; j < 2; ++j)
      e[j] = trans ? all[8 * m + 2 * t + j].addr[g]   // rows 2t, 2t+1 of matrix m, column g
                   : all[8 * m + g].addr[2 * t + j];  // row g of matrix m, columns 2t, 2t+1
    r[m] = e[0] | static_cast<uint32_t>(e[1]) << 16;
  }
}

inline void WarpModel::mma(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
  Slot s{};
  s.op = kMma;
  std::memcpy(s.a, a, sizeof s.a);
  s.b[0] = b0;
  s.b[1] = b1;
  std::memcpy(s.c, c, sizeof s.c);
  const Slot* all = exchange(s);
  float A[16][16], B[16][8], C[16][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l >> 2, t = l & 3;
    for (int i = 0; i < 8; ++i) {
      const uint16_t bits = static_cast<uint16_t>(all[l].a[i >> 1] >> (16 * (i & 1)));
      A[g + 8 * ((i >> 1) & 1)][2 * t + (i & 1) + 8 * (i >> 2)] = bf16_float(bits);
    }
    for (int i = 0; i < 4; ++i) {
      const uint16_t bits = static_cast<uint16_t>(all[l].b[i >> 1] >> (16 * (i & 1)));
      B[2 * t + (i & 1) + 8 * (i >> 1)][g] = bf16_float(bits);
    }
    for (int i = 0; i < 4; ++i) C[g + 8 * (i >> 1)][2 * t + (i & 1)] = all[l].c[i];
  }
  const int g = lane_ >> 2, t = lane_ & 3;
  for (int i = 0; i < 4; ++i) {
    const int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
    float acc = C[row][col];
    for (int k = 0; k < 16; ++k) acc = std::fma(A[row][k], B[k][col], acc);
    c[i] = acc;
  }
}

inline uint32_t WarpModel::shuffle(uint32_t v, int mask) {
  Slot s{};
  s.op = kShfl;
  s.arg = mask;
  s.v = v;
  return exchange(s)[lane_ ^ mask].v;
}

}  // namespace bert::cuda::test
