#include "dataset/spill.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "formats/data_error.h"
#include "dataset/file_bytes.h"

namespace bert::data {
namespace {
constexpr size_t kSpillBudget = size_t{64} << 20;  // bytes buffered over all spill files
constexpr size_t kHeadBytes = 4 + 2 + 2 + 2 + 1;
}  // namespace

std::string SpillFiles::path(int m) const { return fmt::format("{}/spill_{:05d}", dir_, m); }

void SpillFiles::add(int m, const RecordHead& h, const SequenceSet& s, int64_t i) {
  std::string& b = buf_[static_cast<size_t>(m)];
  put(b, &h.pack, 4);
  put(b, &h.slot, 2);
  put(b, &h.len, 2);
  put(b, &h.masked, 2);
  put(b, &h.nsp, 1);
  put(b, s.input_ids.data() + s.tok_off[i], sizeof(int16_t) * h.len);
  put(b, s.segment_ids.data() + s.tok_off[i], sizeof(int8_t) * h.len);
  put(b, s.mlm_positions.data() + s.mlm_off[i], sizeof(int16_t) * h.masked);
  put(b, s.mlm_ids.data() + s.mlm_off[i], sizeof(int16_t) * h.masked);
  if (buffered_ > kSpillBudget) flush();
}

void SpillFiles::flush() {
  for (size_t m = 0; m < buf_.size(); ++m) {
    if (buf_[m].empty()) continue;
    const std::string p = path(static_cast<int>(m));
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(p.c_str(), "ab"), std::fclose);
    if (!f || std::fwrite(buf_[m].data(), 1, buf_[m].size(), f.get()) != buf_[m].size() || std::fflush(f.get()) != 0)
      throw DataError(fmt::format("{}: cannot write spill file (disk full?)", p));
    buf_[m].clear();
    buf_[m].shrink_to_fit();
  }
  buffered_ = 0;
}

void SpillFiles::put(std::string& b, const void* p, size_t n) {
  b.append(static_cast<const char*>(p), n);
  buffered_ += n;
}

SequenceSet assemble_shard(const std::string& spill, int64_t packs) {
  const std::string data = packs > 0 ? read_file_bytes(spill, "spill file") : std::string();
  struct Rec {
    RecordHead h;
    size_t at;
  };
  std::vector<Rec> recs;
  for (size_t at = 0; at < data.size();) {
    if (at + kHeadBytes > data.size()) throw DataError(fmt::format("{}: truncated spill file", spill));
    Rec r;
    const char* p = data.data() + at;
    std::memcpy(&r.h.pack, p, 4);
    std::memcpy(&r.h.slot, p + 4, 2);
    std::memcpy(&r.h.len, p + 6, 2);
    std::memcpy(&r.h.masked, p + 8, 2);
    std::memcpy(&r.h.nsp, p + 10, 1);
    r.at = at + kHeadBytes;
    at = r.at + 3 * size_t{r.h.len} + 4 * size_t{r.h.masked};
    if (at > data.size()) throw DataError(fmt::format("{}: truncated spill file", spill));
    recs.push_back(r);
  }
  std::sort(recs.begin(), recs.end(),
            [](const Rec& a, const Rec& b) { return a.h.pack != b.h.pack ? a.h.pack < b.h.pack : a.h.slot < b.h.slot; });
  SequenceSet out;
  out.pack_off.assign(1, 0);
  std::vector<int16_t> ids, pos, mids;
  std::vector<int8_t> seg;
  for (size_t r = 0; r < recs.size(); ++r) {
    const RecordHead& h = recs[r].h;
    const char* p = data.data() + recs[r].at;
    ids.resize(h.len), seg.resize(h.len), pos.resize(h.masked), mids.resize(h.masked);
    std::memcpy(ids.data(), p, 2 * size_t{h.len});
    std::memcpy(seg.data(), p + 2 * size_t{h.len}, h.len);
    std::memcpy(pos.data(), p + 3 * size_t{h.len}, 2 * size_t{h.masked});
    std::memcpy(mids.data(), p + 3 * size_t{h.len} + 2 * size_t{h.masked}, 2 * size_t{h.masked});
    out.append(ids.data(), seg.data(), h.len, pos.data(), mids.data(), h.masked, h.nsp);
    if (r + 1 == recs.size() || recs[r + 1].h.pack != h.pack) {
      if (h.pack != out.pack_off.size() - 1) throw DataError(fmt::format("{}: pack {} has no sequences", spill, h.pack));
      out.pack_off.push_back(out.size());
    }
  }
  if (out.num_packs() != packs)
    throw DataError(fmt::format("{}: {} packs assembled, {} planned", spill, out.num_packs(), packs));
  return out;
}

SpillCleanup::~SpillCleanup() {
  std::error_code ec;
  std::filesystem::remove_all(spill_dir_, ec);
  if (!done_)
    for (const auto& f : written_) std::filesystem::remove(f, ec);
}

}  // namespace bert::data
