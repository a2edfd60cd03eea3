// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <iostream>
#include <sstream>
#include <vector>

using torch::Tensor;

Tensor computeLoss(const Tensor &X);

// ---- Direct syncs in each kind of loop -------------------------------------

float positiveAccumulateFix(const std::vector<Tensor> &Batches) {
  float total = 0;
  for (const auto &X : Batches) {
    Tensor loss = computeLoss(X);
    total += loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop here
  }
  return total / Batches.size();
}
// CHECK-FIXES: {{^}}  torch::Tensor total_device;{{$}}
// CHECK-FIXES-NEXT: {{^}}  for (const auto &X : Batches) {{{$}}
// CHECK-FIXES: {{^}}    total_device = total_device.defined() ? total_device + loss.detach().to(torch::kFloat) : loss.detach().to(torch::kFloat);{{$}}
// CHECK-FIXES: {{^}}  }{{$}}
// CHECK-FIXES-NEXT: {{^}}  if (total_device.defined()){{$}}
// CHECK-FIXES-NEXT: {{^}}    total += total_device.item<float>();{{$}}
// CHECK-FIXES-NEXT: {{^}}  return total / Batches.size();{{$}}

double positiveAccumulateScaled(const std::vector<Tensor> &Batches,
                                const std::vector<Tensor> &Labels) {
  double running_loss = 0;
  size_t num_correct = 0;
  for (size_t I = 0; I < Batches.size(); ++I) {
    Tensor loss = computeLoss(Batches[I]);
    running_loss += loss.item<float>() * Batches[I].dim();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item()' synchronizes the host with the device per iteration of the loop
    num_correct += loss.argmax(1).eq(Labels[I]).sum().item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:55: warning: 'item()' synchronizes the host with the device per iteration of the loop
  }
  return running_loss / num_correct;
}
// CHECK-FIXES: {{^}}  torch::Tensor running_loss_device;{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::Tensor num_correct_device;{{$}}
// CHECK-FIXES: {{^}}    running_loss_device = running_loss_device.defined() ? running_loss_device + loss.detach().to(torch::kFloat) * Batches[I].dim() : (loss.detach().to(torch::kFloat) * Batches[I].dim()).to(torch::kDouble);{{$}}
// CHECK-FIXES: {{^}}    num_correct_device = num_correct_device.defined() ? num_correct_device + loss.argmax(1).eq(Labels[I]).sum().detach().to(torch::kLong) : loss.argmax(1).eq(Labels[I]).sum().detach().to(torch::kLong);{{$}}
// CHECK-FIXES: {{^}}  if (running_loss_device.defined()){{$}}
// CHECK-FIXES-NEXT: {{^}}    running_loss += running_loss_device.item<double>();{{$}}
// CHECK-FIXES-NEXT: {{^}}  if (num_correct_device.defined()){{$}}
// CHECK-FIXES-NEXT: {{^}}    num_correct += num_correct_device.item<int64_t>();{{$}}

// Two loops add into one total: each declares a device total of its own.
float positiveTwoLoopsOneTotal(const std::vector<Tensor> &Train,
                               const std::vector<Tensor> &Extra) {
  float loss_sum = 0;
  for (const auto &X : Train) {
    Tensor L = computeLoss(X);
    loss_sum += L.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop here
  }
  for (const auto &X : Extra) {
    Tensor L = computeLoss(X);
    loss_sum += L.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop here
  }
  return loss_sum;
}
// CHECK-FIXES: {{^}}  torch::Tensor loss_sum_device;{{$}}
// CHECK-FIXES: {{^}}    loss_sum_device = loss_sum_device.defined() ? loss_sum_device + L.detach().to(torch::kFloat) : L.detach().to(torch::kFloat);{{$}}
// CHECK-FIXES: {{^}}  if (loss_sum_device.defined()){{$}}
// CHECK-FIXES-NEXT: {{^}}    loss_sum += loss_sum_device.item<float>();{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::Tensor loss_sum_device_;{{$}}
// CHECK-FIXES: {{^}}    loss_sum_device_ = loss_sum_device_.defined() ? loss_sum_device_ + L.detach().to(torch::kFloat) : L.detach().to(torch::kFloat);{{$}}
// CHECK-FIXES: {{^}}  if (loss_sum_device_.defined()){{$}}
// CHECK-FIXES-NEXT: {{^}}    loss_sum += loss_sum_device_.item<float>();{{$}}

