// Syncs the program needs: a value that decides leaving the loop, the one
// copy per iteration whose data host code reads, and reads after a
// deliberate timing synchronize.
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using torch::Tensor;

Tensor computeLoss(const Tensor &X);
Tensor policy(const Tensor &State);

struct Env {
  Tensor step(const int64_t *Actions);
  Tensor observe();
};

struct Vocab {
  std::string word(int64_t Id) const;
  int64_t eos() const;
};
Tensor decode(const Tensor &Ids);
std::vector<std::string> decodeBatch(const Tensor &Ids);
float smooth(float Value);

// ---- Leaving the loop ------------------------------------------------------

void negativeExits(const std::vector<Tensor> &Batches, float Limit) {
  for (const auto &X : Batches) {
    Tensor KL = computeLoss(X);
    if (KL.item<float>() > Limit)
      break;
    float Loss = computeLoss(X).item<float>();
    if (Loss > 100.0f)
      throw std::runtime_error("diverged");
    if (computeLoss(X).is_nonzero())
      return;
  }
  Tensor Loss = computeLoss(Batches[0]);
  while (Loss.item<float>() > 1e-3f)
    Loss = computeLoss(Loss);
  do {
    Loss = computeLoss(Loss);
  } while (Loss.item<float>() > 1e-3f);
}

void negativeGoto(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches)
    if (computeLoss(X).item<float>() < 0)
      goto done;
done:
  return;
}

void positiveConditionThatStaysInTheLoop(const std::vector<Tensor> &Batches,
                                         float &Best) {
  for (const auto &X : Batches) {
    float Loss = computeLoss(X).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'item()' synchronizes the host with the device per iteration of the loop; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
    if (Loss < Best)
      Best = Loss;
  }
}

// ---- A count that decides leaving the loop ---------------------------------

// A hand-written NMS: how many rows nonzero (or masked_select) keeps decides
// when the loop ends. The host needs the count, whatever form computes it.
void negativeCountEndsTheLoop(Tensor Order, const Tensor &Boxes) {
  while (Order.size(0) > 0) {
    Tensor Ious = computeLoss(Boxes.index_select(0, Order));
    Order = Order.index_select(0, (Ious < 0.5).nonzero());
  }
  Tensor Left = Order;
  for (int Round = 0; Round < 10; ++Round) {
    Left = Left.masked_select(computeLoss(Left) > 0.5);
    if (Left.numel() == 0)
      break;
  }
}

// A count that only skips the rest of an iteration, or that another loop
// tests, does not decide leaving this one.
void positiveCountThatStaysInTheLoop(const std::vector<Tensor> &Batches) {
  Tensor Rest;
  for (const auto &X : Batches) {
    Tensor Kept = X.masked_select(X > 0.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'masked_select()' synchronizes the host with the device per iteration of the loop; its output size depends on the data
    if (Kept.numel() == 0)
      continue;
    Rest = computeLoss(Kept).nonzero();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'nonzero()' synchronizes the host with the device per iteration of the loop; its output size depends on the data
  }
  while (Rest.numel() > 0)
    Rest = computeLoss(Rest);
}

// ---- One host copy per iteration -------------------------------------------

void negativeOneCopyForTheHost(Env &E, int Steps) {
  Tensor State = E.observe();
  for (int I = 0; I < Steps; ++I) {
    auto Actions = policy(State).cpu();
    State = E.step(Actions.data_ptr<int64_t>());
  }
}

void negativeOneCopyWrittenOut(const std::vector<Tensor> &Batches,
                               std::ofstream &Out) {
  for (const auto &X : Batches) {
    Tensor Pred = computeLoss(X).to(torch::kCPU);
    Out << Pred;
  }
}

// A second copy right after the first waits only for the ops between them.
void negativeTwoCopiesOfOneResult(Env &E, int Steps) {
  Tensor State = E.observe();
  for (int I = 0; I < Steps; ++I) {
    Tensor Out = policy(State);
    auto Actions = Out.cpu();
    auto Values = Out.sum().cpu();
    State = E.step(Actions.data_ptr<int64_t>());
    std::cout << Values.data_ptr<float>()[0] << "\n";
  }
}

// A forward pass between two copies: the second waits for it, where one
// copy after both would wait once.
void positiveTwoCopiesAroundAForward(Env &E, torch::nn::Linear &Critic,
                                     int Steps) {
  Tensor State = E.observe();
  for (int I = 0; I < Steps; ++I) {
    Tensor Out = policy(State);
    auto Actions = Out.cpu();
    auto Values = Critic(Out).sum().cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop; this iteration already copies a tensor to the CPU: concatenate both on the device and copy them in one transfer [torch-host-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-3]]:24: note: the iteration's first copy to the CPU is here; one copy of both needs one synchronization
    State = E.step(Actions.data_ptr<int64_t>());
    std::cout << Values.data_ptr<float>()[0] << "\n";
  }
}

