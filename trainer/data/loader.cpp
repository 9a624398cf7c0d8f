#include "trainer/data/loader.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <fmt/format.h>
#include <future>
#include <mutex>
#include <numeric>
#include <thread>

#include "trainer/data/batch_assembly.h"
#include "trainer/data/loader_bins.h"
#include "trainer/data/rng.h"

namespace bert::data {

struct Loader::Impl {
  LoaderOptions opt;
  std::vector<std::string> shards;
  BinGroups bins;               // Samsung's 4-bin layout (then a "shard" below is a group)
  std::vector<int> bin_counts;  // per batch, per bin

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::pair<Batch, int>> queue;  // batch, epoch
  std::exception_ptr error;
  bool finished = false;
  bool stop = false;
  std::thread worker;

  int epoch = 0;
  int64_t served = 0;

  // Waits for room in the queue; false when asked to stop.
  bool push(Batch&& b, int epoch_of) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return stop || static_cast<int>(queue.size()) < opt.prefetch; });
    if (stop) return false;
    queue.emplace_back(std::move(b), epoch_of);
    cv.notify_all();
    return true;
  }

  void produce() {
    try {
      run();
    } catch (...) {
      std::lock_guard lock(mu);
      error = std::current_exception();
    }
    std::lock_guard lock(mu);
    finished = true;
    cv.notify_all();
  }

  // The rank's shards of epoch e in read order (indices into `shards`).
  size_t units() const { return bins.empty() ? shards.size() : bins.groups.size(); }

  std::vector<int64_t> epoch_shards(int e) const {
    std::vector<int64_t> perm(units());
    std::iota(perm.begin(), perm.end(), 0);
    Rng(std::initializer_list<uint64_t>{opt.seed, 0x5A4D, static_cast<uint64_t>(e)}).shuffle(perm.begin(), perm.end());
    std::vector<int64_t> mine;
    for (size_t k = static_cast<size_t>(opt.rank); k < perm.size(); k += static_cast<size_t>(opt.world_size))
      mine.push_back(perm[k]);
    return mine;
  }

  struct Loaded {
    std::shared_ptr<SequenceSet> set;
    std::vector<int64_t> bin_first;  // bins: bin b is sequences [bin_first[b], bin_first[b+1])
  };

  Loaded load(int64_t shard) const {
    const Limits lim{opt.vocab_size, opt.seq_len, opt.max_pred};
    const std::vector<std::string> files =
        bins.empty() ? std::vector<std::string>{shards[static_cast<size_t>(shard)]} : bins.groups[static_cast<size_t>(shard)];
    Loaded out{std::make_shared<SequenceSet>(), {0}};
    for (const auto& path : files) {
      Format layout;
      SequenceSet part = read_shard(path, lim, 0, -1, &layout);
      if ((layout == Format::packed) != (opt.format == Format::packed) || (layout == Format::packed && !bins.empty()))
        throw DataError(fmt::format("{}: layout {}, but the run expects {} shards", path, format_name(layout),
                                    format_name(opt.format)));
      if (files.size() == 1) {
        *out.set = std::move(part);
      } else {
        for (int64_t i = 0; i < part.size(); ++i) out.set->append(part, i);
      }
      out.bin_first.push_back(out.set->size());
    }
    return out;
  }

  std::vector<int64_t> unit_order(const Loaded& loaded, int e, int64_t shard) const {
    if (!bins.empty()) return balanced_order(loaded.bin_first, bin_counts, opt.seed, e, shard);
    std::vector<int64_t> order(static_cast<size_t>(loaded.set->num_packs()));
    std::iota(order.begin(), order.end(), 0);
    Rng(std::initializer_list<uint64_t>{opt.seed, static_cast<uint64_t>(e), static_cast<uint64_t>(shard)})
        .shuffle(order.begin(), order.end());
    return order;
  }

  void run() {
    // Shard sets still referenced by the rows of the batch being filled.
    std::vector<std::shared_ptr<SequenceSet>> live;
    std::vector<RowRef> rows;
    rows.reserve(static_cast<size_t>(opt.batch_size));
    std::vector<int64_t> mine = epoch_shards(0);
    const size_t per_epoch = mine.size();  // the same every epoch
    // While one shard is served, a helper thread reads the next one (a real shard takes ~0.3 s).
    std::future<Loaded> ahead = std::async(std::launch::async, &Impl::load, this, mine[0]);
    for (int e = 0; opt.epochs == 0 || e < opt.epochs; ++e) {
      int64_t units_this_epoch = 0;
      for (size_t k = 0; k < per_epoch; ++k) {
        const int64_t shard = mine[k];
        Loaded loaded = ahead.get();
        auto set = loaded.set;
        if (k + 1 < per_epoch) {
          ahead = std::async(std::launch::async, &Impl::load, this, mine[k + 1]);
        } else if (opt.epochs == 0 || e + 1 < opt.epochs) {
          mine = epoch_shards(e + 1);
          ahead = std::async(std::launch::async, &Impl::load, this, mine[0]);
        }
        const std::vector<int64_t> order = unit_order(loaded, e, shard);
        units_this_epoch += static_cast<int64_t>(order.size());
        live.push_back(set);
        for (int64_t u : order) {
          rows.push_back({set.get(), u});
          if (static_cast<int>(rows.size()) == opt.batch_size) {
            Batch b;
            assemble_rows(rows.data(), opt.batch_size, opt.seq_len, b);
            rows.clear();
            live.erase(live.begin(), live.end() - 1);  // only the current shard is still referenced
            if (!push(std::move(b), e)) return;
          }
        }
      }
      if (units_this_epoch == 0) throw DataError(fmt::format("{}: no samples for rank {}", opt.dir, opt.rank));
    }
  }
};

