#include "trainer/cuda/attention_choice.h"

#include <cstdlib>

#include "common/user_error.h"

namespace bert::cuda {

AttentionChoice parse_attention_choice(const char* word) {
  if (!word || !*word) return AttentionChoice::automatic;
  if (const auto c = parse_enum(word, kAttentionChoiceNames)) return *c;
  std::string words;
  for (const std::string& w : enum_choices(kAttentionChoiceNames)) words += (words.empty() ? "" : ", ") + w;
  throw UserError(std::string(kAttentionChoiceVariable) + "=" + word + ": not one of " + words);
}

AttentionChoice attention_choice_from_env() { return parse_attention_choice(std::getenv(kAttentionChoiceVariable)); }

bool cudnn_attention_built() {
#if BERT_HAVE_CUDNN
  return true;
#else
  return false;
#endif
}

bool use_cudnn_attention(AttentionChoice choice, bool built) {
  switch (choice) {
    case AttentionChoice::automatic: return built;
    case AttentionChoice::own: return false;
    case AttentionChoice::cudnn:
      if (!built)
        throw UserError(std::string(kAttentionChoiceVariable) +
                        "=cudnn: this build has no cuDNN (configured without it: BERT_WITH_CUDNN, cudnn.h or "
                        "cudnn-frontend not found); use auto or own");
      return true;
  }
  return false;
}

}  // namespace bert::cuda
