/* Candidate ranking helper for evaluation: rank of the target among a row of candidate scores.
 * Build: gcc -O2 -shared -fPIC -o libtopk.so topk.c */
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n, k;
    float *buf;
} Ranker;

Ranker *ranker_new(int n, int k) {
    Ranker *r = malloc(sizeof(Ranker));
    r->n = n;
    r->k = k;
    r->buf = malloc(sizeof(float) * (size_t)n);
    return r;
}

/* rows x n scores, the target in column 0; writes each row's 0-based rank of the target */
int ranker_rank(Ranker *r, const float *scores, int rows, int *out) {
    int hits = 0;
    for (int i = 0; i < rows; i++) {
        memcpy(r->buf, scores + (size_t)i * r->n, sizeof(float) * (size_t)r->n);
        float t = r->buf[0];
        int rank = 0;
        for (int j = 1; j < r->n; j++)
            rank += r->buf[j] > t;
        out[i] = rank;
        hits += rank < r->k;
    }
    return hits;
}

void ranker_free(Ranker *r) {
    free(r->buf);
    free(r);
}
