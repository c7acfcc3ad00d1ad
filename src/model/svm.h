// Support-vector regression with an RBF kernel: the part of libsvm that VMAF
// models use, exact to libvmaf f85a8536 (src/svm.cpp: the buffer model parser,
// Kernel::k_function for RBF, svm_predict_values for the regression types).
//
// Model text (libsvm's model file format, as embedded in a VMAF JSON "model"):
//   header  "key value..." tokens separated by ' ' or '\n' up to the token "SV":
//           svm_type (nu_svr | epsilon_svr), kernel_type rbf, gamma, nr_class 2,
//           total_sv, rho (one value); degree/coef0/label/probA/probB/nr_sv are
//           read and ignored (they do not enter a regression prediction).
//   body    total_sv lines "coef idx:value idx:value ...", indices >= 1 and
//           strictly increasing (sparse: an absent index is a zero).
// Numbers are read as libsvm reads them (an istream, i.e. strtod of the
// token); every value must be finite.
//
// Numeric contract of predict(x) (x[k] is the value of node index k+1):
//   for each SV j in file order: s_j = sum over indices in increasing order of
//     (x_k - sv_jk)^2, or x_k^2 / sv_jk^2 where only one side has the index
//     (libsvm's merge of two sparse lists; each term added to one double in
//     that order); k_j = exp(-gamma * s_j) (libm exp);
//   y = (((0 + c_0 k_0) + c_1 k_1) + ...) - rho.
// All in double, no FMA (the build uses -ffp-contract=off).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace twinmaf {

class SvmModel {
 public:
  SvmModel() = default;
  // Parses libsvm model text; errors are one line ("SVM model: ...").
  static Result<SvmModel> parse(std::string_view text);

  // Regression output for the dense input x (node indices 1..x.size()).
  double predict(std::span<const double> x) const;

  double gamma() const { return gamma_; }
  double rho() const { return rho_; }
  size_t sv_count() const { return coef_.size(); }
  // Largest node index any SV uses (0 if none).
  int max_index() const { return max_index_; }

 private:
  struct Node {
    int index;  // >= 1; -1 terminates an SV
    double value;
  };
  double gamma_ = 0.0;
  double rho_ = 0.0;
  int max_index_ = 0;
  std::vector<double> coef_;    // one per SV
  std::vector<size_t> start_;   // SV j's nodes begin at nodes_[start_[j]]
  std::vector<Node> nodes_;     // all SVs, each terminated by index -1
};

}  // namespace twinmaf