// The device total's name is taken by a parameter, a global the function
// reads, and a member: none is redefined or hidden.
int loss_total_device = 0;

float positiveNameOfAParameter(const std::vector<Tensor> &Batches,
                               torch::Device loss_device) {
  float loss = 0;
  for (const auto &X : Batches) {
    loss += computeLoss(X.to(loss_device)).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: 'item()' synchronizes
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: loop here
  }
  return loss;
}
// CHECK-FIXES: {{^}}  torch::Tensor loss_device_;{{$}}
// CHECK-FIXES: {{^}}    loss_device_ = loss_device_.defined() ? loss_device_ + computeLoss(X.to(loss_device)).detach().to(torch::kFloat) : computeLoss(X.to(loss_device)).detach().to(torch::kFloat);{{$}}
// CHECK-FIXES: {{^}}  if (loss_device_.defined()){{$}}
// CHECK-FIXES-NEXT: {{^}}    loss += loss_device_.item<float>();{{$}}

float positiveNameOfAGlobal(const std::vector<Tensor> &Batches) {
  float loss_total = 0;
  for (const auto &X : Batches) {
    loss_total += computeLoss(X).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'item()' synchronizes
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: loop here
  }
  return loss_total + loss_total_device;
}
// CHECK-FIXES: {{^}}  torch::Tensor loss_total_device_;{{$}}
// CHECK-FIXES: {{^}}    loss_total_device_ = loss_total_device_.defined() ? loss_total_device_ + computeLoss(X).detach().to(torch::kFloat) : computeLoss(X).detach().to(torch::kFloat);{{$}}
// CHECK-FIXES: {{^}}    loss_total += loss_total_device_.item<float>();{{$}}

struct Evaluator {
  float evaluate(const std::vector<Tensor> &Batches) {
    float score = 0;
    for (const auto &X : Batches) {
      score += computeLoss(X).item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item()' synchronizes
      // CHECK-MESSAGES: :[[@LINE-3]]:5: note: loop here
    }
    return score;
  }
  float score_device = 0;
};
// CHECK-FIXES: {{^}}    torch::Tensor score_device_;{{$}}
// CHECK-FIXES: {{^}}      score += score_device_.item<float>();{{$}}

// LibTorch 1.x's Scalar has no constructor for size_t: the factor is cast.
double positiveUnsignedFactor(const std::vector<std::vector<Tensor>> &Batches) {
  double running = 0;
  for (const auto &Batch : Batches) {
    Tensor L = computeLoss(Batch.front());
    running += L.item<float>() * Batch.size();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'item()' synchronizes
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop here
  }
  return running;
}
// CHECK-FIXES: {{^}}    running_device = running_device.defined() ? running_device + L.detach().to(torch::kFloat) * static_cast<int64_t>(Batch.size()) : (L.detach().to(torch::kFloat) * static_cast<int64_t>(Batch.size())).to(torch::kDouble);{{$}}

int64_t positiveLongItemTimesUnsigned(const std::vector<Tensor> &Batches,
                                      unsigned Weight) {
  // int64_t times unsigned is signed arithmetic on the host.
  int64_t total = 0;
  for (const auto &X : Batches) {
    total += computeLoss(X).item<int64_t>() * Weight;
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item()' synchronizes
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: loop here
  }
  return total;
}
// CHECK-FIXES: {{^}}    total_device = total_device.defined() ? total_device + computeLoss(X).detach().to(torch::kLong) * static_cast<int64_t>(Weight) : computeLoss(X).detach().to(torch::kLong) * static_cast<int64_t>(Weight);{{$}}

