//===--- FixitApplier.cpp - libtorch-tidy-verify --------------------------===//
//
// The model: per file, a sorted set of non-overlapping pieces (offset,
// length, text) of the original text, grown one edit at a time with the
// rules of clang's tooling::Replacements::add, then written out in offset
// order. Where clang merges two edits it composes edit sets (one relative
// to the text after the other); compose() below gives the same pieces, since
// later edits are checked against those pieces, not against the edits as
// given. Arithmetic on offsets is unsigned 32-bit, as clang's.
//
//===----------------------------------------------------------------------===//

#include "FixitApplier.h"
#include "AtomicWrite.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

namespace torchtidy {
namespace {

/// One edit of a file's text, in the offsets of the original text.
struct Piece {
  unsigned Offset = 0, Length = 0;
  std::string Text;

  unsigned end() const { return Offset + Length; }
  unsigned textSize() const { return static_cast<unsigned>(Text.size()); }
  /// clang's order: an insertion before a replacement at the same offset.
  bool operator<(const Piece &O) const {
    return std::tie(Offset, Length, Text) < std::tie(O.Offset, O.Length, O.Text);
  }
  bool operator==(const Piece &O) const {
    return std::tie(Offset, Length, Text) ==
           std::tie(O.Offset, O.Length, O.Text);
  }
};

using PieceSet = std::set<Piece>;

/// Why an edit could not join a file's pieces.
enum class AddResult { Added, InsertConflict, Overlap };

/// A substring that is empty, not an exception, past the end (StringRef's).
std::string clampedSubstr(const std::string &S, size_t From,
                          size_t Count = std::string::npos) {
  return From >= S.size() ? std::string() : S.substr(From, Count);
}

/// Whether two pieces overlap: an insertion overlaps a replacement only
/// strictly inside it, never at its ends.
bool overlaps(const Piece &A, const Piece &B) {
  return A.end() > B.Offset && A.Offset < B.end();
}

/// Where \p Pos of the original text lands after \p Set: after insertions
/// at \p Pos; inside a replacement, at its text's last byte at most.
unsigned shiftedPosition(const PieceSet &Set, unsigned Pos) {
  unsigned Shift = 0;
  for (const Piece &P : Set) {
    if (P.end() <= Pos) {
      Shift += P.textSize() - P.Length;
      continue;
    }
    if (P.Offset < Pos && P.Offset + P.textSize() <= Pos) {
      Pos = P.Offset + P.textSize();
      if (!P.Text.empty())
        --Pos;
    }
    break;
  }
  return Pos + Shift;
}

/// \p P moved to the text after \p Set.
Piece inChangedText(const PieceSet &Set, const Piece &P) {
  unsigned Start = shiftedPosition(Set, P.Offset);
  unsigned End = shiftedPosition(Set, P.end());
  return {Start, End - Start, P.Text};
}

/// One piece of a composition: edits of the first set (original offsets)
/// and of the second (offsets after the first) that overlap or touch,
/// joined left to right. Its text is the result of both; which set it takes
/// from next depends on whether its end lies in the first set's output.
class Run {
public:
  Run(const Piece &P, bool FromFirst, int Shift)
      : NextFromSecond(FromFirst), Shift(Shift),
        Offset(P.Offset + (FromFirst ? 0 : static_cast<unsigned>(Shift))),
        Length(P.Length), Text(P.Text) {
    int Growth = static_cast<int>(P.textSize() - P.Length);
    if (FromFirst)
      FirstGrowth = Growth;
    else
      this->Shift += Growth;
  }

  bool nextFromSecond() const { return NextFromSecond; }
  int firstGrowth() const { return FirstGrowth; }
  Piece piece() const { return {Offset, Length, Text}; }

  /// Whether \p P starts strictly after this run, so stays out of it.
  bool endsBefore(const Piece &P) const {
    if (NextFromSecond)
      return uint64_t(Offset) + Text.size() < secondToOriginal(P.Offset);
    return uint64_t(Offset) + Length < P.Offset;
  }

  void absorb(const Piece &P) {
    if (NextFromSecond)
      absorbSecond(P);
    else
      absorbFirst(P);
  }

private:
  bool NextFromSecond;
  int Shift;           ///< second set's offsets to the original text's
  int FirstGrowth = 0; ///< bytes the first set's edits in the run add
  unsigned Offset, Length;
  std::string Text;

