// A project header with a device of its own, included before main().
inline torch::Device debugDevice() {
  torch::Device Debug("cuda:1");
  return Debug;
}