void readBoth(const Tensor &Out, torch::nn::Linear &Critic,
              std::vector<float> &P, std::vector<float> &V) {
  Tensor Probs = Out.detach().cpu();
  Tensor Values = Critic->forward(Out).sum().cpu();
  P.assign(Probs.data_ptr<float>(), Probs.data_ptr<float>() + Probs.numel());
  V.assign(Values.data_ptr<float>(), Values.data_ptr<float>() + 1);
}

void positiveTwoCopiesInACalledFunction(const std::vector<Tensor> &Batches,
                                        torch::nn::Linear &Critic,
                                        std::vector<float> &P,
                                        std::vector<float> &V) {
  for (const auto &X : Batches)
    readBoth(policy(X), Critic, P, V);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: call to 'readBoth' synchronizes the host with the device per iteration of the loop: copying a tensor to the CPU; this iteration already copies a tensor to the CPU: concatenate both on the device and copy them in one transfer [torch-host-sync-in-loop]
  // CHECK-MESSAGES: :[[@LINE-12]]:46: note: copying a tensor to the CPU synchronizes here
  // CHECK-MESSAGES: :[[@LINE-14]]:31: note: the iteration's first copy to the CPU is here; one copy of both needs one synchronization
}

void readOne(const Tensor &Out, std::vector<float> &P) {
  Tensor Probs = Out.detach().cpu();
  P.assign(Probs.data_ptr<float>(), Probs.data_ptr<float>() + Probs.numel());
}

void negativeOneCopyInACalledFunction(const std::vector<Tensor> &Batches,
                                      std::vector<float> &P) {
  for (const auto &X : Batches)
    readOne(policy(X), P);
}

void negativeCopyHereAndInACalledFunction(Env &E, std::vector<float> &P,
                                           int Steps) {
  Tensor State = E.observe();
  for (int I = 0; I < Steps; ++I) {
    Tensor Out = policy(State);
    auto Actions = Out.argmax(1).cpu();
    readOne(Out, P);
    State = E.step(Actions.data_ptr<int64_t>());
  }
}

void positiveCopyHereAndInACalledFunction(Env &E, torch::nn::Linear &Critic,
                                          std::vector<float> &P, int Steps) {
  Tensor State = E.observe();
  for (int I = 0; I < Steps; ++I) {
    Tensor Out = policy(State);
    auto Actions = Out.argmax(1).cpu();
    readOne(Critic(Out), P);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: call to 'readOne' synchronizes {{.*}}; this iteration already copies a tensor to the CPU: concatenate both on the device and copy them in one transfer [torch-host-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-29]]:31: note: copying a tensor to the CPU synchronizes here
    // CHECK-MESSAGES: :[[@LINE-4]]:34: note: the iteration's first copy to the CPU is here; one copy of both needs one synchronization
    State = E.step(Actions.data_ptr<int64_t>());
  }
}

void positiveCopyThenItem(const std::vector<Tensor> &Batches, float &Total,
                          bool Flag) {
  for (const auto &X : Batches) {
    // The same sync as item() on the device tensor.
    Total += computeLoss(X).cpu().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: copying a tensor to the CPU synchronizes
    // A branch of its own is no condition.
    if (Flag)
      X.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop; keep the data on the device, or copy it once after the loop [torch-host-sync-in-loop]
  }
}

void positiveCopyNotReadOnTheHost(const std::vector<Tensor> &Batches,
                                  std::vector<Tensor> &Kept) {
  for (const auto &X : Batches) {
    Tensor Host = computeLoss(X).cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: copying a tensor to the CPU synchronizes
    Kept.push_back(Host);
  }
}

// ---- A latency benchmark ---------------------------------------------------

