// The shared-memory group of a node. Its local rank 0 creates a POSIX shared-memory segment (its pages
// reserved up front, so a full /dev/shm is a fallback now, not SIGBUS later) and names it in the KV
// store; every rank of the node maps it, proves it sees that segment (a nonce) and says so in the KV
// store; if any rank of the job cannot, every rank returns null and the caller takes TCP. Once all are
// in, local rank 0 unlinks the name: nothing is left in /dev/shm however the job ends.
//
// Layout: a header (per rank, on a cache line of its own: an arrival counter, a robust mutex the rank
// holds while it lives, an attached flag), then one slot of kSlotBytes per rank. An allreduce goes
// through the data a slot-sized chunk at a time: everyone copies its chunk into its slot; each rank
// sums its share of the elements over the slots in local-rank order into slot 0; everyone (or local
// rank 0 alone) copies slot 0 out. A reduce-scatter sums each owner's part the same way but only
// the owner's piece, into its own buffer; an allgather passes each owner's piece through its slot. A wait
// for peers that exceeds BERT_DIST_COLL_TIMEOUT_S, or finds a peer's mutex released (it exited) or
// owner-dead (it crashed), is a DistError naming the peer.
#include "trainer/comm/shm_collective.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <thread>

#include "trainer/comm/env.h"

namespace bert::dist {
namespace {

constexpr uint64_t kMagic = 0x6265727473686d31ull;  // "bertshm1"
constexpr size_t kSlotBytes = size_t{8} << 20;      // per rank; a chunk of an allreduce
constexpr size_t kLine = 64;

struct alignas(kLine) RankState {
  std::atomic<uint64_t> arrived{0};  // the last barrier this rank reached
  std::atomic<uint32_t> attached{0};
  pthread_mutex_t alive;  // robust, process-shared; held by the rank from attach to exit
};

struct Header {
  std::atomic<uint64_t> magic{0};  // set last, once the rest is ready
  uint64_t nonce;
  int32_t size;
  uint64_t slot_bytes;
};

constexpr size_t kHeaderBytes = (sizeof(Header) + kLine - 1) / kLine * kLine;  // the rank states follow

size_t header_bytes(int size) { return kHeaderBytes + sizeof(RankState) * static_cast<size_t>(size); }
size_t segment_bytes(int size) { return header_bytes(size) + kSlotBytes * static_cast<size_t>(size); }

std::string errno_text(int e) { return std::strerror(e); }

class Segment {
 public:
  Segment() = default;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment() {
    if (base_ != nullptr) ::munmap(base_, bytes_);
  }

  // Local rank 0: creates and sizes it; the reason in `why` when it cannot.
  bool create(const std::string& name, int size, uint64_t nonce, std::string* why) {
    const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) return fail(why, "shm_open(" + name + "): " + errno_text(errno));
    size_ = size;
    bytes_ = segment_bytes(size);
    // posix_fallocate reserves the pages: tmpfs without room says ENOSPC here
    const int e = ::ftruncate(fd, static_cast<off_t>(bytes_)) != 0 ? errno : ::posix_fallocate(fd, 0, static_cast<off_t>(bytes_));
    if (e != 0) {
      ::close(fd);
      ::shm_unlink(name.c_str());
      return fail(why, "cannot reserve " + std::to_string(bytes_ >> 20) + " MiB in /dev/shm for " + name + ": " + errno_text(e));
    }
    if (!map(fd, why)) {
      ::shm_unlink(name.c_str());
      return false;
    }
    Header* h = new (base_) Header();
    h->nonce = nonce;
    h->size = size;
    h->slot_bytes = kSlotBytes;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    for (int r = 0; r < size; ++r) {
      RankState* s = new (rank(r)) RankState();
      pthread_mutex_init(&s->alive, &a);
    }
    pthread_mutexattr_destroy(&a);
    h->magic.store(kMagic, std::memory_order_release);
    return true;
  }

  // The node's other ranks: maps its local rank 0's segment and checks it is the one named (magic, nonce, size).
  bool open(const std::string& name, int size, uint64_t nonce, std::string* why) {
    const int fd = ::shm_open(name.c_str(), O_RDWR, 0);
    if (fd < 0) return fail(why, "shm_open(" + name + "): " + errno_text(errno) + " (a /dev/shm of its own, as in a container of its own?)");
    struct stat st {};
    size_ = size;
    bytes_ = segment_bytes(size);
    if (::fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != bytes_) {
      ::close(fd);
      return fail(why, name + " is not the segment its local rank 0 made (size)");
    }
    if (!map(fd, why)) return false;
    const Header* h = header();
    if (h->magic.load(std::memory_order_acquire) != kMagic ||
        h->nonce != nonce || h->size != size || h->slot_bytes != kSlotBytes)
      return fail(why, name + " is not the segment its local rank 0 made");
    return true;
  }

