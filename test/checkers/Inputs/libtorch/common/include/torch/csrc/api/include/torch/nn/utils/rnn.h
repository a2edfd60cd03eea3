#pragma once
// torch/nn/utils/rnn.h: padding of variable-length sequences.
#include <ATen/core/TensorBody.h>
#include <vector>

namespace torch {
namespace nn {
namespace utils {
namespace rnn {
at::Tensor pad_sequence(std::vector<at::Tensor> sequences,
                        bool batch_first = false, double padding_value = 0);
class PackedSequence {
public:
  const at::Tensor &data() const;
  const at::Tensor &batch_sizes() const;
};
PackedSequence pack_padded_sequence(at::Tensor input, at::Tensor lengths,
                                    bool batch_first = false,
                                    bool enforce_sorted = true);
} // namespace rnn
} // namespace utils
} // namespace nn
} // namespace torch
