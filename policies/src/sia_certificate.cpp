#include "sia_certificate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace vnsim {
namespace {

using Point = std::array<double, 2>;

// Keeps the part of the convex polygon where a . mu <= b (Sutherland-Hodgman
// against one half-plane). `slack` widens the half-plane a little, so that
// a polygon that is a point or a segment in exact arithmetic is not lost to
// rounding; the bound is checked at the prices found anyway.
void clip(std::vector<Point>& poly, std::vector<Point>& out, const Point& a, double b) {
  const double slack = 1e-12 * (1 + std::abs(b));
  out.clear();
  const std::size_t n = poly.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Point& p = poly[i];
    const Point& q = poly[(i + 1) % n];
    const double fp = a[0] * p[0] + a[1] * p[1] - b - slack;
    const double fq = a[0] * q[0] + a[1] * q[1] - b - slack;
    if (fp <= 0) out.push_back(p);
    if ((fp < 0 && fq > 0) || (fp > 0 && fq < 0)) {
      const double s = fp / (fp - fq);
      out.push_back(Point{p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])});
    }
  }
  poly.swap(out);
}

Point unit(int type, double gpus) {
  Point e{0, 0};
  e[static_cast<std::size_t>(type)] = gpus;
  return e;
}

// L(mu), with a price below 0 (by the slack) taken as 0 and the price of a
// type that has room in the start (its constraint mu_t <= 0) as 0 too.
double bound_at(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
                const std::vector<int>& capacity, const std::vector<bool>& room, Point mu) {
  for (std::size_t t = 0; t < 2; ++t)
    if (t >= room.size() || room[t] || mu[t] < 0) mu[t] = 0;
  return lagrangian_bound(members, columns, capacity, mu);
}

}  // namespace

double lagrangian_bound(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
                        const std::vector<int>& capacity, const std::array<double, 2>& mu,
                        std::array<double, 2>* slope) {
  double bound = 0;
  if (slope != nullptr) *slope = {0, 0};
  for (std::size_t t = 0; t < capacity.size(); ++t) {
    bound -= mu[t] * capacity[t];
    if (slope != nullptr) (*slope)[t] = -static_cast<double>(capacity[t]);
  }
  for (std::size_t col = 0; col < columns.size();) {
    const std::size_t g = columns[col].group;
    double least = 0;  // no configuration
    const PricedColumn* arg = nullptr;
    for (; col < columns.size() && columns[col].group == g; ++col) {
      const PricedColumn& c = columns[col];
      const double reduced = c.cost + mu[static_cast<std::size_t>(c.type)] * c.gpus;
      if (reduced < least) {
        least = reduced;
        arg = &c;
      }
    }
    const double m = static_cast<double>(members[g]);
    bound += m * least;
    if (slope != nullptr && arg != nullptr) (*slope)[static_cast<std::size_t>(arg->type)] += m * arg->gpus;
  }
  return bound;
}

double start_lower_bound(const std::vector<std::size_t>& members, const std::vector<PricedColumn>& columns,
                         const std::vector<int>& capacity, const std::vector<double>& start) {
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  if (capacity.empty() || capacity.size() > 2 || columns.empty()) return kNone;
  // No price above the largest |cost| per GPU helps: every column of that
  // type then has a reduced cost >= 0, and a higher price only lowers L.
  double top = 1;
  for (const PricedColumn& c : columns) top = std::max(top, std::abs(c.cost) + 1);
  std::vector<Point> poly{{0, 0}, {top, 0}, {top, top}, {0, top}};
  std::vector<Point> spare;
  std::vector<long> used(capacity.size(), 0);
  for (std::size_t col = 0; col < columns.size(); ++col)
    used[static_cast<std::size_t>(columns[col].type)] += std::lround(start[col]) * columns[col].gpus;
  std::vector<bool> room(capacity.size());
  for (std::size_t t = 0; t < 2; ++t)
    if (t >= capacity.size() || used[t] < capacity[t]) {
      if (t < room.size()) room[t] = true;
      clip(poly, spare, unit(static_cast<int>(t), 1), 0);
    }
  for (std::size_t first = 0; first < columns.size() && !poly.empty();) {
    const std::size_t g = columns[first].group;
    std::size_t end = first;
    long taken = 0;
    for (; end < columns.size() && columns[end].group == g; ++end) taken += std::lround(start[end]);
    // Each configuration the start uses (and "none" when some member has
    // none) has the least reduced cost of its group, none's being 0.
    for (std::size_t a = first; a < end && !poly.empty(); ++a) {
      if (std::lround(start[a]) == 0) continue;
      const PricedColumn& ca = columns[a];
      clip(poly, spare, unit(ca.type, ca.gpus), -ca.cost);
      for (std::size_t c = first; c < end && !poly.empty(); ++c) {
        if (c == a) continue;
        const PricedColumn& cc = columns[c];
        Point coef = unit(ca.type, ca.gpus);
        coef[static_cast<std::size_t>(cc.type)] -= cc.gpus;
        clip(poly, spare, coef, cc.cost - ca.cost);
      }
    }
    if (taken < static_cast<long>(members[g]))
      for (std::size_t c = first; c < end && !poly.empty(); ++c)
        clip(poly, spare, unit(columns[c].type, -columns[c].gpus), columns[c].cost);
    first = end;
  }
  if (poly.empty()) return kNone;
  Point mean{0, 0};
  double best = kNone;
  for (const Point& p : poly) {
    best = std::max(best, bound_at(members, columns, capacity, room, p));
    mean[0] += p[0] / static_cast<double>(poly.size());
    mean[1] += p[1] / static_cast<double>(poly.size());
  }
  return std::max(best, bound_at(members, columns, capacity, room, mean));
}

}  // namespace vnsim