  Header* header() { return static_cast<Header*>(base_); }
  RankState* rank(int r) { return reinterpret_cast<RankState*>(static_cast<char*>(base_) + kHeaderBytes) + r; }
  char* slot(int r) { return static_cast<char*>(base_) + header_bytes(size_) + kSlotBytes * static_cast<size_t>(r); }

 private:
  bool map(int fd, std::string* why) {
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int e = errno;
    ::close(fd);
    if (p == MAP_FAILED) return fail(why, "mmap of the shared segment: " + errno_text(e));
    base_ = p;
    return true;
  }
  static bool fail(std::string* why, const std::string& text) {
    *why = text;
    return false;
  }

  void* base_ = nullptr;
  int size_ = 0;  // ranks, as made
  size_t bytes_ = 0;
};

// The node's ranks on one segment. In error messages ranks are named by their job rank.
class NodeGroup final : public ShmGroup {
 public:
  NodeGroup(int local_rank, int local_size, std::vector<int> node_of, std::vector<int> local_of,
            std::vector<int> members, std::unique_ptr<Segment> seg)
      : me_(local_rank), size_(local_size), node_of_(std::move(node_of)), local_of_(std::move(local_of)),
        members_(std::move(members)), seg_(std::move(seg)),
        timeout_(collective_timeout()) {}

  ~NodeGroup() override {
    // Released, not abandoned: a peer still waiting sees this rank gone instead of waiting it out.
    if (holding_) pthread_mutex_unlock(&seg_->rank(me_)->alive);
  }

  // Takes this rank's alive mutex and marks it attached (before the first barrier).
  void attach() {
    RankState* me = seg_->rank(me_);
    if (pthread_mutex_lock(&me->alive) == EOWNERDEAD) pthread_mutex_consistent(&me->alive);
    holding_ = true;
    me->attached.store(1, std::memory_order_release);
  }

  void allreduce_sum(float* data, size_t n, bool to_all) override { allreduce(data, n, to_all, "float"); }
  void allreduce_sum(double* data, size_t n, bool to_all) override { allreduce(data, n, to_all, "double"); }

  void broadcast(void* data, size_t bytes, int local_root) override {
    const std::string what = "broadcast of " + std::to_string(bytes) + " bytes";
    char* out = static_cast<char*>(data);
    char* slot = seg_->slot(0);
    for (size_t at = 0; at < bytes; at += kSlotBytes) {
      const size_t len = std::min(kSlotBytes, bytes - at);
      barrier_for(what);  // everyone has read the previous chunk
      if (me_ == local_root) std::memcpy(slot, out + at, len);
      barrier_for(what);
      if (me_ != local_root) std::memcpy(out + at, slot, len);
    }
  }

  // Each rank's slot holds a sub-slot per owner: a round copies the next piece of every other rank's
  // part into them (times the rank's scale, as it copies), then each owner sums its piece over the
  // ranks in local-rank order (its own values from its buffer, scaled there first), the bits
  // allreduce gives. Scaling is a multiply stored before any add, so no FMA can merge the two.
  void reduce_scatter_sum(float* data, const Parts& parts, float scale) override {
    const std::string what = "reduce-scatter of " + std::to_string(total_of(parts)) + " float";
    const size_t piece = kSlotBytes / static_cast<size_t>(size_) / sizeof(float) / 16 * 16;
    const auto sub = [&](int rank, int owner) {
      return reinterpret_cast<float*>(seg_->slot(rank)) + piece * static_cast<size_t>(owner);
    };
    std::vector<const float*> src(static_cast<size_t>(size_));
    for (size_t at = 0; at < longest(parts); at += piece) {
      barrier_for(what);  // every owner has summed the previous pieces
      for (int o = 0; o < size_; ++o) {
        const auto [lo, hi] = piece_of(parts[static_cast<size_t>(o)], at, piece);
        if (o != me_ && hi > lo) copy_scaled(data + lo, sub(me_, o), hi - lo, scale);
      }
      const auto [lo, hi] = piece_of(parts[static_cast<size_t>(me_)], at, piece);
      if (scale != 1.0f) copy_scaled(data + lo, data + lo, hi - lo, scale);
      barrier_for(what);
      for (int r = 0; r < size_; ++r) src[static_cast<size_t>(r)] = r == me_ ? data + lo : sub(r, me_);
      sum_in_order(src, data + lo, hi - lo);
    }
  }

