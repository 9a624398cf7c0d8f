// How the ranks of a CUDA run average their gradients (and reduce their FP8 amaxes): NCCL between
// distinct GPUs; the trainer's host collective (trainer/comm: shared memory within a node) when two
// ranks share a GPU, which NCCL refuses ("duplicate GPU"), e.g. two ranks on a one-GPU machine.
// Every rank decides from the same list (every rank's device id, exchanged first), so all agree.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bert::cuda {

enum class GradientTransport { none, nccl, host };

const char* to_string(GradientTransport t);

// device_ids[r]: rank r's GPU (its UUID); one rank: none; any GPU named twice: host; else nccl.
GradientTransport choose_gradient_transport(const std::vector<std::string>& device_ids);

// A device UUID (16 bytes) as 32 lowercase hex digits, and the ids of every rank from each rank's bytes
// laid side by side (world x 16 bytes, rank-major: what the exchange gathers).
std::string device_id_hex(const uint8_t bytes[16]);
std::vector<std::string> device_ids_of(const std::vector<uint8_t>& gathered, int world);

}  // namespace bert::cuda
