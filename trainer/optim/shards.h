// The parameter tensors split into runs of whole tensors, one per rank, as even in elements as the
// tensors' sizes allow: a rank sums, clips and LAMB-updates its run only (a trust ratio needs a whole
// tensor), then the runs are gathered (dist::Collective::shards_updates, update_group).
#pragma once
#include <cstddef>
#include <vector>

#include "trainer/model/params.h"

namespace bert::optim {

struct Shards {
  std::vector<size_t> first_tensor;  // parts + 1: run r is tensors [first_tensor[r], first_tensor[r + 1])
  std::vector<size_t> bounds;        // parts + 1 element offsets into the flat buffer (the last: layout.total)

  size_t begin(int r) const { return bounds[static_cast<size_t>(r)]; }
  size_t end(int r) const { return bounds[static_cast<size_t>(r) + 1]; }
  std::vector<size_t> byte_bounds(size_t element_bytes) const;
};

// parts >= 1; with parts = 1, or more parts than tensors, some runs are empty.
Shards shard_tensors(const model::ParamLayout& layout, int parts);

}  // namespace bert::optim