  void allgather(void* data, const Parts& byte_parts) override {
    const std::string what = "allgather of " + std::to_string(total_of(byte_parts)) + " bytes";
    char* out = static_cast<char*>(data);
    for (size_t at = 0; at < longest(byte_parts); at += kSlotBytes) {
      barrier_for(what);  // everyone has read the previous pieces
      const auto [lo, hi] = piece_of(byte_parts[static_cast<size_t>(me_)], at, kSlotBytes);
      if (hi > lo) std::memcpy(seg_->slot(me_), out + lo, hi - lo);
      barrier_for(what);
      for (int o = 0; o < size_; ++o) {
        const auto [olo, ohi] = piece_of(byte_parts[static_cast<size_t>(o)], at, kSlotBytes);
        if (o != me_ && ohi > olo) std::memcpy(out + olo, seg_->slot(o), ohi - olo);
      }
    }
  }

  void barrier() override { barrier_for("barrier"); }
  const std::vector<int>& node_of() const override { return node_of_; }
  const std::vector<int>& local_of() const override { return local_of_; }

  // Waits for every rank of the node at the next barrier. `what` names the collective in errors.
  void barrier_for(const std::string& what) {
    const uint64_t target = ++generation_;
    seg_->rank(me_)->arrived.store(target, std::memory_order_release);
    const auto start = std::chrono::steady_clock::now();
    auto next_check = start;
    for (int spins = 0;; spins = std::min(spins + 1, 1 << 20)) {
      int late = -1;
      for (int r = 0; r < size_ && late < 0; ++r)
        if (seg_->rank(r)->arrived.load(std::memory_order_acquire) < target) late = r;
      if (late < 0) return;
      if (spins < 2000) continue;
      if (spins < 4000) {
        sched_yield();
        continue;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      const auto now = std::chrono::steady_clock::now();
      if (now < next_check) continue;
      next_check = now + std::chrono::milliseconds(20);
      const std::string peer = "rank " + std::to_string(members_[static_cast<size_t>(late)]);
      if (const std::string gone = departed(late); !gone.empty()) {
        // It may have arrived after the look above and left at once (its last collective, done): that
        // is no failure. Its arrival was stored before it let go of its mutex, which departed() took.
        if (seg_->rank(late)->arrived.load(std::memory_order_acquire) >= target) continue;
        fail(what, peer + " " + gone);
      }
      if (now - start > timeout_)
        fail(what, "timed out after " +
                       std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - start).count()) +
                       " s waiting for " + peer + " (BERT_DIST_COLL_TIMEOUT_S sets the wait)");
    }
  }

 private:
  // Empty while local rank r can still come; else how it left. Remembered: the robust mutex says
  // EOWNERDEAD to the first look only (which makes it consistent), and that look may come in a wait the
  // rank had already passed (arrived, then killed), so a later wait must still say "died".
  std::string departed(int r) {
    std::string& known = departed_[static_cast<size_t>(r)];
    if (!known.empty()) return known;
    RankState* s = seg_->rank(r);
    if (!s->attached.load(std::memory_order_acquire)) return "";
    const int got = pthread_mutex_trylock(&s->alive);
    if (got == EBUSY) return "";
    if (got == EOWNERDEAD) {
      pthread_mutex_consistent(&s->alive);
      pthread_mutex_unlock(&s->alive);
      return known = "died";
    }
    if (got == 0) pthread_mutex_unlock(&s->alive);
    return known = "exited";
  }

  [[noreturn]] void fail(const std::string& what, const std::string& reason) {
    throw DistError("shared-memory " + what + " failed on rank " + std::to_string(members_[static_cast<size_t>(me_)]) +
                    ": " + reason);
  }

  template <class T>
  void allreduce(T* data, size_t n, bool to_all, const char* type) {
    if (n == 0) return;
    const std::string what = "allreduce of " + std::to_string(n) + " " + type;
    const size_t chunk = kSlotBytes / sizeof(T);
    T* sum = reinterpret_cast<T*>(seg_->slot(0));
    for (size_t at = 0; at < n; at += chunk) {
      const size_t len = std::min(chunk, n - at);
      barrier_for(what);  // everyone has copied the previous chunk out of slot 0
      std::memcpy(seg_->slot(me_), data + at, len * sizeof(T));
      barrier_for(what);
      // this rank's share of the chunk, summed over the slots in local-rank order (the same bits on
      // every rank), into slot 0: no other rank reads or writes these elements meanwhile
      const size_t share = (len + static_cast<size_t>(size_) - 1) / static_cast<size_t>(size_);
      const size_t lo = std::min(len, share * static_cast<size_t>(me_)), hi = std::min(len, lo + share);
      // (one thread: OpenMP threads here, with ranks sharing cores, ran 3.5x slower; bench/cpu_allreduce.sh)
      std::vector<const T*> src(static_cast<size_t>(size_));
      for (int r = 0; r < size_; ++r) src[static_cast<size_t>(r)] = reinterpret_cast<const T*>(seg_->slot(r)) + lo;
      sum_in_order(src, sum + lo, hi - lo);
      barrier_for(what);
      if (to_all || me_ == 0) std::memcpy(data + at, sum, len * sizeof(T));
    }
  }