void negativeTimedIteration(const Tensor &X, int Steps) {
  for (int I = 0; I < Steps; ++I) {
    torch::cuda::synchronize();
    auto Start = std::chrono::steady_clock::now();
    Tensor Y = computeLoss(X);
    torch::cuda::synchronize();
    auto End = std::chrono::steady_clock::now();
    std::cout << Y.item<float>() << " "
              << std::chrono::duration<double>(End - Start).count() << "\n";
  }
}

void positiveUntimedSyncDoesNotExcuse(const Tensor &X, int Steps) {
  for (int I = 0; I < Steps; ++I) {
    Tensor Y = computeLoss(X);
    torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'torch::cuda::synchronize()' synchronizes
    std::cout << Y.item<float>() << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item()' synchronizes the host with the device per iteration of the loop; log it every N steps [torch-host-sync-in-loop]
  }
}

// ---- Generation: the token read back decides leaving the loop later, or
// ---- feeds host-only code ---------------------------------------------------

void negativeTokenInTheLoopCondition(const Vocab &V, Tensor Ids, int MaxLen) {
  int64_t Tok = 0;
  for (int I = 0; I < MaxLen && Tok != V.eos(); ++I) {
    Tok = decode(Ids).argmax(-1).item<int64_t>();
    Ids = decode(Ids);
  }
  int64_t Last = 0;
  while (Last != V.eos()) {
    Last = decode(Ids).argmax(-1).item<int64_t>();
    Ids = decode(Ids);
  }
}

void negativeWordInTheLoopCondition(const Vocab &V, Tensor Ids, int MaxLen,
                                    std::vector<std::string> &Text) {
  std::string Word;
  for (int I = 0; I < MaxLen && Word != "<eos>"; ++I) {
    int Next = decode(Ids).argmax(-1).item().toInt();
    Word = V.word(Next);
    Text.push_back(V.word(Next));
  }
}

void negativeLaterBreak(const Vocab &V, Tensor Ids, int MaxLen) {
  for (int I = 0; I < MaxLen; ++I) {
    std::string Word = V.word(decode(Ids).argmax(-1).item<int64_t>());
    Ids = decode(Ids);
    if (Word == "<eos>")
      break;
  }
}

void negativeSampledWordWrittenOut(const Vocab &V, Tensor Data, int Steps,
                                   std::ofstream &Out) {
  for (int I = 0; I < Steps; ++I) {
    auto Id = decode(Data).item();
    Data = decode(Data);
    auto Word = V.word(Id.toLong());
    Word = Word == "<eos>" ? "\n" : Word + " ";
    Out << Word;
  }
}

void negativeCopyDecodedOnTheHost(const std::vector<Tensor> &Batches,
                                  std::vector<std::string> &Captions) {
  for (const auto &X : Batches) {
    auto Words = decodeBatch(policy(X).cpu());
    Captions.push_back(Words[0]);
  }
}

// The second read waits only for the argmax between them.
void negativeTwoLookups(const Vocab &V, Tensor Data, int Steps,
                        std::ofstream &Out) {
  for (int I = 0; I < Steps; ++I) {
    Tensor Logits = decode(Data);
    Out << V.word(Logits.argmax(-1).item<int64_t>());
    Out << V.word(Logits.argmax(0).item<int64_t>());
  }
}

void positiveBoundOfAnInnerLoop(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches) {
    int64_t N = decode(X).item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item()' synchronizes the host with the device per iteration of the loop; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
    for (int64_t J = 0; J < N; ++J)
      policy(X);
  }
}

