// A build without cuDNN (BERT_WITH_CUDNN off, or cudnn.h / cudnn-frontend not found): no cuDNN attention;
// the model runs our kernels (attention_choice.h).
#include "trainer/cuda/cudnn_attention.h"

namespace bert::cuda {

std::unique_ptr<CudnnAttention> CudnnAttention::create() { return nullptr; }
size_t CudnnAttention::library_version() { return 0; }

}  // namespace bert::cuda
