// The HDF5 dataset writers of the shard writer (shard_write.cpp): plain (rows x cols, cols 0 = 1-D)
// and vlen 1-D from CSR, little-endian file types. Failures become DataError naming file and dataset.
#pragma once
#include <cstdint>
#include <string>

#include "formats/h5_util.h"

namespace bert::data::h5 {

template <typename T>
void write_plain(hid_t file, const std::string& path, const std::string& name, const T* data,
                 hsize_t rows, hsize_t cols);
// A plain dataset created whole and then written in row ranges (bounded memory for big files).
template <typename T>
Handle create_plain(hid_t file, const std::string& path, const std::string& name, hsize_t rows, hsize_t cols);
template <typename T>
void write_rows(hid_t dataset, const std::string& path, const std::string& name, const T* data, hsize_t first,
                hsize_t count, hsize_t cols);
template <typename T>
void write_vlen(hid_t file, const std::string& path, const std::string& name, const T* values,
                const int64_t* offsets, hsize_t count);

}  // namespace bert::data::h5
