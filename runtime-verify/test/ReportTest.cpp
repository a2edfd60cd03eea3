//===--- ReportTest.cpp - libtorch-tidy-verify ----------------------------===//
//
// Unit tests of the report writers on hand-made reports: what a user sees in
// the console table and the HTML page, the atomic write, and the verdicts
// merged into findings files and SARIF logs.
//
//===----------------------------------------------------------------------===//

#include "../Report.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

using namespace torchtidy;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

int Failures = 0;

#define CHECK(Cond)                                                            \
  do {                                                                         \
    if (!(Cond)) {                                                             \
      std::printf("FAIL line %d: %s\n", __LINE__, #Cond);                      \
      ++Failures;                                                              \
    }                                                                          \
  } while (false)

#define CHECK_EQ(Got, Want)                                                    \
  do {                                                                         \
    std::string G = (Got), W = (Want);                                         \
    if (G != W) {                                                              \
      std::printf("FAIL line %d: %s\n  got:  %s\n  want: %s\n", __LINE__,      \
                  #Got, G.c_str(), W.c_str());                                 \
      ++Failures;                                                              \
    }                                                                          \
  } while (false)

size_t count(const std::string &Haystack, const std::string &Needle) {
  size_t N = 0;
  for (size_t At = Haystack.find(Needle); At != std::string::npos;
       At = Haystack.find(Needle, At + 1))
    ++N;
  return N;
}

bool contains(const std::string &Haystack, const std::string &Needle) {
  return Haystack.find(Needle) != std::string::npos;
}

const char *const OddFile = "/abs/a<b&\"c\".cpp";

/// Four results: measured and faster, not-applicable, not-verifiable (in a
/// file with HTML-special characters), measured and changes-results.
json sampleReport() {
  json Faster = {{"index", 0},
                 {"check", "torch-debug-api-enabled"},
                 {"file", "/abs/train.cpp"},
                 {"line", 117},
                 {"column", 3},
                 {"message", "anomaly detection stays on"},
                 {"verdict", "faster"},
                 {"kind", "reference"},
                 {"reason", "anomaly mode on vs off in the reference step"},
                 {"speedup", {{"point", 12.2}, {"low", 11.8}, {"high", 12.5}}},
                 {"p_value", 6.8e-08},
                 {"before_us", {{"median", 98.6}, {"iqr", 3.1}}},
                 {"after_us", {{"median", 8.08}, {"iqr", 0.2}}},
                 {"samples", 20},
                 {"stop", "noise"}};
  json NotApplicable = {{"index", 1},
                        {"check", "torch-host-sync-in-loop"},
                        {"file", "/abs/src/loop.cpp"},
                        {"line", 40},
                        {"column", 5},
                        {"message", "item() in a loop"},
                        {"verdict", "not-applicable"},
                        {"reason", "no CUDA device: nothing to overlap"}};
  json NotVerifiable = {{"index", 2},
                        {"check", "torch-zero-grad"},
                        {"file", OddFile},
                        {"line", 9},
                        {"message", "zero_grad fills"},
                        {"verdict", "not-verifiable"},
                        {"failure", "compile-error"},
                        {"reason", "the snippet needs <model> & more"}};
  json Changes = {{"index", 3},
                  {"check", "torch-conv-bias"},
                  {"file", "/abs/net.cpp"},
                  {"line", 55},
                  {"verdict", "changes-results"},
                  {"kind", "snippet"},
                  {"reason", "the outputs differ"},
                  {"speedup", {{"point", 1.234}, {"low", 1.1}, {"high", 1.4}}},
                  {"difference",
                   {{"max_abs", 0.32},
                    {"max_rel", 0.1},
                    {"compared", {"x"}},
                    {"equal", false}}}};
  return {{"format", "libtorch-tidy-verify-report"},
          {"version", 1},
          {"environment",
           {{"device", "cuda"},
            {"device_name", "NVIDIA H200"},
            {"cuda", "12.4"},
            {"libtorch", "1.13.0"},
            {"threads", 2},
            {"date", "2026-11-21"}}},
          {"results", {Faster, NotApplicable, NotVerifiable, Changes}}};
}

void testTable() {
  std::string Table = renderTable(sampleReport());
  CHECK_EQ(Table, "check                    location       verdict          "
                  "speedup (95% CI) / reason\n"
                  "torch-debug-api-enabled  train.cpp:117  faster           "
                  "12.20x (11.80 .. 12.50), reference\n"
                  "torch-host-sync-in-loop  loop.cpp:40    not-applicable   "
                  "no CUDA device: nothing to overlap\n"
                  "torch-zero-grad          a<b&\"c\".cpp:9  not-verifiable   "
                  "the snippet needs <model> & more\n"
                  "torch-conv-bias          net.cpp:55     changes-results  "
                  "1.23x (1.10 .. 1.40), snippet; outputs differ by 3.2e-01\n"
                  "4 findings: 1 faster, 1 changes-results, 1 not-applicable, "
                  "1 not-verifiable\n");

  // One result, a multi-line reason kept on its row; no results at all.
  json One = {{"format", "libtorch-tidy-verify-report"},
              {"version", 1},
              {"results",
               {{{"check", "torch-x"},
                 {"line", 3},
                 {"verdict", "same"},
                 {"reason", "first\nsecond"}}}}};
  CHECK_EQ(renderTable(One), "check    location  verdict  "
                             "speedup (95% CI) / reason\n"
                             "torch-x  line 3    same     first second\n"
                             "1 finding: 1 same\n");
  CHECK_EQ(renderTable(json::object()), "0 findings\n");
}

void testHtml() {
  std::string Html = renderHtml(sampleReport());
  CHECK(Html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(Html, "<title>libtorch-tidy-verify report</title>"));
  CHECK(count(Html, "<svg") == 1);
  // One dot per result with a speedup, coloured by verdict.
  CHECK(count(Html, "class=\"speedup-dot") == 2);
  CHECK(contains(Html, "class=\"speedup-dot verdict-faster\""));
  CHECK(contains(Html, "class=\"speedup-dot verdict-changes-results\""));
  CHECK(contains(Html, "class=\"no-change\""));
  CHECK(contains(Html, ">no change</text>"));
  CHECK(contains(Html, "class=\"same-zone\""));
  // Ticks cover 1 and 12.5.
  for (const char *Tick : {">0.5x<", ">1x<", ">2x<", ">5x<", ">10x<", ">20x<"})
    CHECK(contains(Html, Tick));
  // The file name only escaped, everywhere it appears.
  CHECK(!contains(Html, "a<b"));
  CHECK(!contains(Html, "\"c\""));
  CHECK(contains(Html, "a&lt;b&amp;&quot;c&quot;.cpp:9"));
  CHECK(contains(Html, "the snippet needs &lt;model&gt; &amp; more"));
  CHECK(contains(Html, "compile-error"));
  // Self-contained.
  CHECK(!contains(Html, "<script"));
  CHECK(!contains(Html, "http://"));
  CHECK(!contains(Html, "https://"));
  CHECK(!contains(Html, "url("));
  // The environment and every result's reason.
  for (const char *Value : {"NVIDIA H200", "12.4", "1.13.0", "2026-11-21"})
    CHECK(contains(Html, std::string("<td>") + Value + "</td>"));
  CHECK(contains(Html, "<tr><th>threads</th><td>2</td></tr>"));
  CHECK(count(Html, "class=\"result-row\"") == 4);
  CHECK(contains(Html, "no CUDA device: nothing to overlap"));
  CHECK(contains(Html, "12.20x (11.80 .. 12.50)"));
  CHECK(contains(Html, "6.8e-08"));
  CHECK(contains(Html, "98.6 \u00b5s"));
  CHECK(contains(Html, "max abs 3.2e-01"));
  CHECK(contains(Html, "4 findings: 1 faster, 1 changes-results, "
                       "1 not-applicable, 1 not-verifiable"));

  // Nothing measured: the chart says so instead.
  json Report = sampleReport();
  for (json &R : Report["results"])
    R.erase("speedup");
  std::string Plain = renderHtml(Report);
  CHECK(!contains(Plain, "<svg"));
  CHECK(count(Plain, "speedup-dot") == 0);
  CHECK(contains(Plain, "No result has a measured speedup"));

  // Slower and far out: the axis reaches below 1 with 1-2-5 ticks.
  json Slow = {
      {"format", "libtorch-tidy-verify-report"},
      {"version", 1},
      {"results",
       {{{"check", "torch-x"},
         {"file", "f.cpp"},
         {"line", 1},
         {"verdict", "slower"},
         {"speedup", {{"point", 0.03}, {"low", 0.025}, {"high", 0.04}}}}}}};
  std::string SlowHtml = renderHtml(Slow);
  CHECK(contains(SlowHtml, "class=\"speedup-dot verdict-slower\""));
  CHECK(contains(SlowHtml, ">0.02x<"));
  CHECK(contains(SlowHtml, ">1x<"));
  CHECK(contains(SlowHtml, ">2x<"));
  CHECK(!contains(SlowHtml, ">5x<"));

  // Garbage in, a page out.
  CHECK(contains(renderHtml(json::array()), "</html>"));
}

std::string slurp(const fs::path &P) {
  std::ifstream In(P);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

size_t entries(const fs::path &Dir) {
  size_t N = 0;
  for (auto It = fs::directory_iterator(Dir); It != fs::directory_iterator();
       ++It)
    ++N;
  return N;
}

void testWrite() {
  fs::path Dir = fs::temp_directory_path() /
                 ("report-test-" + std::to_string(std::random_device()()));
  fs::create_directories(Dir);
  std::string Error;

  std::string Out = (Dir / "report.html").string();
  CHECK(writeFileAtomically(Out, "first", Error));
  CHECK_EQ(slurp(Out), "first");
  CHECK(writeFileAtomically(Out, "second, longer", Error));
  CHECK_EQ(slurp(Out), "second, longer");
  CHECK(entries(Dir) == 1);

  std::string Missing = (Dir / "missing" / "report.html").string();
  CHECK(!writeFileAtomically(Missing, "x", Error));
  CHECK_EQ(Error, "cannot write '" + Missing + "': No such file or directory");
  CHECK(entries(Dir) == 1);

  // The temporary file is made, but the rename fails: it is removed.
  fs::create_directory(Dir / "taken");
  std::string Taken = (Dir / "taken").string();
  CHECK(!writeFileAtomically(Taken, "x", Error));
  CHECK(Error.rfind("cannot write '" + Taken + "': ", 0) == 0);
  CHECK(entries(Dir) == 2);
  CHECK(fs::is_directory(Dir / "taken"));

  fs::remove_all(Dir);
}

json findingsDoc() {
  auto Finding = [](const char *Check, const char *File, int Line) {
    return json{{"check", Check}, {"level", "warning"},
                {"file", File},   {"line", Line},
                {"message", "m"}, {"fixits", json::array()}};
  };
  return {{"format", "libtorch-tidy-findings"},
          {"version", 1},
          {"findings",
           {Finding("torch-debug-api-enabled", "/abs/train.cpp", 117),
            Finding("torch-host-sync-in-loop", "/abs/src/loop.cpp", 40),
            Finding("torch-zero-grad", OddFile, 9),
            Finding("torch-conv-bias", "/abs/net.cpp", 55)}}};
}

void testMergeFindings() {
  json Doc = findingsDoc();
  std::string Error;
  CHECK(mergeVerdicts(sampleReport(), Doc, Error));
  CHECK_EQ(Error, "");
  const json &F = Doc["findings"];
  CHECK(F[0]["verification"] ==
        (json{{"verdict", "faster"},
              {"kind", "reference"},
              {"reason", "anomaly mode on vs off in the reference step"},
              {"speedup", {{"point", 12.2}, {"low", 11.8}, {"high", 12.5}}},
              {"p_value", 6.8e-08}}));
  CHECK(F[1]["verification"] ==
        (json{{"verdict", "not-applicable"},
              {"reason", "no CUDA device: nothing to overlap"}}));
  CHECK(F[2]["verification"]["failure"] == "compile-error");
  CHECK(F[3]["verification"]["difference"]["max_abs"] == 0.32);
  CHECK(F[0]["check"] == "torch-debug-api-enabled"); // the rest is kept

  // Twice is once.
  json Twice = Doc;
  CHECK(mergeVerdicts(sampleReport(), Twice, Error));
  CHECK(Twice == Doc);

  // A result that is not that finding: an error, and nothing written.
  json Fresh = findingsDoc();
  json Wrong = sampleReport();
  Wrong["results"][1]["line"] = 41;
  CHECK(!mergeVerdicts(Wrong, Fresh, Error));
  CHECK_EQ(Error, "result 1 (torch-host-sync-in-loop at /abs/src/loop.cpp:41) "
                  "does not match finding 1 of the findings file");
  CHECK(Fresh == findingsDoc());
  Wrong = sampleReport();
  Wrong["results"][0]["file"] = "/elsewhere/train.cpp";
  CHECK(!mergeVerdicts(Wrong, Fresh, Error));
  CHECK(contains(Error, "does not match finding 0"));

  json Far = sampleReport();
  Far["results"][3]["index"] = 7;
  CHECK(!mergeVerdicts(Far, Fresh, Error));
  CHECK_EQ(Error, "result 7 (torch-conv-bias at /abs/net.cpp:55) refers to "
                  "finding 7, but the findings file has 4 findings");
  CHECK(Fresh == findingsDoc());

  // Neither a findings file nor SARIF.
  json Other = {{"format", "something-else"}, {"runs", json::array()}};
  CHECK(!mergeVerdicts(sampleReport(), Other, Error));
  CHECK_EQ(Error, "the target is neither a libtorch-tidy findings file nor a "
                  "SARIF 2.1.0 log");
  json NotReport = json::object();
  CHECK(!mergeVerdicts(NotReport, Fresh, Error));
  CHECK_EQ(Error, "the report is not a libtorch-tidy-verify report");
}

json sarifResult(const char *Rule, const std::string &Uri, int Line) {
  return {{"ruleId", Rule},
          {"level", "warning"},
          {"message", {{"text", "m"}}},
          {"locations",
           {{{"physicalLocation",
              {{"artifactLocation", {{"uri", Uri}}},
               {"region", {{"startLine", Line}, {"startColumn", 3}}}}}}}}};
}

json sarifDoc() {
  json Results = {
      // 0: absolute file URI.
      sarifResult("torch-debug-api-enabled", "file:///abs/train.cpp", 117),
      // 1: same check and file, another line.
      sarifResult("torch-debug-api-enabled", "file:///abs/train.cpp", 118),
      // 2: relative URI, with properties of its own.
      sarifResult("torch-host-sync-in-loop", "src/loop.cpp", 40),
      // 3: another check on that line.
      sarifResult("clang-diagnostic-unused", "src/loop.cpp", 40),
      // 4: a percent-encoded file URI.
      sarifResult("torch-zero-grad", "file:///abs/a%3Cb%26%22c%22.cpp", 9),
      // 5: the plain path.
      sarifResult("torch-conv-bias", "/abs/net.cpp", 55)};
  Results[2]["properties"] = {{"tags", {"performance"}}};
  return {{"version", "2.1.0"},
          {"runs",
           {{{"tool", {{"driver", {{"name", "clang-tidy"}}}}},
             {"results", Results}}}}};
}

void testMergeSarif() {
  json Log = sarifDoc();
  std::string Error;
  CHECK(mergeVerdicts(sampleReport(), Log, Error));
  const json &R = Log["runs"][0]["results"];
  const char *Key = "libtorch-tidy/verification";
  CHECK(R[0]["properties"][Key]["verdict"] == "faster");
  CHECK(R[0]["properties"][Key]["speedup"]["point"] == 12.2);
  CHECK(!R[1].contains("properties"));
  CHECK(R[2]["properties"][Key]["verdict"] == "not-applicable");
  CHECK(R[2]["properties"]["tags"][0] == "performance");
  CHECK(!R[3].contains("properties"));
  CHECK(R[4]["properties"][Key]["verdict"] == "not-verifiable");
  CHECK(R[5]["properties"][Key]["verdict"] == "changes-results");

  json Twice = Log;
  CHECK(mergeVerdicts(sampleReport(), Twice, Error));
  CHECK(Twice == Log);

  // A result the log does not have: an error naming it, nothing written.
  json Fresh = sarifDoc();
  json Extra = sampleReport();
  Extra["results"].push_back({{"index", 4},
                              {"check", "torch-x"},
                              {"file", "/abs/other.cpp"},
                              {"line", 3},
                              {"verdict", "not-verifiable"},
                              {"reason", "r"}});
  CHECK(!mergeVerdicts(Extra, Fresh, Error));
  CHECK_EQ(Error, "result 4 (torch-x at /abs/other.cpp:3) matches no result "
                  "of the SARIF log");
  CHECK(Fresh == sarifDoc());

  // Two findings of one check on one line go to two SARIF results.
  json Pair = sarifDoc();
  Pair["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]
      ["startLine"] = 117;
  json Report = sampleReport();
  Report["results"] = {Report["results"][0], Report["results"][0]};
  Report["results"][1]["index"] = 1;
  Report["results"][1]["verdict"] = "same";
  CHECK(mergeVerdicts(Report, Pair, Error));
  CHECK(Pair["runs"][0]["results"][0]["properties"][Key]["verdict"] ==
        "faster");
  CHECK(Pair["runs"][0]["results"][1]["properties"][Key]["verdict"] == "same");
}

} // namespace

int main() {
  testTable();
  testHtml();
  testWrite();
  testMergeFindings();
  testMergeSarif();
  if (Failures) {
    std::printf("%d failure(s)\n", Failures);
    return 1;
  }
  std::printf("all report tests passed\n");
  return 0;
}
