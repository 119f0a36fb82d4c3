/* Validation AUC by counting sort over quantised scores (the ps calls it through ctypes with --fast-auc).
 * Build: gcc -O2 -shared -fPIC -o libfastauc.so fastauc.c */
#include <string.h>

#define BUCKETS 4096
#define MAX_ROWS 65536  /* validation rows per call */

double auc_by_buckets(const float *scores, const float *labels, long n) {
    unsigned short bucket[MAX_ROWS];
    double pos[BUCKETS], neg[BUCKETS];
    memset(pos, 0, sizeof pos);
    memset(neg, 0, sizeof neg);
    for (long i = 0; i < n; i++) {
        int b = (int)(scores[i] * (BUCKETS - 1));
        if (b < 0) b = 0;
        if (b >= BUCKETS) b = BUCKETS - 1;
        bucket[i] = (unsigned short)b;
    }
    for (long i = 0; i < n; i++) {
        if (labels[i] > 0.5f) pos[bucket[i]] += 1.0; else neg[bucket[i]] += 1.0;
    }
    double below = 0.0, area = 0.0, tp = 0.0;
    for (int b = 0; b < BUCKETS; b++) {
        area += pos[b] * (below + 0.5 * neg[b]);
        below += neg[b];
        tp += pos[b];
    }
    return (tp > 0 && below > 0) ? area / (tp * below) : 0.5;
}