int64_t negativeIntegerItemTimesUnsigned(const std::vector<Tensor> &Batches,
                                         unsigned Weight) {
  // Unsigned arithmetic on the host: a negative item wraps there.
  int64_t total = 0;
  for (const auto &X : Batches) {
    total += computeLoss(X).item<int>() * Weight;
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item()' synchronizes
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: loop here
  }
  return total;
}

float negativeFixWouldRoundDifferently(const std::vector<Tensor> &Batches) {
  // A double read into a float total rounds at every step on the host.
  float total = 0;
  for (const auto &X : Batches) {
    total += computeLoss(X).item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item()' synchronizes
    total += computeLoss(X).item<float>() * 0.5;
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item()' synchronizes
  }
  return total;
}

double positiveAccumulateExpression(const std::vector<Tensor> &Batches) {
  double sum = 1.0;
  for (size_t I = 0; I < Batches.size(); ++I)
    sum += computeLoss(Batches[I]).mean().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: 'item()' synchronizes the host with the device per iteration of the loop
  return sum;
}
// A loop body that is not a block is left alone: the fix needs a statement.

void positiveTotalReadInsideTheLoop(const std::vector<Tensor> &Batches) {
  float total = 0;
  for (const auto &X : Batches) {
    total += computeLoss(X).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
    std::printf("running %f\n", total);
  }
}

void positiveWhileAndDo(Tensor loss, int Steps) {
  int Step = 0;
  while (Step < Steps) {
    float Value = loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'item()' synchronizes {{.*}} loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
    loss = loss * Value;
    ++Step;
  }
  do {
    loss = loss.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop; keep the data on the device, or copy it once after the loop [torch-host-sync-in-loop]
  } while (--Step > 0);
}

void negativeExitCondition(Tensor loss) {
  // The value decides leaving the loop: the program needs it on the host.
  while (loss.item<float>() > 0.1f)
    loss = computeLoss(loss);
  for (int I = 0; I < 10; ++I) {
    loss = computeLoss(loss);
    if (loss.item<float>() < 1e-3f)
      break;
  }
}

void positiveBoundInForCondition(Tensor Count, Tensor Values) {
  // A for condition re-reads its bound every iteration.
  for (int64_t I = 0; I < Count.item<int64_t>(); ++I)
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'item()' synchronizes the host with the device per iteration of the loop; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
    Values = Values * 2;
}

void positiveEveryCpuSpelling(const std::vector<Tensor> &Outputs,
                              std::vector<Tensor> &Host) {
  torch::Device CpuDevice(torch::kCPU);
  for (const auto &Out : Outputs) {
    Host.push_back(Out.to(torch::kCPU));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: copying a tensor to the CPU synchronizes
    Host.push_back(Out.to(torch::Device(torch::kCPU)));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: copying a tensor to the CPU synchronizes
    Host.push_back(Out.to(torch::Device("cpu")));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: copying a tensor to the CPU synchronizes
    Host.push_back(Out.to(torch::TensorOptions().device(torch::kCPU)));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: copying a tensor to the CPU synchronizes
    Host.push_back(Out.to(torch::device(torch::kCPU)));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: copying a tensor to the CPU synchronizes
    Host.push_back(Out.to(CpuDevice, torch::kFloat));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: copying a tensor to the CPU synchronizes
    Host.push_back(Out.to(c10::DeviceType::CPU));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: copying a tensor to the CPU synchronizes
  }
}

void positiveDataDependentAndBool(const std::vector<Tensor> &Masks, Tensor A,
                                  Tensor B) {
  for (const auto &M : Masks) {
    Tensor Idx = M.nonzero();
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'nonzero()' synchronizes the host with the device per iteration of the loop; its output size depends on the data, so the host waits for it; use a fixed-size form (a mask with 'where', or 'nonzero_static' on LibTorch 2.x) or move it out of the loop [torch-host-sync-in-loop]
    Tensor Sel = A.masked_select(M);
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'masked_select()' synchronizes
    if (M.is_nonzero())
      // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'is_nonzero()' synchronizes the host with the device per iteration of the loop; it returns a host bool; compute the condition on the device, or check it less often [torch-host-sync-in-loop]
      A = A + B;
    if (A.equal(B))
      // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'equal()' synchronizes
      B = B + A;
    if (torch::equal(A, M))
      // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'equal()' synchronizes
      B = B + M;
  }
}

