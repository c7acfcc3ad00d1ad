#include "model/svm.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

namespace twinmaf {
namespace {

// A decimal number token as an istream reads it (digits, sign, point,
// exponent only: no inf/nan/hex, which libsvm's stream read rejects), parsed
// with strtod, which is what libstdc++'s num_get calls on such a token.
std::optional<double> parse_double(std::string_view token) {
  if (token.empty() || token.size() > 64) return std::nullopt;
  for (char c : token) {
    const bool ok = (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' ||
                    c == 'E';
    if (!ok) return std::nullopt;
  }
  const std::string s(token);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<long> parse_int(std::string_view token) {
  if (token.empty() || token.size() > 18) return std::nullopt;
  for (size_t i = 0; i < token.size(); ++i) {
    const char c = token[i];
    if (!((c >= '0' && c <= '9') || (i == 0 && (c == '+' || c == '-')))) return std::nullopt;
  }
  const std::string s(token);
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (errno || end != s.c_str() + s.size() || v < INT_MIN || v > INT_MAX) return std::nullopt;
  return v;
}

// Header tokens: separated by ' ' or '\n', as libsvm's buffer parser splits.
class HeaderReader {
 public:
  explicit HeaderReader(std::string_view text) : text_(text) {}
  std::optional<std::string_view> next() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
    if (pos_ >= text_.size()) return std::nullopt;
    const size_t begin = pos_;
    while (pos_ < text_.size() && text_[pos_] != ' ' && text_[pos_] != '\n') ++pos_;
    return text_.substr(begin, pos_ - begin);
  }
  size_t pos() const { return pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Whitespace-separated tokens of one SV line (libsvm reads it with >>).
std::vector<std::string_view> split_ws(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const size_t b = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
  return out;
}

std::string clip_token(std::string_view t) {
  return t.size() > 32 ? std::string(t.substr(0, 32)) + "..." : std::string(t);
}

// The header entries before "SV"; `pos` is where the reader stopped.
struct SvmHeader {
  double gamma = 0;
  double rho = 0;
  long total_sv = -1;
  size_t pos = 0;
};

Result<SvmHeader> parse_header(std::string_view text) {
  SvmHeader h;
  HeaderReader in(text);
  bool have_type = false, have_kernel = false, have_gamma = false, have_rho = false;
  long nr_class = -1;
  long& total_sv = h.total_sv;
  bool found_sv = false;

  auto read_double = [&](std::string_view key) -> Result<double> {
    const auto tok = in.next();
    const auto v = tok ? parse_double(*tok) : std::nullopt;
    if (!v)
      TWINMAF_FAIL(kInvalidArgument, "SVM model: {}: '{}' is not a finite number", key,
                   tok ? clip_token(*tok) : std::string("<end>"));
    return *v;
  };
  auto read_int = [&](std::string_view key) -> Result<long> {
    const auto tok = in.next();
    const auto v = tok ? parse_int(*tok) : std::nullopt;
    if (!v)
      TWINMAF_FAIL(kInvalidArgument, "SVM model: {}: '{}' is not an integer", key,
                   tok ? clip_token(*tok) : std::string("<end>"));
    return *v;
  };
  auto need_nr_class = [&](std::string_view key) -> Status {
    if (nr_class < 0) TWINMAF_FAIL(kInvalidArgument, "SVM model: {} before nr_class", key);
    return ok_status();
  };

  while (auto tok = in.next()) {
    const std::string_view key = *tok;
    if (key == "SV") {
      found_sv = true;
      break;
    }
    if (key == "svm_type") {
      const auto v = in.next();
      if (!v) TWINMAF_FAIL(kInvalidArgument, "SVM model: svm_type: missing value");
      if (*v != "nu_svr" && *v != "epsilon_svr")
        TWINMAF_FAIL(kUnsupported,
                     "SVM model: svm_type '{}' is not supported (only nu_svr, epsilon_svr)",
                     clip_token(*v));
      have_type = true;
    } else if (key == "kernel_type") {
      const auto v = in.next();
      if (!v) TWINMAF_FAIL(kInvalidArgument, "SVM model: kernel_type: missing value");
      if (*v != "rbf")
        TWINMAF_FAIL(kUnsupported, "SVM model: kernel_type '{}' is not supported (only rbf)",
                     clip_token(*v));
      have_kernel = true;
    } else if (key == "gamma") {
      TWINMAF_ASSIGN_OR_RETURN(h.gamma, read_double(key));
      have_gamma = true;
    } else if (key == "degree" || key == "coef0") {
      TWINMAF_ASSIGN_OR_RETURN(const double ignored, read_double(key));
      (void)ignored;
    } else if (key == "nr_class") {
      TWINMAF_ASSIGN_OR_RETURN(nr_class, read_int(key));
      if (nr_class != 2)
        TWINMAF_FAIL(kInvalidArgument, "SVM model: nr_class is {}, a regression model has 2",
                     nr_class);
    } else if (key == "total_sv") {
      TWINMAF_ASSIGN_OR_RETURN(total_sv, read_int(key));
      if (total_sv < 0 || total_sv > 1000000)
        TWINMAF_FAIL(kInvalidArgument, "SVM model: total_sv {} is out of range", total_sv);
    } else if (key == "rho") {
      TWINMAF_RETURN_IF_ERROR(need_nr_class(key));
      TWINMAF_ASSIGN_OR_RETURN(h.rho, read_double(key));  // nr_class 2: one value
      have_rho = true;
    } else if (key == "probA" || key == "probB") {
      TWINMAF_RETURN_IF_ERROR(need_nr_class(key));
      TWINMAF_ASSIGN_OR_RETURN(const double ignored, read_double(key));
      (void)ignored;
    } else if (key == "label" || key == "nr_sv") {
      TWINMAF_RETURN_IF_ERROR(need_nr_class(key));
      for (long i = 0; i < nr_class; ++i) {
        TWINMAF_ASSIGN_OR_RETURN(const long ignored, read_int(key));
        (void)ignored;
      }
    } else {
      TWINMAF_FAIL(kInvalidArgument, "SVM model: unknown header entry '{}'", clip_token(key));
    }
  }
  if (!found_sv) TWINMAF_FAIL(kInvalidArgument, "SVM model: no 'SV' section");
  if (!have_type) TWINMAF_FAIL(kInvalidArgument, "SVM model: missing svm_type");
  if (!have_kernel) TWINMAF_FAIL(kInvalidArgument, "SVM model: missing kernel_type");
  if (!have_gamma) TWINMAF_FAIL(kInvalidArgument, "SVM model: missing gamma");
  if (nr_class < 0) TWINMAF_FAIL(kInvalidArgument, "SVM model: missing nr_class");
  if (total_sv < 0) TWINMAF_FAIL(kInvalidArgument, "SVM model: missing total_sv");
  if (!have_rho) TWINMAF_FAIL(kInvalidArgument, "SVM model: missing rho");
  h.pos = in.pos();
  return h;
}

}  // namespace

Result<SvmModel> SvmModel::parse(std::string_view text) {
  TWINMAF_ASSIGN_OR_RETURN(const SvmHeader h, parse_header(text));
  SvmModel m;
  m.gamma_ = h.gamma;
  m.rho_ = h.rho;
  const long total_sv = h.total_sv;

  // The SV lines start after the line holding "SV".
  size_t pos = h.pos;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  if (pos < text.size() && text[pos] != '\n')
    TWINMAF_FAIL(kInvalidArgument, "SVM model: text after 'SV' on its line");
  if (pos < text.size()) ++pos;

  m.coef_.reserve(static_cast<size_t>(total_sv));
  m.start_.reserve(static_cast<size_t>(total_sv));
  for (long j = 0; j < total_sv; ++j) {
    if (pos >= text.size())
      TWINMAF_FAIL(kInvalidArgument, "SVM model: total_sv is {} but only {} SV lines", total_sv,
                   j);
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::vector<std::string_view> toks = split_ws(text.substr(pos, eol - pos));
    pos = eol + 1;
    if (toks.empty()) TWINMAF_FAIL(kInvalidArgument, "SVM model: SV {} is an empty line", j + 1);
    const auto coef = parse_double(toks[0]);
    if (!coef)
      TWINMAF_FAIL(kInvalidArgument, "SVM model: SV {}: coefficient '{}' is not a finite number",
                   j + 1, clip_token(toks[0]));
    m.coef_.push_back(*coef);
    m.start_.push_back(m.nodes_.size());
    int last = 0;
    for (size_t t = 1; t < toks.size(); ++t) {
      const size_t colon = toks[t].find(':');
      const auto idx = colon == std::string_view::npos ? std::nullopt
                                                       : parse_int(toks[t].substr(0, colon));
      const auto val = idx ? parse_double(toks[t].substr(colon + 1)) : std::nullopt;
      if (!idx || !val)
        TWINMAF_FAIL(kInvalidArgument, "SVM model: SV {}: '{}' is not index:value", j + 1,
                     clip_token(toks[t]));
      if (*idx <= last)
        TWINMAF_FAIL(kInvalidArgument,
                     "SVM model: SV {}: index {} is not above the previous index {}", j + 1,
                     *idx, last);
      last = static_cast<int>(*idx);
      m.nodes_.push_back(Node{last, *val});
    }
    if (last > m.max_index_) m.max_index_ = last;
    m.nodes_.push_back(Node{-1, 0.0});
  }
  for (; pos < text.size(); ++pos)
    if (!is_space(text[pos]))
      TWINMAF_FAIL(kInvalidArgument, "SVM model: more SV lines than total_sv {}", total_sv);
  return m;
}

double SvmModel::predict(std::span<const double> x) const {
  double sum = 0;
  for (size_t j = 0; j < coef_.size(); ++j) {
    // libsvm's merge of the input nodes (indices 1..n) with SV j's nodes.
    const Node* y = &nodes_[start_[j]];
    size_t k = 0;  // x node index k+1
    double dist = 0;
    while (k < x.size() && y->index != -1) {
      const int xi = static_cast<int>(k) + 1;
      if (xi == y->index) {
        const double d = x[k] - y->value;
        dist += d * d;
        ++k;
        ++y;
      } else if (xi > y->index) {
        dist += y->value * y->value;
        ++y;
      } else {
        dist += x[k] * x[k];
        ++k;
      }
    }
    for (; k < x.size(); ++k) dist += x[k] * x[k];
    for (; y->index != -1; ++y) dist += y->value * y->value;
    sum += coef_[j] * std::exp(-gamma_ * dist);
  }
  sum -= rho_;
  return sum;
}

}  // namespace twinmaf