  unsigned secondToOriginal(unsigned At) const {
    return At + static_cast<unsigned>(Shift);
  }

  /// An edit of the text this run's first-set edits produced.
  void absorbSecond(const Piece &P) {
    unsigned Start = secondToOriginal(P.Offset);
    unsigned PEnd = Start + P.Length;
    unsigned End = Offset + static_cast<unsigned>(Text.size());
    if (PEnd > End) {
      Length += PEnd - End;
      NextFromSecond = false;
    }
    Text = clampedSubstr(Text, 0, Start - Offset) + P.Text +
           clampedSubstr(Text, PEnd - Offset);
    Shift += static_cast<int>(P.textSize() - P.Length);
  }

  /// An edit of the original text that the run's second-set edits reach.
  void absorbFirst(const Piece &P) {
    unsigned End = Offset + Length;
    Text += clampedSubstr(P.Text, End - P.Offset);
    if (P.Offset + P.textSize() > End) {
      Length = P.end() - Offset;
      NextFromSecond = true;
    } else {
      Length += P.Length - P.textSize();
    }
    FirstGrowth += static_cast<int>(P.textSize() - P.Length);
  }
};

/// \p First, then \p Second (in the offsets of the text after \p First), as
/// one set in the original offsets: what clang's Replacements::merge gives.
PieceSet compose(const PieceSet &First, const PieceSet &Second) {
  if (First.empty() || Second.empty())
    return First.empty() ? Second : First;
  int Shift = 0;
  PieceSet Out;
  auto F = First.begin(), S = Second.begin();
  while (F != First.end() || S != Second.end()) {
    bool TakeFirst =
        S == Second.end() ||
        (F != First.end() &&
         F->Offset < S->Offset + static_cast<unsigned>(Shift));
    Run R(TakeFirst ? *F : *S, TakeFirst, Shift);
    ++(TakeFirst ? F : S);
    for (;;) {
      bool FromSecond = R.nextFromSecond();
      auto &It = FromSecond ? S : F;
      if (It == (FromSecond ? Second.end() : First.end()) || R.endsBefore(*It))
        break;
      R.absorb(*It);
      ++It;
    }
    Shift -= R.firstGrowth();
    Out.insert(R.piece());
  }
  return Out;
}

/// \p Set with touching pieces joined: two sets that give the same text
/// the same way compare equal in this form.
PieceSet canonical(const PieceSet &Set) {
  std::vector<Piece> Out;
  for (const Piece &P : Set) {
    if (Out.empty() || Out.back().end() < P.Offset) {
      Out.push_back(P);
      continue;
    }
    Piece &Last = Out.back();
    Last = {Last.Offset, Last.Length + P.Length, Last.Text + P.Text};
  }
  return PieceSet(Out.begin(), Out.end());
}

/// \p Group with \p P merged in, when applying \p P before or after the
/// group comes to the same (clang's mergeIfOrderIndependent); else none.
std::optional<PieceSet> mergeIfIndependent(const PieceSet &Group,
                                           const Piece &P) {
  PieceSet Alone{P};
  PieceSet PAfterGroup{inChangedText(Group, P)};
  PieceSet GroupAfterP;
  for (const Piece &G : Group)
    GroupAfterP.insert(inChangedText(Alone, G));
  PieceSet GroupThenP = compose(Group, PAfterGroup);
  if (canonical(GroupThenP) != canonical(compose(Alone, GroupAfterP)))
    return std::nullopt;
  return GroupThenP;
}

/// Adds \p P to \p Set as clang's Replacements::add does; \p Clash is the
/// piece it conflicts with, if any.
AddResult addPiece(PieceSet &Set, const Piece &P, Piece &Clash) {
  // clang keeps an offset of UINT_MAX (a negative one in the spec) aside.
  if (P.Offset == std::numeric_limits<unsigned>::max()) {
    Set.insert(P);
    return AddResult::Added;
  }
  auto I = Set.lower_bound(Piece{P.end(), 0, ""});
  if (I != Set.end() && P.Offset == I->Offset) {
    if (I->Length != 0) { // an insertion just before a replacement
      Set.insert(P);
      return AddResult::Added;
    }
    // Two insertions at one offset: joined when their order does not
    // matter, else the caller decides.
    if (P.Text + I->Text != I->Text + P.Text) {
      Clash = *I;
      return AddResult::InsertConflict;
    }
    Piece Joined{P.Offset, 0, P.Text + I->Text};
    Set.erase(I);
    Set.insert(Joined);
    return AddResult::Added;
  }
  if (I == Set.begin() || !overlaps(P, *std::prev(I))) {
    Set.insert(P);
    return AddResult::Added;
  }
  // The pieces before I that overlap P form one contiguous range.
  auto Last = I, First = std::prev(I);
  while (First != Set.begin() && overlaps(P, *std::prev(First)))
    --First;
  std::optional<PieceSet> Merged = mergeIfIndependent(PieceSet(First, Last), P);
  if (!Merged) {
    Clash = *First;
    return AddResult::Overlap;
  }
  Set.erase(First, Last);
  Set.insert(Merged->begin(), Merged->end());
  return AddResult::Added;
}

std::string describe(const Piece &P) {
  return "offset " + std::to_string(P.Offset) + " length " +
         std::to_string(P.Length);
}

/// Adds \p P as the driver does: an insertion where an earlier one inserts
/// goes after it (two checks that each insert a statement after the same
/// declaration), as clang-tidy's --fix resolves that conflict.
std::optional<Failure> addInOrder(PieceSet &Set, const Piece &P,
                                  const std::string &File) {
  Piece Clash;
  switch (addPiece(Set, P, Clash)) {
  case AddResult::Added:
    return std::nullopt;
  case AddResult::InsertConflict:
    Set = compose(Set, PieceSet{{shiftedPosition(Set, P.Offset), 0, P.Text}});
    return std::nullopt;
  case AddResult::Overlap:
    break;
  }
  return Failure{"the fix-its conflict in '" + File + "': the edit at " +
                 describe(P) + " overlaps the edit at " + describe(Clash)};
}

/// \p Base with \p Set's pieces, which neither overlap nor pass its end.
ErrorOr<std::string> applyPieces(const std::string &Base, const PieceSet &Set,
                                 const std::string &File) {
  std::string Out;
  uint64_t Pos = 0;
  for (const Piece &P : Set) {
    // The driver drops such an insertion and crashes on such a
    // replacement: the file is not the one the fix-its were made for.
    if (uint64_t(P.Offset) + P.Length > Base.size())
      return Failure{"the fix-it at " + describe(P) +
                     " is past the end of '" + File + "' (" +
                     std::to_string(Base.size()) + " bytes)"};
    if (P.Offset < Pos) // cannot happen: the set never overlaps
      return Failure{"the fix-its conflict in '" + File + "' at " +
                     describe(P)};
    Out.append(Base, Pos, P.Offset - Pos);
    Out += P.Text;
    Pos = uint64_t(P.Offset) + P.Length;
  }
  Out.append(Base, Pos, std::string::npos);
  return Out;
}

/// Each file's pieces after \p Edits in their order; the same edit twice
/// counts once.
ErrorOr<std::map<std::string, PieceSet>>
piecesByFile(const std::vector<FixitEdit> &Edits) {
  std::set<std::tuple<std::string, unsigned, unsigned, std::string>> Seen;
  std::map<std::string, PieceSet> ByFile;
  for (const FixitEdit &E : Edits) {
    if (!Seen.insert({E.File, E.Offset, E.Length, E.Text}).second)
      continue;
    if (std::optional<Failure> Error =
            addInOrder(ByFile[E.File], {E.Offset, E.Length, E.Text}, E.File))
      return *Error;
  }
  return ByFile;
}

std::optional<std::string> readBytes(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream S;
  S << In.rdbuf();
  if (In.bad())
    return std::nullopt;
  return S.str();
}

std::string cannotRead(const std::string &Path) {
  return "cannot read '" + Path + "': " + std::strerror(errno ? errno : EIO);
}

/// A number of the spec as the driver reads it: an integer (or a double
/// with no fraction) in int64's range, cut to 32 bits; else 0.
unsigned specNumber(const nlohmann::json &O, const char *Key) {
  auto It = O.find(Key);
  if (It == O.end())
    return 0;
  if (It->is_number_unsigned()) {
    uint64_t U = It->get<uint64_t>();
    return U > uint64_t(std::numeric_limits<int64_t>::max())
               ? 0
               : static_cast<unsigned>(U);
  }
  if (It->is_number_integer())
    return static_cast<unsigned>(It->get<int64_t>());
  if (!It->is_number_float())
    return 0;
  double D = It->get<double>(), Whole;
  if (std::modf(D, &Whole) != 0.0 ||
      !(D >= double(std::numeric_limits<int64_t>::min()) &&
        D <= double(std::numeric_limits<int64_t>::max())))
    return 0;
  return static_cast<unsigned>(static_cast<int64_t>(D));
}

std::string specString(const nlohmann::json &O, const char *Key) {
  auto It = O.find(Key);
  return It != O.end() && It->is_string() ? It->get<std::string>() : "";
}

/// The edits of the spec's list; entries that are no objects are skipped.
std::vector<FixitEdit> specEdits(const nlohmann::json &Doc) {
  std::vector<FixitEdit> Edits;
  auto List = Doc.find("edits");
  if (List == Doc.end() || !List->is_array())
    return Edits;
  for (const nlohmann::json &E : *List)
    if (E.is_object())
      Edits.push_back({specString(E, "file"), specNumber(E, "offset"),
                       specNumber(E, "length"),
                       specString(E, "replacement")});
  return Edits;
}

} // namespace

ErrorOr<std::string> applyEditsToText(const std::string &Base,
                                      const std::vector<FixitEdit> &Edits,
                                      const std::string &File) {
  std::vector<FixitEdit> Named = Edits;
  for (FixitEdit &E : Named)
    E.File = File;
  ErrorOr<std::map<std::string, PieceSet>> Pieces = piecesByFile(Named);
  if (!Pieces)
    return Failure{Pieces.error()};
  if (Pieces->empty())
    return Base;
  return applyPieces(Base, Pieces->begin()->second, File);
}

ErrorOr<std::map<std::string, FixedFile>>
fixedFiles(const std::vector<FixitEdit> &Edits) {
  // All conflicts first, then the files: the driver's order of errors.
  ErrorOr<std::map<std::string, PieceSet>> Pieces = piecesByFile(Edits);
  if (!Pieces)
    return Failure{Pieces.error()};
  std::map<std::string, FixedFile> Out;
  for (const auto &[File, Set] : *Pieces) {
    errno = 0;
    std::optional<std::string> Base = readBytes(File);
    if (!Base)
      return Failure{cannotRead(File)};
    ErrorOr<std::string> Fixed = applyPieces(*Base, Set, File);
    if (!Fixed)
      return Failure{"cannot apply the fix-its to '" + File +
                     "': " + Fixed.error()};
    Out[File] = {std::move(*Base), std::move(*Fixed)};
  }
  return Out;
}

std::optional<Failure> applyFixits(const std::vector<FixitEdit> &Edits) {
  ErrorOr<std::map<std::string, FixedFile>> Texts = fixedFiles(Edits);
  if (!Texts)
    return Failure{Texts.error()};
  // Every edited file is rewritten, changed or not, as the driver does.
  for (const auto &[File, Text] : *Texts)
    if (std::optional<Failure> Error = replaceFileAtomically(File, Text.Fixed))
      return Error;
  return std::nullopt;
}

ErrorOr<std::vector<FixitEdit>> readFixitSpec(const std::string &Path) {
  errno = 0;
  std::optional<std::string> Text = readBytes(Path);
  if (!Text)
    return Failure{cannotRead(Path)};
  nlohmann::json Doc =
      nlohmann::json::parse(*Text, nullptr, /*allow_exceptions=*/false);
  if (Doc.is_discarded())
    return Failure{"'" + Path + "' is not JSON"};
  if (!Doc.is_object() || specString(Doc, "format") != "libtorch-tidy-fixits")
    return Failure{"'" + Path + "' is not a libtorch-tidy-fixits file"};
  return specEdits(Doc);
}

int runApplyFixits(const std::string &Spec, std::ostream &Err) {
  ErrorOr<std::vector<FixitEdit>> Edits = readFixitSpec(Spec);
  if (!Edits) {
    Err << "error: --apply-fixits: " << Edits.error() << "\n";
    return 1;
  }
  if (std::optional<Failure> Error = applyFixits(*Edits)) {
    Err << "error: " << Error->Message << "\n";
    return 1;
  }
  return 0;
}

} // namespace torchtidy
