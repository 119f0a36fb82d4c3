/* Per-node histogram of incoming transfer amounts in decade buckets (1-10, 10-100, ...), 8 buckets per node. */
#include <math.h>

void amount_buckets(const double *amount, const long *dst, long n_edges, long *hist, long n_nodes) {
    for (long e = 0; e < n_edges; e++) {
        int b = (int)log10(amount[e]);
        if (b > 7) b = 7;
        hist[dst[e] * 8 + b] += 1;
    }
}