void positiveNumberThroughAHostFunction(const std::vector<Tensor> &Batches,
                                        float &Out) {
  float Total = 0;
  for (const auto &X : Batches)
    Total += smooth(computeLoss(X).item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
  Out = Total;
}

void positiveKeptByAStandardHelper(const std::vector<Tensor> &Batches,
                                   std::vector<std::pair<int, float>> &History) {
  int Step = 0;
  for (const auto &X : Batches)
    History.push_back(std::make_pair(Step++, computeLoss(X).item<float>()));
  // CHECK-MESSAGES: :[[@LINE-1]]:61: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
}

// ---- Generation: the token read back is the next step's input through a
// ---- host API (token ids), or decides the stop test through the host copy

struct Decoder {
  Tensor decodeStep(const std::vector<int64_t> &Ids);
  Tensor forward(const Tensor &Ids);
};

void negativeItemOfTheHostCopyDecidesTheStop(Decoder &D, Tensor Logits,
                                             const std::set<int64_t> &Stop,
                                             int MaxLen) {
  for (int I = 0; I < MaxLen; ++I) {
    auto Next = decode(Logits).to(torch::kCPU)[0].item<int64_t>();
    if (Stop.count(Next))
      break;
    Logits = decode(Logits);
  }
}

void negativeTokensFeedTheNextStep(Decoder &D, Tensor Logits, int MaxLen) {
  for (int I = 0; I < MaxLen; ++I) {
    auto Sampled = decode(Logits).to(torch::kCPU);
    std::vector<int64_t> NextTokens;
    for (int64_t S = 0; S < Sampled.size(0); ++S)
      NextTokens.push_back(Sampled[S].item<int64_t>());
    Logits = D.decodeStep(NextTokens);
  }
}

void negativeTokenFeedsTheNextStepDirectly(Decoder &D, Tensor Logits,
                                           int MaxLen) {
  for (int I = 0; I < MaxLen; ++I) {
    int64_t Tok = Logits.argmax(-1).item<int64_t>();
    Logits = D.decodeStep({Tok});
  }
}

void negativeTokensStoredByIndex(Decoder &D, Tensor Logits, int64_t Batch,
                                 int MaxLen) {
  for (int I = 0; I < MaxLen; ++I) {
    auto Host = decode(Logits).cpu();
    std::vector<int64_t> Next(Batch);
    for (int64_t B = 0; B < Batch; ++B)
      Next[B] = Host[B].item<int64_t>();
    Logits = D.decodeStep(Next);
  }
}

// Fed back through a tensor factory, the token could have stayed on the
// device: the round trip is avoidable.
void positiveTokenFedBackThroughAFactory(Decoder &D, Tensor Logits,
                                         int MaxLen) {
  for (int I = 0; I < MaxLen; ++I) {
    int64_t Tok = Logits.argmax(-1).item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'item()' synchronizes the host with the device per iteration of the loop; {{.*}} [torch-host-sync-in-loop]
    Logits = D.forward(torch::tensor({Tok}).cuda());
  }
}

// Collected, and decoded only after the loop: nothing in the iteration
// needs the value.
void positiveTokensDecodedAfterTheLoop(const Vocab &V, Decoder &D,
                                       Tensor Logits, int MaxLen,
                                       std::vector<std::string> &Text) {
  std::vector<int64_t> Generated;
  for (int I = 0; I < MaxLen; ++I) {
    Generated.push_back(Logits.argmax(-1).item<int64_t>());
    // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: 'item()' synchronizes the host with the device per iteration of the loop; {{.*}} [torch-host-sync-in-loop]
    Logits = D.forward(Logits);
  }
  for (int64_t Id : Generated)
    Text.push_back(V.word(Id));
}

// ---- One drain per iteration ----------------------------------------------
// An iteration whose predictions must reach host code waits for the whole
// queue at that copy; a sync with no device work between the two waits for
// what that copy waits for anyway.

float batchMetric(const std::vector<int> &Preds);

float negativeCountBeforeTheHostCopy(torch::nn::Linear &Model,
                                     const std::vector<Tensor> &Batches,
                                     bool Binary) {
  torch::NoGradGuard NoGrad;
  float Total = 0;
  std::vector<int> Preds;
  for (const auto &X : Batches) {
    Tensor Out = Model->forward(X);
    Tensor Pred;
    int Correct = 0;
    if (!Binary) {
      Pred = Out.argmax(1);
      Correct = Pred.eq(X).sum().item<int>();
    } else {
      Pred = Out.sigmoid().argmax(1);
      Correct = Pred.eq(X).sum().item<int>();
    }
    Tensor Host = Pred.to(torch::kCPU);
    Preds.clear();
    for (int64_t I = 0; I < Host.size(0); ++I)
      Preds.push_back(Host[I].item<int>());
    Total += batchMetric(Preds) + Correct;
    Total += computeLoss(Out).item<float>();
  }
  return Total;
}

float positiveWorkBetweenTheSyncAndTheCopy(torch::nn::Linear &Model,
                                           torch::nn::Linear &Head,
                                           const std::vector<Tensor> &Batches) {
  torch::NoGradGuard NoGrad;
  float Total = 0;
  std::vector<int> Preds;
  for (const auto &X : Batches) {
    Tensor Hidden = Model->forward(X);
    Total += Hidden.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
    Tensor Host = Head->forward(Hidden).argmax(1).cpu();
    Preds.assign(Host.data_ptr<int>(), Host.data_ptr<int>() + Host.numel());
    Total += batchMetric(Preds);
  }
  return Total;
}

float positiveCopyOnlyUnderACondition(torch::nn::Linear &Model,
                                      const std::vector<Tensor> &Batches,
                                      bool Keep) {
  torch::NoGradGuard NoGrad;
  float Total = 0;
  std::vector<int> Preds;
  for (const auto &X : Batches) {
    Tensor Out = Model->forward(X);
    Total += computeLoss(Out).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
    if (Keep) {
      Tensor Host = Out.argmax(1).cpu();
      Preds.assign(Host.data_ptr<int>(), Host.data_ptr<int>() + Host.numel());
      Total += batchMetric(Preds);
    }
  }
  return Total;
}

float positiveStepBetween(torch::nn::Linear &Model, torch::optim::SGD &Opt,
                          const std::vector<Tensor> &Batches) {
  float Total = 0;
  std::vector<int> Preds;
  for (const auto &X : Batches) {
    Opt.zero_grad();
    Tensor Out = Model->forward(X);
    Tensor Host = Out.argmax(1).cpu();
    Preds.assign(Host.data_ptr<int>(), Host.data_ptr<int>() + Host.numel());
    Tensor Loss = computeLoss(Out);
    Loss.backward();
    Opt.step();
    Total += Loss.item<float>() + batchMetric(Preds);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  }
  return Total;
}

// After the drain, an op whose output size depends on the data still runs
// on the device and makes the host wait for it before the next op: a round
// trip of its own per iteration.
float positiveDataDependentAfterTheHostCopy(torch::nn::Linear &Model,
                                            const std::vector<Tensor> &Batches) {
  torch::NoGradGuard NoGrad;
  float Total = 0;
  std::vector<int> Preds;
  for (const auto &X : Batches) {
    Tensor Out = Model->forward(X);
    Tensor Host = Out.argmax(1).cpu();
    Preds.assign(Host.data_ptr<int>(), Host.data_ptr<int>() + Host.numel());
    Tensor Kept = Out.masked_select(Out > 0.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'masked_select()' synchronizes the host with the device per iteration of the loop; its output size depends on the data
    Total += batchMetric(Preds) + static_cast<float>(Kept.numel());
  }
  return Total;
}

// In a training step each read after the drain stalls the step once more
// before its backward(): reported, unlike an evaluation's.
void positiveReadAfterTheStopTestInATrainingStep(
    torch::nn::Linear &Model, torch::optim::SGD &Opt,
    const std::vector<Tensor> &Batches, std::vector<float> &Clips) {
  for (const auto &X : Batches) {
    Tensor Out = Model->forward(X);
    float Kl = Out.mean().item<float>();
    if (Kl > 1.5F)
      break;
    Clips.push_back(Out.sigmoid().mean().item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
    Tensor Loss = computeLoss(Out);
    Opt.zero_grad();
    Loss.backward();
    Opt.step();
  }
}

// ---- Loops over devices ----------------------------------------------------

// One iteration per device (usually one): not a per-step loop, and values on
// different devices cannot travel in one copy.
double negativeSumPerDevice(
    const std::map<torch::DeviceType, Tensor> &FoundInfPerDevice) {
  double Sum = 0;
  for (const auto &[Dev, FoundInf] : FoundInfPerDevice)
    Sum += FoundInf.item<double>();
  for (const auto &Entry : FoundInfPerDevice)
    Sum += Entry.second.item<double>();
  return Sum;
}

float negativeLoopOverDevices(const std::vector<torch::Device> &Devices,
                              const Tensor &X) {
  float Sum = 0;
  for (const auto &D : Devices)
    Sum += X.to(D).sum().item<float>();
  return Sum;
}

double positiveLoopOverOtherKeys(const std::map<int, Tensor> &PerLayer) {
  double Sum = 0;
  for (const auto &[Layer, Norm] : PerLayer)
    Sum += Norm.item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  return Sum;
}

// This file runs on the GPU.
static const torch::Device Gpu(torch::kCUDA);