Loader::Loader(LoaderOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.opt = std::move(options);
  const LoaderOptions& o = m.opt;
  if (o.world_size < 1 || o.rank < 0 || o.rank >= o.world_size)
    throw DataError(fmt::format("loader: rank {} outside world size {}", o.rank, o.world_size));
  if (o.batch_size < 1 || o.seq_len < 1 || o.max_pred < 1 || o.vocab_size < 1 || o.prefetch < 1)
    throw DataError("loader: batch_size, seq_len, max_pred, vocab_size and prefetch must be positive");
  if (o.files.empty()) m.bins = find_bin_groups(o.dir);
  if (!m.bins.empty()) {
    if (o.format == Format::packed) throw DataError(fmt::format("{}: length bins hold unpacked shards, not packed", o.dir));
    std::vector<int64_t> sizes;
    for (const auto& f : m.bins.groups.front()) sizes.push_back(count_samples(f));
    m.bin_counts = bin_batch_counts(sizes, o.batch_size, o.bin_batch_counts, o.dir);
    for (const auto& g : m.bins.groups) m.shards.insert(m.shards.end(), g.begin(), g.end());
  } else {
    m.shards = o.files.empty() ? list_shards(o.dir) : o.files;
  }
  const std::string where = o.files.empty() ? o.dir : "the shard list";
  if (m.shards.empty()) throw DataError(fmt::format("{}: no shards (files named part*)", where));
  if (static_cast<int>(m.units()) < o.world_size)
    throw DataError(fmt::format("{}: {} shards for {} ranks; every rank needs at least one (bert-data reshard)",
                                where, m.units(), o.world_size));
  for (const auto& s : m.shards)
    if (!std::filesystem::is_regular_file(s)) throw DataError(fmt::format("{}: shard missing", s));
  m.worker = std::thread([&m] { m.produce(); });
}

Loader::~Loader() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  if (impl_->worker.joinable()) impl_->worker.join();
}

bool Loader::next(Batch& batch) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mu);
  m.cv.wait(lock, [&] { return !m.queue.empty() || m.finished; });
  if (m.queue.empty()) {
    if (m.error) std::rethrow_exception(m.error);
    return false;
  }
  batch = std::move(m.queue.front().first);
  m.epoch = m.queue.front().second;
  m.queue.pop_front();
  m.served += batch.num_sequences;
  m.cv.notify_all();
  return true;
}

int Loader::epoch() const {
  std::lock_guard lock(impl_->mu);
  return impl_->epoch;
}

int64_t Loader::sequences_served() const {
  std::lock_guard lock(impl_->mu);
  return impl_->served;
}

const std::vector<std::string>& Loader::shards() const { return impl_->shards; }

}  // namespace bert::data
