//===--- HtmlReport.cpp - libtorch-tidy-verify ----------------------------===//
//
// The HTML page of a verifier report: self-contained (inline CSS and SVG),
// with a chart of the measured speedups and a table of every result.
//
//===----------------------------------------------------------------------===//

#include "Report.h"
#include "ReportText.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>

using nlohmann::json;

namespace torchtidy {
namespace {

// The "same" zone of the verdict rule.
const double SameDelta = DecisionRule().Delta;

std::string html(const std::string &S) {
  std::string Out;
  Out.reserve(S.size());
  for (char C : S)
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&#39;";
      break;
    default:
      Out += C;
    }
  return Out;
}

/// A verdict as a CSS class name: the report decides the verdict strings.
std::string cssToken(const std::string &S) {
  std::string Out;
  for (char C : S)
    Out += std::isalnum(static_cast<unsigned char>(C)) || C == '-' ? C : '_';
  return Out;
}

struct ChartRow {
  std::string Label, Tooltip, Verdict;
  Outcome Kind;
  Interval S;
};

/// The 1-2-5 value at or below \p V.
double niceBelow(double V) {
  double Decade = std::pow(10.0, std::floor(std::log10(V)));
  for (double M : {5.0, 2.0, 1.0})
    if (M * Decade <= V * (1 + 1e-9))
      return M * Decade;
  return Decade / 2;
}

/// The 1-2-5 value at or above \p V.
double niceAbove(double V) {
  double Decade = std::pow(10.0, std::floor(std::log10(V)));
  for (double M : {1.0, 2.0, 5.0})
    if (M * Decade >= V * (1 - 1e-9))
      return M * Decade;
  return 10 * Decade;
}

/// Tick values on [Lo, Hi]: 1-2-5 steps, thinned to decades (and then to
/// every few decades) when they would crowd the axis. 1 is always one.
std::vector<double> ticks(double Lo, double Hi) {
  int First = static_cast<int>(std::floor(std::log10(Lo)));
  int Last = static_cast<int>(std::ceil(std::log10(Hi)));
  auto Collect = [&](bool DecadesOnly, int Step) {
    std::vector<double> T;
    for (int K = First; K <= Last; ++K) {
      if (K % Step)
        continue;
      for (double M : {1.0, 2.0, 5.0}) {
        double V = M * std::pow(10.0, K);
        if ((M == 1 || !DecadesOnly) && V >= Lo * (1 - 1e-9) &&
            V <= Hi * (1 + 1e-9))
          T.push_back(V);
      }
    }
    return T;
  };
  std::vector<double> T = Collect(false, 1);
  if (T.size() <= 10)
    return T;
  T = Collect(true, 1);
  if (T.size() <= 10)
    return T;
  return Collect(true, static_cast<int>(T.size() + 7) / 8);
}

std::string coord(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.1f", V);
  return Buf;
}

std::string svgLine(const char *Class, double X1, double Y1, double X2,
                    double Y2, const char *Stroke = nullptr) {
  std::string Out = "<line class=\"" + std::string(Class) + "\" x1=\"" +
                    coord(X1) + "\" y1=\"" + coord(Y1) + "\" x2=\"" +
                    coord(X2) + "\" y2=\"" + coord(Y2) + "\"";
  if (Stroke)
    Out += " stroke=\"" + std::string(Stroke) + "\"";
  return Out + "/>\n";
}

std::string svgText(const char *Class, double X, double Y, const char *Anchor,
                    const std::string &Escaped) {
  return "<text class=\"" + std::string(Class) + "\" x=\"" + coord(X) +
         "\" y=\"" + coord(Y) + "\" text-anchor=\"" + Anchor + "\">" + Escaped +
         "</text>\n";
}

/// One row per result with a speedup that a log axis can show.
std::vector<ChartRow> chartRows(const std::vector<VerifyResult> &Results) {
  std::vector<ChartRow> Rows;
  // A log axis cannot show 0 or absurd ratios; clamp what is drawn, the
  // tooltip and the table keep the numbers.
  auto Clamp = [](double V) { return std::min(std::max(V, 1e-6), 1e6); };
  for (const VerifyResult &R : Results) {
    if (!R.Speedup || R.Speedup->Point <= 0)
      continue;
    const Interval &S = *R.Speedup;
    Interval Drawn;
    Drawn.Point = Clamp(S.Point);
    Drawn.Low = std::min(Clamp(S.Low > 0 ? S.Low : S.Point), Drawn.Point);
    Drawn.High = std::max(Clamp(S.High > 0 ? S.High : S.Point), Drawn.Point);
    std::string Label = oneLine(R.Check + " " + shortLocation(R));
    std::string Verdict = oneLine(verdictText(R));
    std::string Tooltip = Label + ": " + speedupText(S) + ", " + Verdict;
    Rows.push_back({Label, Tooltip, Verdict, R.Verdict, Drawn});
  }
  return Rows;
}

/// The chart's geometry: a log axis from Lo to Hi over [X0, X1].
struct Axis {
  double Lo, Hi;
  static constexpr double Width = 880, LabelRight = 350, X0 = 370, X1 = 850,
                          Top = 30, RowHeight = 26;
  double PlotBottom;