void positivePrinting(const std::vector<Tensor> &Outputs) {
  std::ostringstream Log;
  for (const auto &Out : Outputs) {
    std::cout << Out << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: printing a tensor synchronizes the host with the device per iteration of the loop; print it after the loop or every N steps [torch-host-sync-in-loop]
    Log << "out " << Out;
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: printing a tensor synchronizes
  }
}

void positiveDeviceSyncAndClip(torch::nn::Module &Model, int Steps) {
  for (int I = 0; I < Steps; ++I) {
    torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'torch::cuda::synchronize()' synchronizes the host with the device per iteration of the loop; remove it: reading a result synchronizes when it is needed [torch-host-sync-in-loop]
    double Norm = torch::nn::utils::clip_grad_norm_(Model.parameters(), 1.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'clip_grad_norm_()' synchronizes the host with the device per iteration of the loop; it reads the total norm back to the host on every call; clip less often or compute the clip coefficient on the device [torch-host-sync-in-loop]
    (void)Norm;
  }
}

void positiveDataPtrOfDeviceTensor(const Tensor &Host, int Steps) {
  Tensor OnDevice = Host.cuda();
  for (int I = 0; I < Steps; ++I) {
    float First = OnDevice.data_ptr<float>()[0];
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: reading 'data_ptr()' of a device tensor on the host synchronizes
    (void)First;
  }
}

// ---- Reach: functions, macros, lambdas -------------------------------------

float readLoss(const Tensor &Loss) { return Loss.item<float>(); }
void logStep(const Tensor &Loss) { std::printf("%f\n", readLoss(Loss)); }

void positiveTwoCallsDeep(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches) {
    logStep(computeLoss(X));
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: call to 'logStep' synchronizes the host with the device per iteration of the loop: 'item()' (through 'readLoss'); log it every N steps [torch-host-sync-in-loop]
  }
}

void positiveMacroArgument(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches) {
    Tensor loss = computeLoss(X);
    AT_ASSERT(!std::isnan(loss.item<float>()));
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'item()' synchronizes the host with the device per iteration of the loop
    TORCH_CHECK(loss.is_nonzero(), "zero loss");
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'is_nonzero()' synchronizes
  }
}

void positiveLambdas(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches) {
    Tensor loss = computeLoss(X);
    auto Report = [&] { return loss.item<float>(); };
    std::printf("%f\n", Report());
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: call to lambda 'Report' synchronizes the host with the device per iteration of the loop: 'item()'
    [&] { std::cout << loss; }();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: call to a lambda synchronizes {{.*}}: printing a tensor;
    std::vector<Tensor> Parts = {loss};
    std::for_each(Parts.begin(), Parts.end(),
                  [](const Tensor &P) { std::printf("%f\n", P.item<float>()); });
    // CHECK-MESSAGES: :[[@LINE-1]]:63: warning: 'item()' synchronizes
  }
}

// ---- Nested loops ----------------------------------------------------------

void positiveInnermostLoopOnly(const std::vector<std::vector<Tensor>> &Grid) {
  for (const auto &Row : Grid)
    for (const auto &Cell : Row)
      std::cout << Cell;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: printing a tensor synchronizes the host with the device per iteration of the loop
}

// ---- Silent ----------------------------------------------------------------

float negativeOutsideLoops(const Tensor &Loss) {
  std::cout << Loss;
  return Loss.item<float>() + Loss.cpu().item<float>();
}