  static size_t longest(const Parts& parts) {
    size_t n = 0;
    for (const auto& [lo, hi] : parts) n = std::max(n, hi - lo);
    return n;
  }
  static size_t total_of(const Parts& parts) {
    size_t n = 0;
    for (const auto& [lo, hi] : parts) n += hi - lo;
    return n;
  }
  // [at, at + piece) of a part, as offsets into the buffer (empty past its end).
  static std::pair<size_t, size_t> piece_of(const std::pair<size_t, size_t>& part, size_t at, size_t piece) {
    const size_t lo = std::min(part.first + at, part.second);
    return {lo, std::min(lo + piece, part.second)};
  }
  static void copy_scaled(const float* x, float* out, size_t n, float scale) {
    if (scale == 1.0f) {
      if (out != x) std::memcpy(out, x, n * sizeof(float));
      return;
    }
    for (size_t i = 0; i < n; ++i) out[i] = x[i] * scale;
  }
  // out[i] = ((src[0][i] + src[1][i]) + src[2][i]) + ..., through an L1 tile (out may be one of src):
  // the one rank-order sum of the allreduce and the reduce-scatter, so both give the same bits.
  template <class T>
  static void sum_in_order(const std::vector<const T*>& src, T* out, size_t n) {
    if (out == src[0]) {  // in place (the allreduce's slot 0): no tile needed
      for (size_t r = 1; r < src.size(); ++r)
        for (size_t i = 0; i < n; ++i) out[i] += src[r][i];
      return;
    }
    constexpr size_t kTile = 4096 / sizeof(T);
    T tile[kTile];
    for (size_t at = 0; at < n; at += kTile) {
      const size_t len = std::min(kTile, n - at);
      std::memcpy(tile, src[0] + at, len * sizeof(T));
      for (size_t r = 1; r < src.size(); ++r) {
        const T* x = src[r] + at;
        for (size_t i = 0; i < len; ++i) tile[i] += x[i];
      }
      std::memcpy(out + at, tile, len * sizeof(T));
    }
  }

  int me_, size_;
  std::vector<int> node_of_, local_of_, members_;  // members_: the job ranks of local ranks 0, 1, ...
  std::vector<std::string> departed_ = std::vector<std::string>(static_cast<size_t>(size_));  // by departed()
  std::unique_ptr<Segment> seg_;
  std::chrono::milliseconds timeout_;
  uint64_t generation_ = 0;
  bool holding_ = false;
};

}  // namespace

ShmGroup::Parts ShmGroup::parts_of(const std::vector<size_t>& bounds, int parts) {
  check_shard_bounds(bounds, parts);
  Parts out(static_cast<size_t>(parts));
  for (size_t i = 0; i < out.size(); ++i) out[i] = {bounds[i], bounds[i + 1]};
  return out;
}