  double x(double V) const {
    return X0 + (std::log(V) - std::log(Lo)) / (std::log(Hi) - std::log(Lo)) *
                    (X1 - X0);
  }
};

Axis axisFor(const std::vector<ChartRow> &Rows) {
  double Lo = 1 / (1 + SameDelta), Hi = 1 + SameDelta;
  for (const ChartRow &Row : Rows) {
    Lo = std::min(Lo, Row.S.Low);
    Hi = std::max(Hi, Row.S.High);
  }
  return {niceBelow(Lo), niceAbove(Hi),
          Axis::Top + Axis::RowHeight * static_cast<double>(Rows.size())};
}

/// The same zone, the grid with its tick labels, the axis and the line of
/// no change.
std::string chartFrame(const Axis &A) {
  double ZoneLeft = A.x(1 / (1 + SameDelta)), ZoneRight = A.x(1 + SameDelta);
  std::string Out = "<rect class=\"same-zone\" x=\"" + coord(ZoneLeft) +
                    "\" y=\"" + coord(Axis::Top) + "\" width=\"" +
                    coord(ZoneRight - ZoneLeft) + "\" height=\"" +
                    coord(A.PlotBottom - Axis::Top) + "\"/>\n";
  for (double T : ticks(A.Lo, A.Hi)) {
    Out += svgLine("grid", A.x(T), Axis::Top, A.x(T), A.PlotBottom);
    Out += svgLine("tick", A.x(T), A.PlotBottom, A.x(T), A.PlotBottom + 5);
    char Buf[32];
    std::snprintf(Buf, sizeof(Buf), "%gx", T);
    Out += svgText("tick-label", A.x(T), A.PlotBottom + 18, "middle", Buf);
  }
  Out += svgLine("axis", Axis::X0, A.PlotBottom, Axis::X1, A.PlotBottom);
  Out += svgLine("no-change", A.x(1), Axis::Top - 6, A.x(1), A.PlotBottom);
  Out += svgText("no-change-label", A.x(1), Axis::Top - 10, "middle",
                 "no change");
  return Out;
}

/// One result: its label, its interval's whisker and its dot.
std::string chartRow(const Axis &A, const ChartRow &Row, double Y) {
  const char *Colour = colourOf(Row.Kind);
  std::string Out =
      "<g class=\"result\"><title>" + html(Row.Tooltip) + "</title>\n";
  Out += svgText("label", Axis::LabelRight, Y + 4, "end",
                 html(truncated(Row.Label, 48)));
  Out += svgLine("whisker", A.x(Row.S.Low), Y, A.x(Row.S.High), Y, Colour);
  for (double End : {Row.S.Low, Row.S.High})
    Out += svgLine("whisker", A.x(End), Y - 5, A.x(End), Y + 5, Colour);
  return Out + "<circle class=\"speedup-dot verdict-" + cssToken(Row.Verdict) +
         "\" cx=\"" + coord(A.x(Row.S.Point)) + "\" cy=\"" + coord(Y) +
         "\" r=\"5\" fill=\"" + Colour + "\"/>\n</g>\n";
}

/// The verdicts drawn, then the same zone.
std::string chartLegend(const Axis &A, const std::vector<ChartRow> &Rows) {
  std::string Out;
  double LegendX = Axis::X0, LegendY = A.PlotBottom + 60;
  for (Outcome O : KnownOutcomes) {
    bool Drawn = std::any_of(Rows.begin(), Rows.end(),
                             [O](const ChartRow &Row) { return Row.Kind == O; });
    if (!Drawn)
      continue;
    const char *Name = outcomeName(O);
    Out += "<circle class=\"legend-dot\" cx=\"" + coord(LegendX) + "\" cy=\"" +
           coord(LegendY - 4) + "\" r=\"5\" fill=\"" + colourOf(O) + "\"/>\n";
    Out += svgText("legend", LegendX + 9, LegendY, "start", Name);
    LegendX += 20 + 7 * static_cast<double>(std::strlen(Name));
  }
  Out += "<rect class=\"same-zone\" x=\"" + coord(LegendX - 5) + "\" y=\"" +
         coord(LegendY - 10) + "\" width=\"10\" height=\"12\"/>\n";
  return Out + svgText("legend", LegendX + 9, LegendY, "start",
                       "same zone, " + fixed2(1 / (1 + SameDelta)) + "x .. " +
                           fixed2(1 + SameDelta) + "x");
}

std::string renderChart(const std::vector<VerifyResult> &Results) {
  std::vector<ChartRow> Rows = chartRows(Results);
  if (Rows.empty())
    return "<p class=\"no-chart\">No result has a measured speedup, so there "
           "is nothing to chart; the table below lists every result.</p>\n";
  Axis A = axisFor(Rows);
  const double Height = A.PlotBottom + 76;
  std::string Out = "<svg class=\"chart\" width=\"" + coord(Axis::Width) +
                    "\" height=\"" + coord(Height) + "\" viewBox=\"0 0 " +
                    coord(Axis::Width) + " " + coord(Height) +
                    "\" role=\"img\" aria-label=\"Speedup of each fix with "
                    "its 95% interval, log scale\">\n";
  Out += chartFrame(A);
  for (size_t I = 0; I < Rows.size(); ++I)
    Out += chartRow(A, Rows[I],
                    Axis::Top + Axis::RowHeight * (static_cast<double>(I) + 0.5));
  Out += svgText("axis-caption", (Axis::X0 + Axis::X1) / 2, A.PlotBottom + 36,
                 "middle",
                 "speedup = median before / median after (log scale); "
                 "whiskers: 95% interval");
  return Out + chartLegend(A, Rows) + "</svg>\n";
}

/// Median and IQR of host time, then of GPU time, those the result has.
std::string timeCell(const std::optional<TimeSummary> &Host,
                     const std::optional<TimeSummary> &Gpu) {
  auto Time = [](const std::optional<TimeSummary> &T) {
    if (!T)
      return std::string();
    std::string Cell = duration(T->Median);
    if (T->Iqr)
      Cell += " <span class=\"aside\">(IQR " + html(duration(*T->Iqr)) +
              ")</span>";
    return Cell;
  };
  std::string Out = Time(Host);
  if (std::string OnGpu = Time(Gpu); !OnGpu.empty())
    Out += "<div class=\"gpu\">GPU " + OnGpu + "</div>";
  return Out;
}

/// "outputs equal: max abs 0.0e+00, max rel 0.0e+00 (x, y)".
std::string differenceLine(const Difference &D) {
  std::vector<std::string> Parts;
  if (D.MaxAbs)
    Parts.push_back("max abs " + sci1(*D.MaxAbs));
  if (D.MaxRel)
    Parts.push_back("max rel " + sci1(*D.MaxRel));
  std::vector<std::string> Compared;
  for (const std::string &Name : D.Compared.value_or(std::vector<std::string>()))
    Compared.push_back(html(Name));
  std::string Line = !D.Equal    ? "outputs compared"
                     : *D.Equal ? "outputs equal"
                                : "outputs differ";
  // A reference benchmark's outputs, read against the check's tolerance.
  if (D.Tolerance) {
    Line = D.Equal.value_or(false) ? "outputs within the tolerance"
                                   : "outputs beyond the tolerance";
    Parts.push_back("tolerance " + sci1(*D.Tolerance) + " relative");
  }
  if (!Parts.empty())
    Line += ": " + joined(Parts, ", ");
  if (!Compared.empty())
    Line += " (" + joined(Compared, ", ") + ")";
  return Line;
}

std::string reasonCell(const VerifyResult &R) {
  std::string Out;
  if (!R.FailureKind.empty())
    Out += "<span class=\"failure\">" + html(R.FailureKind) + "</span> ";
  Out += html(R.Reason);
  if (R.Diff)
    Out += "<div class=\"difference\">" + differenceLine(*R.Diff) + "</div>";
  if (R.Expected)
    Out += "<div class=\"difference\">" + html(expectedText(*R.Expected)) +
           "</div>";
  return Out;
}

std::string environmentBlock(const json &Env) {
  if (!Env.is_object() || Env.empty())
    return "<p>The report records no environment.</p>\n";
  // The known keys in a reading order, then whatever else is there.
  static const char *const Known[] = {
      "device",    "device_name", "driver",       "cuda", "cudnn",
      "libtorch",  "threads",     "date",         "cpu",  "compiler",
      "torch_dir", "sandbox",     "process_limit"};
  std::vector<std::string> Keys(std::begin(Known), std::end(Known));
  for (const auto &Item : Env.items())
    if (std::find(Keys.begin(), Keys.end(), Item.key()) == Keys.end())
      Keys.push_back(Item.key());
  std::string Out = "<table class=\"environment\">\n";
  for (const std::string &Key : Keys) {
    auto It = Env.find(Key);
    if (It == Env.end())
      continue;
    std::string Value = It->is_string() ? It->get<std::string>() : It->dump();
    Out += "<tr><th>" + html(Key) + "</th><td>" + html(Value) + "</td></tr>\n";
  }
  return Out + "</table>\n";
}

/// The check with the finding's message, the location with its full path
/// as a tooltip, and the verdict.
std::string findingCells(const VerifyResult &R) {
  std::string Out = "<td>" + html(R.Check);
  if (!R.Message.empty())
    Out += "<div class=\"message\">" + html(R.Message) + "</div>";
  Out += "</td>";
  std::string Full = R.File;
  if (R.Line && !Full.empty()) {
    Full += ":" + std::to_string(*R.Line);
    if (R.Column)
      Full += ":" + std::to_string(*R.Column);
  }
  Out += "<td><span class=\"location\" title=\"" + html(Full) + "\">" +
         html(shortLocation(R)) + "</span></td>";
  std::string Verdict = verdictText(R);
  return Out + "<td><span class=\"verdict verdict-" + cssToken(Verdict) +
         "\">" + html(Verdict) + "</span></td>";
}

/// The speedup, p-value, times and samples.
std::string measurementCells(const VerifyResult &R) {
  std::string Out = "<td class=\"num\">";
  if (R.Speedup)
    Out += speedupText(*R.Speedup);
  if (!R.Kind.empty())
    Out += "<div class=\"aside\">" + html(R.Kind) + "</div>";
  Out += "</td>";
  Out += "<td class=\"num\">" + (R.PValue ? sig3(*R.PValue) : std::string()) +
         "</td>";
  Out += "<td class=\"num\">" + timeCell(R.BeforeUs, R.GpuBeforeUs) + "</td>";
  Out += "<td class=\"num\">" + timeCell(R.AfterUs, R.GpuAfterUs) + "</td>";
  Out += "<td class=\"num\">";
  if (R.SampleCount)
    Out += std::to_string(*R.SampleCount);
  if (!R.Stop.empty())
    Out += "<div class=\"aside\">" + html(R.Stop) + "</div>";
  if (R.BuildSeconds)
    Out += "<div class=\"aside\">build " + fixed2(*R.BuildSeconds) +
           " s</div>";
  return Out + "</td>";
}

std::string resultsTable(const std::vector<VerifyResult> &Results) {
  if (Results.empty())
    return "<p>The report has no results.</p>\n";
  std::string Out = "<table class=\"results\">\n<tr><th>#</th><th>check</th>"
                    "<th>location</th><th>verdict</th>"
                    "<th>speedup (95% CI)</th><th>p-value</th>"
                    "<th>before</th><th>after</th><th>samples</th>"
                    "<th>reason</th></tr>\n";
  for (size_t Position = 0; Position < Results.size(); ++Position) {
    const VerifyResult &R = Results[Position];
    long long Index = R.Index.value_or(static_cast<long long>(Position));
    // Program mode's all-fixes row has no finding of its own.
    bool All = !R.Index && R.Variant.rfind("all fixes", 0) == 0;
    Out += "<tr class=\"result-row\"><td class=\"num\">" +
           (All ? std::string("all") : std::to_string(Index)) + "</td>" +
           findingCells(R) +
           measurementCells(R) + "<td>" + reasonCell(R) + "</td></tr>\n";
  }
  return Out + "</table>\n";
}

std::string styleSheet() {
  std::string Css =
      "body{font-family:system-ui,sans-serif;margin:2em;color:#212121;"
      "line-height:1.4}\n"
      "h1{font-size:1.5em;margin-bottom:.2em}\n"
      "h2{font-size:1.15em;margin-top:1.6em}\n"
      "table{border-collapse:collapse}\n"
      "th,td{text-align:left;vertical-align:top;padding:.3em .6em;"
      "border-bottom:1px solid #e0e0e0}\n"
      "td.num{text-align:right;white-space:nowrap;"
      "font-variant-numeric:tabular-nums}\n"
      ".environment th{font-weight:normal;color:#616161}\n"
      ".message,.aside,.gpu,.difference{color:#616161;font-size:.85em}\n"
      ".verdict{font-weight:600;white-space:nowrap}\n"
      ".failure{font-weight:600;color:#c62828}\n"
      ".summary{color:#424242}\n"
      "svg text{font-size:12px;fill:#212121}\n"
      "svg .tick-label,svg .axis-caption,svg .no-change-label{"
      "fill:#616161}\n"
      ".same-zone{fill:#eeeeee}\n"
      ".grid{stroke:#eeeeee}\n"
      ".axis,.tick{stroke:#9e9e9e}\n"
      ".no-change{stroke:#616161;stroke-dasharray:4 3}\n"
      ".whisker{stroke-width:2}\n";
  for (Outcome O : KnownOutcomes)
    Css += ".verdict-" + std::string(outcomeName(O)) + "{color:" +
           colourOf(O) + "}\n";
  return Css;
}

} // namespace