void negativeRareAndEarlyExitBranches(const std::vector<Tensor> &Batches,
                                      int LogInterval) {
  int BatchIdx = 0;
  for (const auto &X : Batches) {
    Tensor loss = computeLoss(X);
    if (BatchIdx % LogInterval == 0)
      std::printf("loss %f\n", loss.item<float>());
    if (BatchIdx++ > 1000) {
      std::cout << "stopping at " << loss << "\n";
      break;
    }
    if (BatchIdx == 5)
      return;
    else
      loss.backward();
  }
}

void negativeAssert(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches)
    assert(computeLoss(X).item<float>() >= 0);
}

void negativeOncePerEpoch(torch::optim::SGD &Optimizer, int Epochs) {
  auto Loader = torch::data::make_data_loader();
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    Tensor EpochLoss = torch::zeros({});
    for (auto &Batch : *Loader) {
      Tensor loss = computeLoss(Batch.data);
      loss.backward();
      Optimizer.step();
      EpochLoss = EpochLoss + loss.detach();
    }
    std::printf("epoch %d loss %f\n", Epoch, EpochLoss.item<float>());
    std::cout << EpochLoss << "\n";
  }
}

void negativeProvablyOnTheCpu(const Tensor &Predictions, int N) {
  Tensor Counts = torch::zeros({10});
  Tensor Labels = torch::tensor({1, 2, 3});
  Tensor HostPredictions = Predictions.cpu();
  Tensor Weights = torch::ones({10}, torch::kFloat);
  for (int I = 0; I < N; ++I) {
    float C = Counts[I].item<float>();
    float L = Labels.sum().item<float>() + HostPredictions[I].item<float>();
    float W = (Weights[I] + Counts[I]).item<float>();
    std::cout << Counts << HostPredictions.nonzero();
    (void)C, (void)L, (void)W;
  }
}

void negativeReassignedOnTheCpu(int N) {
  // Every value y takes is computed on the CPU.
  Tensor x = torch::randn({3}, torch::dtype(torch::kFloat).requires_grad());
  Tensor y = x * 2;
  while (y.norm().item<double>() < 1000)
    y = y * 2;
  Tensor z = torch::zeros({3});
  for (int I = 0; I < N; ++I) {
    z = z + x;
    std::cout << z;
  }
}

void positiveReassignedToTheDevice(const Tensor &Host, int N) {
  // z may be on the device after the first iteration.
  Tensor z = torch::zeros({3});
  for (int I = 0; I < N; ++I) {
    z = z.cuda() + Host;
    std::cout << z;
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: printing a tensor synchronizes
  }
}

void negativeDataLoaderBatchesAreOnTheHost() {
  auto Loader = torch::data::make_data_loader();
  for (auto &Batch : *Loader)
    std::printf("first label %f\n", Batch.target[0].item<float>());
}

void negativeStringsAndComments(int N) {
  for (int I = 0; I < N; ++I) {
    // loss.item<float>() and std::cout << t here are only words.
    std::puts("call loss.item<float>() and .cpu() sparingly");
  }
}

void negativeTimingSync(const Tensor &X, int N) {
  for (int I = 0; I < N; ++I) {
    torch::cuda::synchronize();
    auto Start = std::chrono::steady_clock::now();
    Tensor Y = computeLoss(X);
    torch::cuda::synchronize();
    auto End = std::chrono::steady_clock::now();
    (void)Start, (void)End, (void)Y;
  }
}

void negativeLambdaNotCalled(const std::vector<Tensor> &Batches,
                             std::vector<float (*)()> &Later) {
  for (const auto &X : Batches) {
    auto Deferred = [X] { return X.item<float>(); };
    (void)Deferred;
  }
}

void negativeDeviceAndDtypeMoves(const std::vector<Tensor> &Batches,
                                 torch::Device Device) {
  for (const auto &X : Batches) {
    Tensor A = X.to(Device);
    Tensor B = X.to(torch::kCUDA);
    Tensor C = X.to(torch::kFloat);
    Tensor D = X.cuda();
    // The iteration's one copy whose data the host reads is needed.
    float *P = X.cpu().data_ptr<float>();
    (void)A, (void)B, (void)C, (void)D, (void)P;
  }
}

