// IgnoreOutputsBelow: a classifier's few outputs cost little; 0 reports
// them too. Half precision from autocast (1.13's API) and a bfloat16 input.
// RUN: %check_torch_tidy %s torch-tensor-core-alignment %t -- -- %torch_mock_1_13
// RUN: %check_torch_tidy --check-suffix=ALL %s torch-tensor-core-alignment %t.all -- \
// RUN:   -config="{CheckOptions: {torch-tensor-core-alignment.IgnoreOutputsBelow: 0}}" -- %torch_mock_1_13

#include <torch/torch.h>

void classify(torch::Tensor features) {
  at::autocast::set_enabled(true);
  torch::nn::Linear head(256, 10);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:31: warning: Linear out_features of 10 is not a multiple of 8, which tensor cores need for half-precision matrix multiplies [torch-tensor-core-alignment]
  // CHECK-MESSAGES-ALL: :[[@LINE-2]]:31: note: pad it to 16
  // CHECK-MESSAGES-ALL: :[[@LINE-4]]:3: note: half precision here
  torch::nn::Linear proj(256, 500);
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: Linear out_features of 500 is not a multiple of 8
  // CHECK-MESSAGES: :[[@LINE-2]]:31: note: pad it to 504
  // CHECK-MESSAGES: :[[@LINE-8]]:3: note: half precision here
  // CHECK-MESSAGES-ALL: :[[@LINE-4]]:31: warning: Linear out_features of 500 is not a multiple of 8
  // CHECK-MESSAGES-ALL: :[[@LINE-5]]:31: note: pad it to 504
  // CHECK-MESSAGES-ALL: :[[@LINE-11]]:3: note: half precision here
  head(proj(features.bfloat16().cuda()));
}
