// A program without CMake or LibTorch for --build-command: wasted work
// before a result that does not depend on it, and its time in ms.
#include <chrono>
#include <cstdio>

int main() {
  auto Start = std::chrono::steady_clock::now();
  for (volatile long I = 0; I < 40000000; I = I + 1) {
  }
  long Sum = 0;
  for (long I = 0; I < 1000; ++I)
    Sum += I;
  double Ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - Start)
                  .count();
  std::printf("result %ld\nelapsed %.3f ms\n", Sum, Ms);
  return 0;
}