void negativeLibTorchInternals(const std::vector<Tensor> &Values) {
  // at::sumOfItems loops over item() inside LibTorch: not reported.
  float S = at::sumOfItems(Values);
  (void)S;
}

// A model whose forward() loops over its layers: that loop is one forward
// pass, so the training loop that calls it is no epoch loop, and its
// per-step read is reported.
struct LayeredNet : torch::nn::Module {
  std::vector<torch::nn::Linear> Layers;
  Tensor forward(Tensor X) {
    for (auto &Layer : Layers)
      X = Layer->forward(X);
    return X;
  }
};

void trainLayered(LayeredNet &Net, const std::vector<Tensor> &Batches,
                  torch::optim::SGD &Optimizer) {
  float Total = 0;
  for (const auto &X : Batches) {
    Tensor Loss = Net.forward(X).sum();
    Loss.backward();
    Optimizer.step();
    Total += Loss.cpu().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  }
  std::printf("%f\n", Total);
}

// A module that trains itself: its inner loop steps the optimizer, so the
// loop around it runs once per epoch.
struct SelfTraining : torch::nn::Module {
  torch::nn::Linear Head{nullptr};
  void fit(const std::vector<Tensor> &Batches, torch::optim::SGD &Optimizer,
           int Epochs) {
    for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
      Tensor EpochLoss = torch::zeros({});
      for (const auto &X : Batches) {
        Tensor Loss = Head->forward(X).sum();
        Loss.backward();
        Optimizer.step();
        EpochLoss = EpochLoss + Loss.detach();
      }
      std::printf("epoch %d loss %f\n", Epoch, EpochLoss.item<float>());
    }
  }
};

// Per-sample forwards in an inner loop, then one optimizer step per batch:
// the outer loop steps itself, so it runs per step, not per epoch.
void trainPerSample(torch::nn::Linear &Model,
                    const std::vector<std::vector<Tensor>> &Batches,
                    torch::optim::SGD &Optimizer) {
  double Total = 0;
  for (const auto &Batch : Batches) {
    Tensor Loss = torch::zeros({});
    for (const auto &X : Batch)
      Loss = Loss + Model->forward(X).sum();
    Optimizer.zero_grad();
    Loss.backward();
    Optimizer.step();
    Total += Loss.item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  }
  std::printf("%f\n", Total);
}

// A parameter every call in this file passes a host tensor is on the CPU:
// its reads wait for nothing.
int countPresentOnHost(const Tensor &Gt, int Classes) {
  int N = 0;
  for (int C = 0; C < Classes; ++C)
    N += Gt.gt(C).sum().item<float>() > 0 ? 1 : 0;
  return N;
}

// One call passes a device tensor: reported.
int countPresentAnywhere(const Tensor &Gt, int Classes) {
  int N = 0;
  for (int C = 0; C < Classes; ++C)
    N += Gt.gt(C).sum().item<float>() > 0 ? 1 : 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'item()' synchronizes the host with the device per iteration of the loop; {{.*}} [torch-host-sync-in-loop]
  return N;
}

// Reassigned in the body: the arguments do not tell.
int countPresentMoved(Tensor Gt, int Classes) {
  Gt = Gt.to(torch::kCUDA);
  int N = 0;
  for (int C = 0; C < Classes; ++C)
    N += Gt.gt(C).sum().item<float>() > 0 ? 1 : 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'item()' synchronizes the host with the device per iteration of the loop; {{.*}} [torch-host-sync-in-loop]
  return N;
}

int presenceOfTargets(const Tensor &Targets) {
  return countPresentOnHost(Targets.cpu(), 4) +
         countPresentOnHost(Targets.squeeze().to(torch::kCPU), 4) +
         countPresentAnywhere(Targets.cpu(), 4) +
         countPresentAnywhere(Targets, 4) +
         countPresentMoved(Targets.cpu(), 4);
}
