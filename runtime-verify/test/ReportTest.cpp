//===--- ReportTest.cpp - libtorch-tidy-verify ----------------------------===//
//
// Unit tests of the typed report and its writers on hand-made reports: what
// a user sees in the console table and the HTML page, the atomic write, the
// verdicts merged into findings files and SARIF logs, and reports read back.
//
//===----------------------------------------------------------------------===//

#include "../AtomicWrite.h"
#include "../Report.h"
#include "../Result.h"

#include <gtest/gtest.h>

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

/// \p J read as a report; \p J must be one.
VerifyReport typed(const json &J) {
  ErrorOr<VerifyReport> R = reportFromJson(J);
  EXPECT_TRUE(R) << R.error();
  return R ? *R : VerifyReport();
}

/// Merges \p Report into \p Target; the error, or "" with \p Target merged.
std::string merge(const json &Report, json &Target) {
  ErrorOr<json> Merged = mergeVerdicts(typed(Report), Target);
  if (!Merged)
    return Merged.error();
  Target = *Merged;
  return "";
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

} // namespace

TEST(ReportTest, Table) {
  std::string Table = renderTable(typed(sampleReport()));
  EXPECT_EQ(Table, "check                    location       verdict          "
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
  EXPECT_EQ(renderTable(typed(One)), "check    location  verdict  "
                             "speedup (95% CI) / reason\n"
                             "torch-x  line 3    same     first second\n"
                             "1 finding: 1 same\n");
  EXPECT_EQ(renderTable(VerifyReport()), "0 findings\n");
}

TEST(ReportTest, Html) {
  std::string Html = renderHtml(typed(sampleReport()));
  EXPECT_TRUE(Html.rfind("<!DOCTYPE html>", 0) == 0);
  EXPECT_TRUE(contains(Html, "<title>libtorch-tidy-verify report</title>"));
  EXPECT_TRUE(count(Html, "<svg") == 1);
  // One dot per result with a speedup, coloured by verdict.
  EXPECT_TRUE(count(Html, "class=\"speedup-dot") == 2);
  EXPECT_TRUE(contains(Html, "class=\"speedup-dot verdict-faster\""));
  EXPECT_TRUE(contains(Html, "class=\"speedup-dot verdict-changes-results\""));
  EXPECT_TRUE(contains(Html, "class=\"no-change\""));
  EXPECT_TRUE(contains(Html, ">no change</text>"));
  EXPECT_TRUE(contains(Html, "class=\"same-zone\""));
  // Ticks cover 1 and 12.5.
  for (const char *Tick : {">0.5x<", ">1x<", ">2x<", ">5x<", ">10x<", ">20x<"})
    EXPECT_TRUE(contains(Html, Tick));
  // The file name only escaped, everywhere it appears.
  EXPECT_TRUE(!contains(Html, "a<b"));
  EXPECT_TRUE(!contains(Html, "\"c\""));
  EXPECT_TRUE(contains(Html, "a&lt;b&amp;&quot;c&quot;.cpp:9"));
  EXPECT_TRUE(contains(Html, "the snippet needs &lt;model&gt; &amp; more"));
  EXPECT_TRUE(contains(Html, "compile-error"));
  // Self-contained.
  EXPECT_TRUE(!contains(Html, "<script"));
  EXPECT_TRUE(!contains(Html, "http://"));
  EXPECT_TRUE(!contains(Html, "https://"));
  EXPECT_TRUE(!contains(Html, "url("));
  // The environment and every result's reason.
  for (const char *Value : {"NVIDIA H200", "12.4", "1.13.0", "2026-11-21"})
    EXPECT_TRUE(contains(Html, std::string("<td>") + Value + "</td>"));
  EXPECT_TRUE(contains(Html, "<tr><th>threads</th><td>2</td></tr>"));
  EXPECT_TRUE(count(Html, "class=\"result-row\"") == 4);
  EXPECT_TRUE(contains(Html, "no CUDA device: nothing to overlap"));
  EXPECT_TRUE(contains(Html, "12.20x (11.80 .. 12.50)"));
  EXPECT_TRUE(contains(Html, "6.8e-08"));
  EXPECT_TRUE(contains(Html, "98.6 \u00b5s"));
  EXPECT_TRUE(contains(Html, "max abs 3.2e-01"));
  EXPECT_TRUE(contains(Html, "4 findings: 1 faster, 1 changes-results, "
                       "1 not-applicable, 1 not-verifiable"));

  // Nothing measured: the chart says so instead.
  json Report = sampleReport();
  for (json &R : Report["results"])
    R.erase("speedup");
  std::string Plain = renderHtml(typed(Report));
  EXPECT_TRUE(!contains(Plain, "<svg"));
  EXPECT_TRUE(count(Plain, "speedup-dot") == 0);
  EXPECT_TRUE(contains(Plain, "No result has a measured speedup"));

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
  std::string SlowHtml = renderHtml(typed(Slow));
  EXPECT_TRUE(contains(SlowHtml, "class=\"speedup-dot verdict-slower\""));
  EXPECT_TRUE(contains(SlowHtml, ">0.02x<"));
  EXPECT_TRUE(contains(SlowHtml, ">1x<"));
  EXPECT_TRUE(contains(SlowHtml, ">2x<"));
  EXPECT_TRUE(!contains(SlowHtml, ">5x<"));

  // Nothing in, a page out.
  EXPECT_TRUE(contains(renderHtml(VerifyReport()), "</html>"));
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

TEST(ReportTest, AtomicWrite) {
  fs::path Dir = fs::temp_directory_path() /
                 ("report-test-" + std::to_string(std::random_device()()));
  fs::create_directories(Dir);
  std::string Out = (Dir / "report.html").string();
  EXPECT_FALSE(writeFileAtomically(Out, "first"));
  EXPECT_EQ(slurp(Out), "first");
  EXPECT_FALSE(writeFileAtomically(Out, "second, longer"));
  EXPECT_EQ(slurp(Out), "second, longer");
  EXPECT_TRUE(entries(Dir) == 1);

  std::string Missing = (Dir / "missing" / "report.html").string();
  std::optional<Failure> Error = writeFileAtomically(Missing, "x");
  ASSERT_TRUE(Error);
  EXPECT_EQ(Error->Message,
            "cannot write '" + Missing + "': No such file or directory");
  EXPECT_TRUE(entries(Dir) == 1);

  // The temporary file is made, but the rename fails: it is removed.
  fs::create_directory(Dir / "taken");
  std::string Taken = (Dir / "taken").string();
  Error = writeFileAtomically(Taken, "x");
  ASSERT_TRUE(Error);
  EXPECT_EQ(Error->Message.rfind("cannot write '" + Taken + "': ", 0), 0u);
  EXPECT_TRUE(entries(Dir) == 2);
  EXPECT_TRUE(fs::is_directory(Dir / "taken"));

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

TEST(ReportTest, MergeIntoFindings) {
  json Doc = findingsDoc();
  EXPECT_EQ(merge(sampleReport(), Doc), "");
  const json &F = Doc["findings"];
  EXPECT_TRUE(F[0]["verification"] ==
        (json{{"verdict", "faster"},
              {"kind", "reference"},
              {"reason", "anomaly mode on vs off in the reference step"},
              {"speedup", {{"point", 12.2}, {"low", 11.8}, {"high", 12.5}}},
              {"p_value", 6.8e-08}}));
  EXPECT_TRUE(F[1]["verification"] ==
        (json{{"verdict", "not-applicable"},
              {"reason", "no CUDA device: nothing to overlap"}}));
  EXPECT_TRUE(F[2]["verification"]["failure"] == "compile-error");
  EXPECT_TRUE(F[3]["verification"]["difference"]["max_abs"] == 0.32);
  EXPECT_TRUE(F[0]["check"] == "torch-debug-api-enabled"); // the rest is kept

  // Twice is once.
  json Twice = Doc;
  EXPECT_EQ(merge(sampleReport(), Twice), "");
  EXPECT_TRUE(Twice == Doc);

  // A result that is not that finding: an error, and nothing written.
  json Fresh = findingsDoc();
  json Wrong = sampleReport();
  Wrong["results"][1]["line"] = 41;
  EXPECT_EQ(merge(Wrong, Fresh), "result 1 (torch-host-sync-in-loop at /abs/src/loop.cpp:41) "
                  "does not match finding 1 of the findings file");
  EXPECT_TRUE(Fresh == findingsDoc());
  Wrong = sampleReport();
  Wrong["results"][0]["file"] = "/elsewhere/train.cpp";
  EXPECT_TRUE(contains(merge(Wrong, Fresh), "does not match finding 0"));

  json Far = sampleReport();
  Far["results"][3]["index"] = 7;
  EXPECT_EQ(merge(Far, Fresh), "result 7 (torch-conv-bias at /abs/net.cpp:55) refers to "
                  "finding 7, but the findings file has 4 findings");
  EXPECT_TRUE(Fresh == findingsDoc());

  // Neither a findings file nor SARIF.
  json Other = {{"format", "something-else"}, {"runs", json::array()}};
  EXPECT_EQ(merge(sampleReport(), Other), "the target is neither a libtorch-tidy findings file nor a "
                  "SARIF 2.1.0 log");
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

TEST(ReportTest, MergeIntoSarif) {
  json Log = sarifDoc();
  EXPECT_EQ(merge(sampleReport(), Log), "");
  const json &R = Log["runs"][0]["results"];
  const char *Key = "libtorch-tidy/verification";
  EXPECT_TRUE(R[0]["properties"][Key]["verdict"] == "faster");
  EXPECT_TRUE(R[0]["properties"][Key]["speedup"]["point"] == 12.2);
  EXPECT_TRUE(!R[1].contains("properties"));
  EXPECT_TRUE(R[2]["properties"][Key]["verdict"] == "not-applicable");
  EXPECT_TRUE(R[2]["properties"]["tags"][0] == "performance");
  EXPECT_TRUE(!R[3].contains("properties"));
  EXPECT_TRUE(R[4]["properties"][Key]["verdict"] == "not-verifiable");
  EXPECT_TRUE(R[5]["properties"][Key]["verdict"] == "changes-results");

  json Twice = Log;
  EXPECT_EQ(merge(sampleReport(), Twice), "");
  EXPECT_TRUE(Twice == Log);

  // A result the log does not have: an error naming it, nothing written.
  json Fresh = sarifDoc();
  json Extra = sampleReport();
  Extra["results"].push_back({{"index", 4},
                              {"check", "torch-x"},
                              {"file", "/abs/other.cpp"},
                              {"line", 3},
                              {"verdict", "not-verifiable"},
                              {"reason", "r"}});
  EXPECT_EQ(merge(Extra, Fresh), "result 4 (torch-x at /abs/other.cpp:3) matches no result "
                  "of the SARIF log");
  EXPECT_TRUE(Fresh == sarifDoc());

  // Two findings of one check on one line go to two SARIF results.
  json Pair = sarifDoc();
  Pair["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]
      ["startLine"] = 117;
  json Report = sampleReport();
  Report["results"] = {Report["results"][0], Report["results"][0]};
  Report["results"][1]["index"] = 1;
  Report["results"][1]["verdict"] = "same";
  EXPECT_EQ(merge(Report, Pair), "");
  EXPECT_TRUE(Pair["runs"][0]["results"][0]["properties"][Key]["verdict"] ==
        "faster");
  EXPECT_TRUE(Pair["runs"][0]["results"][1]["properties"][Key]["verdict"] == "same");
}


TEST(ReportTest, ReadBack) {
  // What the verifier writes reads back as the same record.
  json Sample = sampleReport();
  Sample["results"][3]["message"] = ""; // every result names its message
  VerifyReport Report = typed(Sample);
  ASSERT_EQ(Report.Results.size(), 4u);
  EXPECT_EQ(toJson(Report), Sample);
  const VerifyResult &Faster = Report.Results[0];
  EXPECT_EQ(Faster.Verdict, Outcome::Faster);
  EXPECT_EQ(Faster.Index, 0);
  ASSERT_TRUE(Faster.Speedup);
  EXPECT_EQ(Faster.Speedup->Low, 11.8);
  ASSERT_TRUE(Faster.BeforeUs);
  EXPECT_EQ(Faster.BeforeUs->Median, 98.6);
  EXPECT_EQ(Report.Results[3].Verdict, Outcome::ChangesResults);
  ASSERT_TRUE(Report.Results[3].Diff);
  EXPECT_EQ(Report.Results[3].Diff->Equal, false);

  // Not a report: one line each.
  EXPECT_EQ(reportFromJson(json::object()).error(),
            "the report is not a libtorch-tidy-verify report");
  EXPECT_EQ(reportFromJson(json::array()).error(),
            "the report is not a libtorch-tidy-verify report");
  json Future = Sample;
  Future["version"] = 2;
  EXPECT_EQ(reportFromJson(Future).error(),
            "the report is not version 1 of the libtorch-tidy-verify report "
            "format");
  json NoResults = Sample;
  NoResults.erase("results");
  EXPECT_EQ(reportFromJson(NoResults).error(),
            "the report has no results list");

  // Fields of the wrong type are left out; a newer verdict is kept by name.
  json Odd = {{"index", "three"},
              {"check", 5},
              {"line", 2.5},
              {"verdict", "much-faster"},
              {"speedup", {{"point", 2}, {"low", "x"}, {"high", 3}}},
              {"before_us", {{"median", 4}, {"iqr", nullptr}}},
              {"difference", {{"compared", {"a", 1}}, {"equal", true}}}};
  VerifyResult R = resultFromJson(Odd);
  EXPECT_EQ(R.Index, -1);
  EXPECT_EQ(R.Check, "");
  EXPECT_FALSE(R.Line);
  EXPECT_EQ(R.Verdict, Outcome::Other);
  EXPECT_EQ(verdictText(R), "much-faster");
  EXPECT_FALSE(R.Speedup);
  ASSERT_TRUE(R.BeforeUs);
  EXPECT_FALSE(R.BeforeUs->Iqr);
  ASSERT_TRUE(R.Diff);
  EXPECT_FALSE(R.Diff->Compared);
  EXPECT_EQ(R.Diff->Equal, true);
  EXPECT_EQ(resultFromJson(json::array()).Verdict, Outcome::None);

  // A result whose index is no finding number cannot be merged.
  json Bad = sampleReport();
  Bad["results"][1]["index"] = "one";
  json Doc = findingsDoc();
  EXPECT_EQ(merge(Bad, Doc), "result at position 1 of the report has an "
                             "invalid index");
  EXPECT_EQ(Doc, findingsDoc());
  Bad = sampleReport();
  Bad["results"][2].erase("verdict");
  EXPECT_EQ(merge(Bad, Doc), "result 2 (torch-zero-grad at "
                             "/abs/a<b&\"c\".cpp:9) has no check, line or "
                             "verdict");
}

TEST(ReportTest, ExpectedDifference) {
  // A fix that changes the random draws: timed, and how far its numbers
  // moved is said in the table, the page and the JSON.
  VerifyReport Report;
  VerifyResult R;
  R.Check = "torch-conv-bias-before-batchnorm";
  R.File = "model.cpp";
  R.Line = 6;
  R.Verdict = Outcome::Same;
  R.Kind = "program";
  R.Speedup = Interval{1.01, 0.97, 1.04};
  R.Expected =
      ExpectedDifference{"random-draws", {2, "1.4512", "1.5020"}, 0.0338};
  Report.Results.push_back(R);
  std::string Text = "results differ as expected: the fix changes the random "
                     "initialisation (largest relative difference 3.4e-02, "
                     "number 2: 1.5020, baseline 1.4512)";
  EXPECT_TRUE(
      contains(renderTable(Report), "1.01x (0.97 .. 1.04), program; " + Text))
      << renderTable(Report);
  EXPECT_TRUE(contains(renderHtml(Report), Text));
  json J = toJson(R);
  EXPECT_EQ(J["expected_difference"], json({{"cause", "random-draws"},
                                            {"position", 2},
                                            {"baseline", "1.4512"},
                                            {"variant", "1.5020"},
                                            {"relative", 0.0338}}));
  VerifyResult Back = resultFromJson(J);
  ASSERT_TRUE(Back.Expected);
  EXPECT_EQ(Back.Expected->Largest.Variant, "1.5020");
  EXPECT_EQ(Back.Expected->Relative, 0.0338);
  EXPECT_EQ(toJson(Back), J);
}

TEST(ReportTest, OutcomeNames) {
  for (Outcome O : KnownOutcomes)
    EXPECT_EQ(outcomeNamed(outcomeName(O)), O);
  EXPECT_EQ(outcomeNamed(""), Outcome::None);
  EXPECT_EQ(outcomeOf(Verdict::Same), Outcome::Same);
  EXPECT_EQ(outcomeOf(Verdict::Ambiguous), Outcome::Ambiguous);
}
