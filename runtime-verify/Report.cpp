//===--- Report.cpp - libtorch-tidy-verify --------------------------------===//

#include "Report.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <vector>

using nlohmann::json;

namespace torchtidy {
namespace {

// The "same" zone of the verdict rule (DecisionRule::Delta in Stats.h).
constexpr double SameDelta = 0.10;

//===--- Field access that never throws -----------------------------------===//

const json *field(const json &J, const char *Key) {
  if (!J.is_object())
    return nullptr;
  auto It = J.find(Key);
  return It == J.end() ? nullptr : &*It;
}

std::string text(const json &J, const char *Key) {
  const json *F = field(J, Key);
  return F && F->is_string() ? F->get<std::string>() : std::string();
}

std::optional<double> number(const json &J, const char *Key) {
  const json *F = field(J, Key);
  if (!F || !F->is_number())
    return std::nullopt;
  double V = F->get<double>();
  if (!std::isfinite(V))
    return std::nullopt;
  return V;
}

std::optional<long long> integer(const json &J, const char *Key) {
  const json *F = field(J, Key);
  if (!F || !F->is_number_integer())
    return std::nullopt;
  return F->get<long long>();
}

const json &results(const json &Report) {
  static const json None = json::array();
  const json *R = field(Report, "results");
  return R && R->is_array() ? *R : None;
}

struct Speedup {
  double Point, Low, High;
};

std::optional<Speedup> speedupOf(const json &R) {
  const json *S = field(R, "speedup");
  if (!S)
    return std::nullopt;
  auto P = number(*S, "point"), L = number(*S, "low"), H = number(*S, "high");
  if (!P || !L || !H)
    return std::nullopt;
  return Speedup{*P, *L, *H};
}

//===--- Text -------------------------------------------------------------===//

std::string fixed2(double V) {
  char Buf[64];
  // %.2f of a huge value would be hundreds of digits.
  std::snprintf(Buf, sizeof(Buf), std::fabs(V) < 1e15 ? "%.2f" : "%.3g", V);
  return Buf;
}

std::string sig3(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.3g", V);
  return Buf;
}

std::string sci1(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.1e", V);
  return Buf;
}

/// Three significant digits in the unit that keeps them below 1000.
std::string duration(double Micros) {
  if (std::fabs(Micros) < 999.5)
    return sig3(Micros) + " \u00b5s";
  if (std::fabs(Micros) < 999.5e3)
    return sig3(Micros / 1e3) + " ms";
  return sig3(Micros / 1e6) + " s";
}

/// Control characters (newlines in a reason, say) would break a table row
/// or a one-line error.
std::string oneLine(std::string S) {
  for (char &C : S)
    if (static_cast<unsigned char>(C) < 0x20 || C == 0x7f)
      C = ' ';
  return S;
}

size_t codePoints(const std::string &S) {
  size_t N = 0;
  for (char C : S)
    N += (static_cast<unsigned char>(C) & 0xc0) != 0x80;
  return N;
}

/// At most \p Max code points, never cutting one in half.
std::string truncated(const std::string &S, size_t Max) {
  if (codePoints(S) <= Max)
    return S;
  size_t Kept = 0, I = 0;
  for (; I < S.size(); ++I)
    if ((static_cast<unsigned char>(S[I]) & 0xc0) != 0x80 && Kept++ == Max - 1)
      break;
  return S.substr(0, I) + "\u2026";
}

std::string basename(const std::string &Path) {
  size_t Slash = Path.find_last_of("/\\");
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

/// "train.cpp:117", or the parts of it the result has.
std::string shortLocation(const json &R) {
  std::string File = basename(text(R, "file"));
  std::optional<long long> Line = integer(R, "line");
  if (!Line)
    return File;
  if (File.empty())
    return "line " + std::to_string(*Line);
  return File + ":" + std::to_string(*Line);
}

std::string joined(const std::vector<std::string> &Parts, const char *Sep) {
  std::string Out;
  for (const std::string &P : Parts)
    Out += (Out.empty() ? "" : Sep) + P;
  return Out;
}

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

//===--- Verdicts ---------------------------------------------------------===//

struct VerdictStyle {
  const char *Name;
  const char *Colour;
};

// The order of the summary line and the legend.
constexpr VerdictStyle Verdicts[] = {
    {"faster", "#2e7d32"},          {"same", "#757575"},
    {"slower", "#c62828"},          {"ambiguous", "#ef6c00"},
    {"changes-results", "#7b1fa2"}, {"not-applicable", "#546e7a"},
    {"not-verifiable", "#546e7a"}};

const char *colourOf(const std::string &Verdict) {
  for (const VerdictStyle &V : Verdicts)
    if (Verdict == V.Name)
      return V.Colour;
  return "#212121";
}

/// "3 findings: 1 faster, 1 not-applicable, 1 not-verifiable".
std::string summaryLine(const json &Results) {
  std::map<std::string, size_t> Counts;
  for (const json &R : Results) {
    std::string V = text(R, "verdict");
    ++Counts[V.empty() ? "without verdict" : oneLine(V)];
  }
  std::vector<std::string> Parts;
  for (const VerdictStyle &V : Verdicts) {
    auto It = Counts.find(V.Name);
    if (It == Counts.end())
      continue;
    Parts.push_back(std::to_string(It->second) + " " + V.Name);
    Counts.erase(It);
  }
  for (const auto &[Name, Count] : Counts) // verdicts of a newer verifier
    Parts.push_back(std::to_string(Count) + " " + Name);
  size_t N = Results.size();
  std::string Line = std::to_string(N) + (N == 1 ? " finding" : " findings");
  return Parts.empty() ? Line : Line + ": " + joined(Parts, ", ");
}

/// The last column of the console table.
std::string tableDetail(const json &R) {
  std::vector<std::string> Parts;
  std::optional<Speedup> S = speedupOf(R);
  if (S) {
    std::string Kind = text(R, "kind");
    Parts.push_back(fixed2(S->Point) + "x (" + fixed2(S->Low) + " .. " +
                    fixed2(S->High) + ")" + (Kind.empty() ? "" : ", " + Kind));
  }
  if (text(R, "verdict") == "changes-results") {
    const json *D = field(R, "difference");
    std::optional<double> MaxAbs = D ? number(*D, "max_abs") : std::nullopt;
    Parts.push_back(MaxAbs ? "outputs differ by " + sci1(*MaxAbs)
                           : "outputs differ");
  }
  if (!S && !text(R, "reason").empty())
    Parts.push_back(text(R, "reason"));
  return oneLine(joined(Parts, "; "));
}

} // namespace

//===--- Console table ----------------------------------------------------===//

std::string renderTable(const json &Report) {
  const json &Results = results(Report);
  if (Results.empty())
    return summaryLine(Results) + "\n";
  using Row = std::array<std::string, 4>;
  std::vector<Row> Rows = {
      {"check", "location", "verdict", "speedup (95% CI) / reason"}};
  for (const json &R : Results)
    Rows.push_back({oneLine(text(R, "check")), oneLine(shortLocation(R)),
                    oneLine(text(R, "verdict")), tableDetail(R)});
  std::array<size_t, 3> Width = {0, 0, 0};
  for (const Row &Cells : Rows)
    for (size_t C = 0; C < Width.size(); ++C)
      Width[C] = std::max(Width[C], codePoints(Cells[C]));
  std::string Out;
  for (const Row &Cells : Rows) {
    std::string Line;
    for (size_t C = 0; C < Width.size(); ++C)
      Line +=
          Cells[C] + std::string(Width[C] - codePoints(Cells[C]), ' ') + "  ";
    Line += Cells[3];
    while (!Line.empty() && Line.back() == ' ')
      Line.pop_back();
    Out += Line + "\n";
  }
  return Out + summaryLine(Results) + "\n";
}

//===--- HTML -------------------------------------------------------------===//

namespace {

struct ChartRow {
  std::string Label, Tooltip, Verdict;
  Speedup S;
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

std::string renderChart(const json &Results) {
  std::vector<ChartRow> Rows;
  for (const json &R : Results) {
    std::optional<Speedup> S = speedupOf(R);
    if (!S || S->Point <= 0)
      continue;
    // A log axis cannot show 0 or absurd ratios; clamp what is drawn, the
    // tooltip and the table keep the numbers.
    auto Clamp = [](double V) { return std::min(std::max(V, 1e-6), 1e6); };
    Speedup Drawn{Clamp(S->Point), Clamp(S->Low > 0 ? S->Low : S->Point),
                  Clamp(S->High > 0 ? S->High : S->Point)};
    Drawn.Low = std::min(Drawn.Low, Drawn.Point);
    Drawn.High = std::max(Drawn.High, Drawn.Point);
    std::string Label = oneLine(text(R, "check") + " " + shortLocation(R));
    std::string Verdict = oneLine(text(R, "verdict"));
    std::string Tooltip = Label + ": " + fixed2(S->Point) + "x (" +
                          fixed2(S->Low) + " .. " + fixed2(S->High) + "), " +
                          Verdict;
    Rows.push_back({Label, Tooltip, Verdict, Drawn});
  }
  if (Rows.empty())
    return "<p class=\"no-chart\">No result has a measured speedup, so there "
           "is nothing to chart; the table below lists every result.</p>\n";

  double Lo = 1 / (1 + SameDelta), Hi = 1 + SameDelta;
  for (const ChartRow &Row : Rows) {
    Lo = std::min(Lo, Row.S.Low);
    Hi = std::max(Hi, Row.S.High);
  }
  Lo = niceBelow(Lo);
  Hi = niceAbove(Hi);

  const double Width = 880, LabelRight = 350, X0 = 370, X1 = 850, Top = 30,
               RowHeight = 26;
  const double PlotBottom = Top + RowHeight * static_cast<double>(Rows.size());
  const double Height = PlotBottom + 76;
  auto X = [&](double V) {
    return X0 + (std::log(V) - std::log(Lo)) / (std::log(Hi) - std::log(Lo)) *
                    (X1 - X0);
  };

  std::string Out = "<svg class=\"chart\" width=\"" + coord(Width) +
                    "\" height=\"" + coord(Height) + "\" viewBox=\"0 0 " +
                    coord(Width) + " " + coord(Height) +
                    "\" role=\"img\" aria-label=\"Speedup of each fix with "
                    "its 95% interval, log scale\">\n";
  double ZoneLeft = X(1 / (1 + SameDelta)), ZoneRight = X(1 + SameDelta);
  Out += "<rect class=\"same-zone\" x=\"" + coord(ZoneLeft) + "\" y=\"" +
         coord(Top) + "\" width=\"" + coord(ZoneRight - ZoneLeft) +
         "\" height=\"" + coord(PlotBottom - Top) + "\"/>\n";
  std::vector<double> Ticks = ticks(Lo, Hi);
  for (double T : Ticks) {
    Out += svgLine("grid", X(T), Top, X(T), PlotBottom);
    Out += svgLine("tick", X(T), PlotBottom, X(T), PlotBottom + 5);
    char Buf[32];
    std::snprintf(Buf, sizeof(Buf), "%gx", T);
    Out += svgText("tick-label", X(T), PlotBottom + 18, "middle", Buf);
  }
  Out += svgLine("axis", X0, PlotBottom, X1, PlotBottom);
  Out += svgLine("no-change", X(1), Top - 6, X(1), PlotBottom);
  Out += svgText("no-change-label", X(1), Top - 10, "middle", "no change");

  for (size_t I = 0; I < Rows.size(); ++I) {
    const ChartRow &Row = Rows[I];
    double Y = Top + RowHeight * (static_cast<double>(I) + 0.5);
    const char *Colour = colourOf(Row.Verdict);
    Out += "<g class=\"result\"><title>" + html(Row.Tooltip) + "</title>\n";
    Out += svgText("label", LabelRight, Y + 4, "end",
                   html(truncated(Row.Label, 48)));
    Out += svgLine("whisker", X(Row.S.Low), Y, X(Row.S.High), Y, Colour);
    for (double End : {Row.S.Low, Row.S.High})
      Out += svgLine("whisker", X(End), Y - 5, X(End), Y + 5, Colour);
    Out += "<circle class=\"speedup-dot verdict-" + cssToken(Row.Verdict) +
           "\" cx=\"" + coord(X(Row.S.Point)) + "\" cy=\"" + coord(Y) +
           "\" r=\"5\" fill=\"" + Colour + "\"/>\n</g>\n";
  }

  Out += svgText("axis-caption", (X0 + X1) / 2, PlotBottom + 36, "middle",
                 "speedup = median before / median after (log scale); "
                 "whiskers: 95% interval");
  // The legend: the verdicts drawn, then the zone.
  double LegendX = X0, LegendY = PlotBottom + 60;
  for (const VerdictStyle &V : Verdicts) {
    bool Drawn = false;
    for (const ChartRow &Row : Rows)
      Drawn |= Row.Verdict == V.Name;
    if (!Drawn)
      continue;
    Out += "<circle class=\"legend-dot\" cx=\"" + coord(LegendX) + "\" cy=\"" +
           coord(LegendY - 4) + "\" r=\"5\" fill=\"" + V.Colour + "\"/>\n";
    Out += svgText("legend", LegendX + 9, LegendY, "start", V.Name);
    LegendX += 20 + 7 * static_cast<double>(std::strlen(V.Name));
  }
  Out += "<rect class=\"same-zone\" x=\"" + coord(LegendX - 5) + "\" y=\"" +
         coord(LegendY - 10) + "\" width=\"10\" height=\"12\"/>\n";
  Out += svgText("legend", LegendX + 9, LegendY, "start",
                 "same zone, " + fixed2(1 / (1 + SameDelta)) + "x .. " +
                     fixed2(1 + SameDelta) + "x");
  return Out + "</svg>\n";
}

/// Median and IQR of host time, then of GPU time, those the result has.
std::string timeCell(const json &R, const char *Host, const char *Gpu) {
  auto Time = [&](const char *Key) {
    const json *T = field(R, Key);
    std::optional<double> Median = T ? number(*T, "median") : std::nullopt;
    if (!Median)
      return std::string();
    std::string Cell = duration(*Median);
    if (std::optional<double> Iqr = number(*T, "iqr"))
      Cell +=
          " <span class=\"aside\">(IQR " + html(duration(*Iqr)) + ")</span>";
    return Cell;
  };
  std::string Out = Time(Host);
  if (std::string OnGpu = Time(Gpu); !OnGpu.empty())
    Out += "<div class=\"gpu\">GPU " + OnGpu + "</div>";
  return Out;
}

std::string reasonCell(const json &R) {
  std::string Out;
  std::string Failure = text(R, "failure");
  if (!Failure.empty())
    Out += "<span class=\"failure\">" + html(Failure) + "</span> ";
  Out += html(text(R, "reason"));
  const json *D = field(R, "difference");
  if (D && D->is_object()) {
    std::vector<std::string> Parts;
    if (std::optional<double> A = number(*D, "max_abs"))
      Parts.push_back("max abs " + sci1(*A));
    if (std::optional<double> Rel = number(*D, "max_rel"))
      Parts.push_back("max rel " + sci1(*Rel));
    std::vector<std::string> Compared;
    if (const json *C = field(*D, "compared"); C && C->is_array())
      for (const json &Name : *C)
        if (Name.is_string())
          Compared.push_back(html(Name.get<std::string>()));
    const json *Equal = field(*D, "equal");
    std::string Line =
        Equal && Equal->is_boolean()
            ? (Equal->get<bool>() ? "outputs equal" : "outputs differ")
            : "outputs compared";
    if (!Parts.empty())
      Line += ": " + joined(Parts, ", ");
    if (!Compared.empty())
      Line += " (" + joined(Compared, ", ") + ")";
    Out += "<div class=\"difference\">" + Line + "</div>";
  }
  return Out;
}

std::string environmentBlock(const json &Report) {
  const json *Env = field(Report, "environment");
  if (!Env || !Env->is_object() || Env->empty())
    return "<p>The report records no environment.</p>\n";
  // The known keys in a reading order, then whatever else is there.
  static const char *const Known[] = {
      "device",    "device_name", "driver",       "cuda", "cudnn",
      "libtorch",  "threads",     "date",         "cpu",  "compiler",
      "torch_dir", "sandbox",     "process_limit"};
  std::vector<std::string> Keys(std::begin(Known), std::end(Known));
  for (const auto &Item : Env->items())
    if (std::find(Keys.begin(), Keys.end(), Item.key()) == Keys.end())
      Keys.push_back(Item.key());
  std::string Out = "<table class=\"environment\">\n";
  for (const std::string &Key : Keys) {
    auto It = Env->find(Key);
    if (It == Env->end())
      continue;
    std::string Value = It->is_string() ? It->get<std::string>() : It->dump();
    Out += "<tr><th>" + html(Key) + "</th><td>" + html(Value) + "</td></tr>\n";
  }
  return Out + "</table>\n";
}

std::string resultsTable(const json &Results) {
  if (Results.empty())
    return "<p>The report has no results.</p>\n";
  std::string Out = "<table class=\"results\">\n<tr><th>#</th><th>check</th>"
                    "<th>location</th><th>verdict</th>"
                    "<th>speedup (95% CI)</th><th>p-value</th>"
                    "<th>before</th><th>after</th><th>samples</th>"
                    "<th>reason</th></tr>\n";
  size_t Position = 0;
  for (const json &R : Results) {
    std::optional<long long> Index = integer(R, "index");
    std::string Verdict = text(R, "verdict");
    Out += "<tr class=\"result-row\"><td class=\"num\">" +
           std::to_string(Index ? *Index : static_cast<long long>(Position)) +
           "</td>";
    ++Position;

    Out += "<td>" + html(text(R, "check"));
    if (std::string Message = text(R, "message"); !Message.empty())
      Out += "<div class=\"message\">" + html(Message) + "</div>";
    Out += "</td>";

    std::string Full = text(R, "file");
    if (std::optional<long long> Line = integer(R, "line");
        Line && !Full.empty()) {
      Full += ":" + std::to_string(*Line);
      if (std::optional<long long> Column = integer(R, "column"))
        Full += ":" + std::to_string(*Column);
    }
    Out += "<td><span class=\"location\" title=\"" + html(Full) + "\">" +
           html(shortLocation(R)) + "</span></td>";

    Out += "<td><span class=\"verdict verdict-" + cssToken(Verdict) + "\">" +
           html(Verdict) + "</span></td>";

    Out += "<td class=\"num\">";
    if (std::optional<Speedup> S = speedupOf(R))
      Out += fixed2(S->Point) + "x (" + fixed2(S->Low) + " .. " +
             fixed2(S->High) + ")";
    if (std::string Kind = text(R, "kind"); !Kind.empty())
      Out += "<div class=\"aside\">" + html(Kind) + "</div>";
    Out += "</td>";

    std::optional<double> P = number(R, "p_value");
    Out += "<td class=\"num\">" + (P ? sig3(*P) : std::string()) + "</td>";
    Out += "<td class=\"num\">" + timeCell(R, "before_us", "gpu_before_us") +
           "</td>";
    Out += "<td class=\"num\">" + timeCell(R, "after_us", "gpu_after_us") +
           "</td>";

    Out += "<td class=\"num\">";
    if (std::optional<long long> N = integer(R, "samples"))
      Out += std::to_string(*N);
    if (std::string Stop = text(R, "stop"); !Stop.empty())
      Out += "<div class=\"aside\">" + html(Stop) + "</div>";
    Out += "</td>";

    Out += "<td>" + reasonCell(R) + "</td></tr>\n";
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
  for (const VerdictStyle &V : Verdicts)
    Css += ".verdict-" + std::string(V.Name) + "{color:" + V.Colour + "}\n";
  return Css;
}

} // namespace

std::string renderHtml(const json &Report) {
  const json &Results = results(Report);
  const json *Env = field(Report, "environment");
  std::vector<std::string> Context;
  for (const char *Key : {"device", "libtorch", "date"})
    if (std::string V = Env ? text(*Env, Key) : ""; !V.empty())
      Context.push_back(std::string(Key) == "libtorch" ? "LibTorch " + V : V);
  std::string Subtitle = summaryLine(Results);
  if (!Context.empty())
    Subtitle += " \u2014 " + joined(Context, ", ");

  std::string Out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                    "<meta charset=\"utf-8\">\n"
                    "<title>libtorch-tidy-verify report</title>\n<style>\n" +
                    styleSheet() + "</style>\n</head>\n<body>\n";
  Out += "<h1>libtorch-tidy-verify report</h1>\n<p class=\"summary\">" +
         html(Subtitle) + "</p>\n";
  Out += "<h2>Environment</h2>\n" + environmentBlock(Report);
  Out += "<h2>Speedups</h2>\n" + renderChart(Results);
  Out += "<h2>Results</h2>\n" + resultsTable(Results);
  return Out + "</body>\n</html>\n";
}

//===--- Atomic write -----------------------------------------------------===//

bool writeFileAtomically(const std::string &Path, const std::string &Text,
                         std::string &Error) {
  auto Fail = [&](int Errno) {
    Error = oneLine("cannot write '" + Path +
                    "': " + std::strerror(Errno ? Errno : EIO));
    return false;
  };
  // A fresh name next to Path (a rename across file systems is not atomic),
  // created exclusively so two writers never share a temporary file.
  static std::atomic<unsigned long long> Counter{0};
  std::string Temp;
  std::FILE *F = nullptr;
  for (int Attempt = 0; Attempt < 16 && !F; ++Attempt) {
    unsigned long long Salt =
        static_cast<unsigned long long>(
            std::chrono::steady_clock::now().time_since_epoch().count()) *
            1000003u +
        Counter++;
    char Suffix[32];
    std::snprintf(Suffix, sizeof(Suffix), ".tmp-%llx", Salt);
    Temp = Path + Suffix;
    errno = 0;
    F = std::fopen(Temp.c_str(), "wbx");
    if (!F && errno != EEXIST)
      return Fail(errno);
  }
  if (!F)
    return Fail(EEXIST);
  errno = 0;
  int WriteError = 0;
  if (std::fwrite(Text.data(), 1, Text.size(), F) != Text.size() ||
      std::fflush(F) != 0)
    WriteError = errno ? errno : EIO;
  if (std::fclose(F) != 0 && !WriteError)
    WriteError = errno ? errno : EIO;
  if (!WriteError && std::rename(Temp.c_str(), Path.c_str()) != 0)
    WriteError = errno ? errno : EIO;
  if (WriteError) {
    std::remove(Temp.c_str());
    return Fail(WriteError);
  }
  return true;
}

//===--- Merging verdicts -------------------------------------------------===//

namespace {

/// "result 3 (torch-debug-api-enabled at /abs/train.cpp:117)".
std::string describe(const json &R, long long N) {
  std::string Where = text(R, "file");
  if (std::optional<long long> Line = integer(R, "line"))
    Where += (Where.empty() ? "line " : ":") + std::to_string(*Line);
  return oneLine("result " + std::to_string(N) + " (" + text(R, "check") +
                 " at " + Where + ")");
}

json verificationOf(const json &R) {
  json V = json::object();
  for (const char *Key : {"verdict", "kind", "reason", "failure", "speedup",
                          "p_value", "difference"})
    if (const json *F = field(R, Key))
      V[Key] = *F;
  return V;
}

bool hasScheme(const std::string &Uri) {
  size_t Colon = Uri.find(':');
  return Colon != std::string::npos && Colon > 1 &&
         Uri.find('/') > Colon; // "C:/x" is a Windows path, not a scheme
}

std::string percentDecoded(const std::string &S) {
  std::string Out;
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] == '%' && I + 2 < S.size() &&
        std::isxdigit(static_cast<unsigned char>(S[I + 1])) &&
        std::isxdigit(static_cast<unsigned char>(S[I + 2]))) {
      Out += static_cast<char>(std::stoi(S.substr(I + 1, 2), nullptr, 16));
      I += 2;
    } else {
      Out += S[I];
    }
  }
  return Out;
}

/// Whether a SARIF artifact URI names \p Path: the same string, a file URI
/// of it, or a relative URI that \p Path ends with.
bool sameFile(const std::string &Uri, const std::string &Path) {
  if (Uri.empty() || Path.empty())
    return false;
  for (std::string U : {Uri, percentDecoded(Uri)}) {
    if (U == Path || U == "file://" + Path)
      return true;
    if (U.rfind("./", 0) == 0)
      U.erase(0, 2);
    if (!U.empty() && U[0] != '/' && !hasScheme(U) && Path.size() > U.size() &&
        Path.compare(Path.size() - U.size() - 1, std::string::npos, "/" + U) ==
            0)
      return true;
  }
  return false;
}

/// The first location's physical location of a SARIF result.
const json *physicalLocation(const json &Result) {
  const json *Locations = field(Result, "locations");
  if (!Locations || !Locations->is_array() || Locations->empty())
    return nullptr;
  return field(Locations->front(), "physicalLocation");
}

std::string artifactUri(const json &Physical, const json &Run) {
  const json *Artifact = field(Physical, "artifactLocation");
  if (!Artifact)
    return "";
  if (std::string Uri = text(*Artifact, "uri"); !Uri.empty())
    return Uri;
  // Or by index into the run's artifacts, as some producers write it.
  std::optional<long long> Index = integer(*Artifact, "index");
  const json *Artifacts = field(Run, "artifacts");
  if (!Index || !Artifacts || !Artifacts->is_array() || *Index < 0 ||
      static_cast<size_t>(*Index) >= Artifacts->size())
    return "";
  const json *Location = field((*Artifacts)[*Index], "location");
  return Location ? text(*Location, "uri") : "";
}

std::string ruleOf(const json &Result) {
  if (std::string Id = text(Result, "ruleId"); !Id.empty())
    return Id;
  const json *Rule = field(Result, "rule");
  return Rule ? text(*Rule, "id") : "";
}

struct Write {
  json *Holder; ///< the finding, or the SARIF result
  bool Sarif;
  json Value;
};

/// Every SARIF result with the check, file and line of \p R.
std::vector<json *> sarifCandidates(json &Log, const json &R) {
  std::string Check = text(R, "check"), File = text(R, "file");
  std::optional<long long> Line = integer(R, "line");
  std::vector<json *> Found;
  for (json &Run : Log["runs"]) {
    json *Results =
        Run.is_object() && Run.contains("results") ? &Run["results"] : nullptr;
    if (!Results || !Results->is_array())
      continue;
    for (json &Result : *Results) {
      const json *Physical = physicalLocation(Result);
      if (!Physical || ruleOf(Result) != Check)
        continue;
      const json *Region = field(*Physical, "region");
      if (Region && integer(*Region, "startLine") == Line &&
          sameFile(artifactUri(*Physical, Run), File))
        Found.push_back(&Result);
    }
  }
  return Found;
}

/// Keeps the candidates that agree with \p Keep, unless none does: columns
/// and messages are tie-breakers, not requirements, since producers count
/// columns differently.
void narrow(std::vector<json *> &Candidates,
            const std::function<bool(const json &)> &Keep) {
  std::vector<json *> Kept;
  for (json *C : Candidates)
    if (Keep(*C))
      Kept.push_back(C);
  if (!Kept.empty())
    Candidates = Kept;
}

} // namespace

bool mergeVerdicts(const json &Report, json &Target, std::string &Error) {
  if (text(Report, "format") != "libtorch-tidy-verify-report") {
    Error = "the report is not a libtorch-tidy-verify report";
    return false;
  }
  if (integer(Report, "version") != 1) {
    Error = "the report is not version 1 of the libtorch-tidy-verify report "
            "format";
    return false;
  }
  const json *Results = field(Report, "results");
  if (!Results || !Results->is_array()) {
    Error = "the report has no results list";
    return false;
  }

  bool Findings = text(Target, "format") == "libtorch-tidy-findings";
  bool Sarif = !Findings && text(Target, "version") == "2.1.0" &&
               field(Target, "runs") && Target["runs"].is_array();
  if (!Findings && !Sarif) {
    Error = "the target is neither a libtorch-tidy findings file nor a SARIF "
            "2.1.0 log";
    return false;
  }
  if (Findings &&
      (integer(Target, "version") != 1 || !field(Target, "findings") ||
       !Target["findings"].is_array())) {
    Error = "the findings file is not version 1 with a findings list";
    return false;
  }

  // Everything is checked before anything is written: all or nothing.
  std::vector<Write> Writes;
  std::set<const json *> Claimed;
  for (size_t Position = 0; Position < Results->size(); ++Position) {
    const json &R = (*Results)[Position];
    // Results without an index (early verifiers) are in findings order.
    long long N = static_cast<long long>(Position);
    if (const json *Index = field(R, "index")) {
      if (!Index->is_number_integer() || Index->get<long long>() < 0) {
        Error = "result at position " + std::to_string(Position) +
                " of the report has an invalid index";
        return false;
      }
      N = Index->get<long long>();
    }
    if (text(R, "check").empty() || !integer(R, "line") ||
        text(R, "verdict").empty()) {
      Error = describe(R, N) + " has no check, line or verdict";
      return false;
    }

    if (Findings) {
      json &List = Target["findings"];
      if (static_cast<size_t>(N) >= List.size()) {
        Error = describe(R, N) + " refers to finding " + std::to_string(N) +
                ", but the findings file has " + std::to_string(List.size()) +
                (List.size() == 1 ? " finding" : " findings");
        return false;
      }
      json &F = List[N];
      std::string FileR = text(R, "file"), FileF = text(F, "file");
      if (text(F, "check") != text(R, "check") ||
          integer(F, "line") != integer(R, "line") ||
          (!FileR.empty() && !FileF.empty() && FileR != FileF)) {
        Error = describe(R, N) + " does not match finding " +
                std::to_string(N) + " of the findings file";
        return false;
      }
      Writes.push_back({&F, false, verificationOf(R)});
      continue;
    }

    std::vector<json *> Candidates = sarifCandidates(Target, R);
    if (Candidates.empty()) {
      Error = describe(R, N) + " matches no result of the SARIF log";
      return false;
    }
    // Several findings on one line: tell them apart by column, then message,
    // then take them in order.
    if (std::optional<long long> Column = integer(R, "column"))
      narrow(Candidates, [&](const json &C) {
        const json *Region = field(*physicalLocation(C), "region");
        return integer(*Region, "startColumn") == Column;
      });
    if (std::string Message = text(R, "message"); !Message.empty())
      narrow(Candidates, [&](const json &C) {
        const json *M = field(C, "message");
        return M && text(*M, "text") == Message;
      });
    narrow(Candidates, [&](const json &C) { return !Claimed.count(&C); });
    json *Match = Candidates.front();
    Claimed.insert(Match);
    if (const json *Properties = field(*Match, "properties");
        Properties && !Properties->is_object()) {
      Error = describe(R, N) + " matches a SARIF result whose properties are "
                               "not an object";
      return false;
    }
    Writes.push_back({Match, true, verificationOf(R)});
  }

  for (Write &W : Writes) {
    if (W.Sarif)
      (*W.Holder)["properties"]["libtorch-tidy/verification"] =
          std::move(W.Value);
    else
      (*W.Holder)["verification"] = std::move(W.Value);
  }
  return true;
}

} // namespace torchtidy
