#pragma once
#include <string>
#include <utility>

namespace torch {
namespace serialize {
class InputArchive {
public:
  void load_from(const std::string &filename);
};
class OutputArchive {
public:
  void save_to(const std::string &filename);
};
} // namespace serialize

template <typename Value, typename... SaveToArgs>
void save(const Value &value, SaveToArgs &&...args);
template <typename Value, typename... LoadFromArgs>
void load(Value &value, LoadFromArgs &&...args);
} // namespace torch