namespace {

class ShmCollective final : public Collective {
 public:
  ShmCollective(const ProcessInfo& p, std::unique_ptr<ShmGroup> group)
      : rank_(p.rank), size_(p.size), group_(std::move(group)) {}
  void allreduce_sum(float* data, size_t n) override { group_->allreduce_sum(data, n, true); }
  void allreduce_sum(double* data, size_t n) override { group_->allreduce_sum(data, n, true); }
  void broadcast(void* data, size_t bytes, int root) override {
    check_broadcast_root(root, size_);
    group_->broadcast(data, bytes, group_->local_of()[static_cast<size_t>(root)]);
  }
  void barrier() override { group_->barrier(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* transport() const override { return "shm"; }
  bool shards_updates() const override { return true; }
  void reduce_scatter_sum(float* data, const std::vector<size_t>& bounds, float scale) override {
    group_->reduce_scatter_sum(data, local_parts(bounds), scale);
  }
  void allgather(void* data, const std::vector<size_t>& byte_bounds) override {
    group_->allgather(data, local_parts(byte_bounds));
  }

 private:
  // Job rank r's part, at its local rank's index.
  ShmGroup::Parts local_parts(const std::vector<size_t>& bounds) const {
    const ShmGroup::Parts by_rank = ShmGroup::parts_of(bounds, size_);
    ShmGroup::Parts parts(by_rank.size());
    for (int r = 0; r < size_; ++r)
      parts[static_cast<size_t>(group_->local_of()[static_cast<size_t>(r)])] = by_rank[static_cast<size_t>(r)];
    return parts;
  }

  int rank_, size_;
  std::unique_ptr<ShmGroup> group_;
};

std::string segment_name(int instance) {
  std::random_device rd;
  return "/bert-coll-" + std::to_string(::getuid()) + "-" + std::to_string(::getpid()) + "-" + std::to_string(instance) +
         "-" + std::to_string(rd() & 0xffffff);
}

}  // namespace

std::unique_ptr<ShmGroup> try_make_shm_group(const ProcessInfo& p, KVStore& kv, std::string* why) {
  static std::atomic<int> instances{0};
  const std::string key = "shm" + std::to_string(instances++);
  // Where every rank is: the node's members in local-rank order, and its local rank 0 (which makes the
  // segment).
  kv.put(key + ".at", std::to_string(p.node) + " " + std::to_string(p.local_rank));
  kv.fence();
  std::vector<int> node_of(static_cast<size_t>(p.size)), local_of(static_cast<size_t>(p.size));
  std::vector<int> members(static_cast<size_t>(p.local_size), -1);
  for (int r = 0; r < p.size; ++r) {
    const std::string at = r == p.rank ? std::to_string(p.node) + " " + std::to_string(p.local_rank) : kv.get(key + ".at", r);
    if (std::sscanf(at.c_str(), "%d %d", &node_of[static_cast<size_t>(r)], &local_of[static_cast<size_t>(r)]) != 2)
      throw DistError("rank " + std::to_string(r) + " sent a bad place in the rendezvous: '" + at + "'");
    const int local = local_of[static_cast<size_t>(r)];
    if (node_of[static_cast<size_t>(r)] != p.node) continue;
    if (local < 0 || local >= p.local_size || members[static_cast<size_t>(local)] != -1)
      throw DistError("rank " + std::to_string(r) + " says it is local rank " + std::to_string(local) + " of node " +
                      std::to_string(p.node) + ", which has " + std::to_string(p.local_size) + " ranks");
    members[static_cast<size_t>(local)] = r;
  }
  for (int l = 0; l < p.local_size; ++l)
    if (members[static_cast<size_t>(l)] < 0)
      throw DistError("no rank says it is local rank " + std::to_string(l) + " of node " + std::to_string(p.node));

  auto seg = std::make_unique<Segment>();
  std::string name, reason;
  uint64_t nonce = 0;
  bool ok = true;
  if (p.local_rank == 0) {
    std::random_device rd;
    nonce = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    name = segment_name(instances);
    ok = seg->create(name, p.local_size, nonce, &reason);
    kv.put(key, ok ? name + " " + std::to_string(nonce) : "-");
  }
  kv.fence();
  if (p.local_rank != 0) {
    const std::string offer = kv.get(key, members[0]);
    const size_t space = offer.find(' ');
    if (offer == "-" || space == std::string::npos) {
      ok = false;
      reason = "rank " + std::to_string(members[0]) + " could not make a segment";
    } else {
      name = offer.substr(0, space);
      nonce = std::strtoull(offer.c_str() + space + 1, nullptr, 10);
      ok = seg->open(name, p.local_size, nonce, &reason);
    }
  }
  // Every rank learns whether every rank got in, so all take the same transport.
  const std::string mine = ok ? "1" : "0 " + reason;
  kv.put(key + ".ok", mine);
  kv.fence();
  std::string first_failure;
  for (int r = 0; r < p.size && first_failure.empty(); ++r) {
    const std::string v = r == p.rank ? mine : kv.get(key + ".ok", r);
    if (v != "1") first_failure = "rank " + std::to_string(r) + ": " + (v.size() > 2 ? v.substr(2) : v);
  }
  if (!first_failure.empty()) {
    if (p.local_rank == 0 && ok) ::shm_unlink(name.c_str());
    *why = first_failure;
    return nullptr;
  }
  auto group = std::make_unique<NodeGroup>(p.local_rank, p.local_size, std::move(node_of), std::move(local_of),
                                           std::move(members), std::move(seg));
  group->attach();
  group->barrier_for("attach");
  if (p.local_rank == 0) ::shm_unlink(name.c_str());
  return group;
}

std::unique_ptr<Collective> make_shm_collective(const ProcessInfo& p, std::unique_ptr<ShmGroup> group) {
  return std::make_unique<ShmCollective>(p, std::move(group));
}

}  // namespace bert::dist