std::string renderHtml(const VerifyReport &Report) {
  std::vector<std::string> Context;
  for (const char *Key : {"device", "libtorch", "date"}) {
    auto It = Report.Environment.find(Key);
    if (It == Report.Environment.end() || !It->is_string() ||
        It->get<std::string>().empty())
      continue;
    std::string V = It->get<std::string>();
    Context.push_back(std::string(Key) == "libtorch" ? "LibTorch " + V : V);
  }
  std::string Subtitle = summaryLine(Report.Results);
  if (!Context.empty())
    Subtitle += " \u2014 " + joined(Context, ", ");

  std::string Out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                    "<meta charset=\"utf-8\">\n"
                    "<title>libtorch-tidy-verify report</title>\n<style>\n" +
                    styleSheet() + "</style>\n</head>\n<body>\n";
  Out += "<h1>libtorch-tidy-verify report</h1>\n<p class=\"summary\">" +
         html(Subtitle) + "</p>\n";
  Out += "<h2>Environment</h2>\n" + environmentBlock(Report.Environment);
  // Program mode: all fixes together is one more row, and the program's
  // build and runs are described.
  std::vector<VerifyResult> Rows = Report.Results;
  if (Report.AllFixes)
    Rows.push_back(*Report.AllFixes);
  if (Report.Program.is_object())
    Out += "<h2>Program</h2>\n" + environmentBlock(Report.Program);
  Out += "<h2>Speedups</h2>\n" + renderChart(Rows);
  Out += "<h2>Results</h2>\n" + resultsTable(Rows);
  return Out + "</body>\n</html>\n";
}

} // namespace torchtidy
