// Builds Batches (batch.h) from sequences held in SequenceSets: one sequence per padded row, or
// one pack per row. Used by the training loader and the eval loader.
#pragma once
#include <cstdint>
#include <vector>

#include "trainer/data/batch.h"
#include "formats/sequences.h"

namespace bert::data {

// One row of a batch: sequence `unit` of an unpacked set, or pack `unit` of a packed set.
struct RowRef {
  const SequenceSet* set;
  int64_t unit;
};

void assemble_rows(const RowRef* rows, int count, int seq_len, Batch& batch);

}  // namespace bert::data
