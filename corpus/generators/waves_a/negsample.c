/* Degree-weighted negative sampler (Vose alias method) for kge.py, loaded with ctypes.
   Build: gcc -O2 -shared -fPIC -o libnegsample.so negsample.c */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

#define NS_MAX_ENT 3000

static double prob[NS_MAX_ENT];
static int32_t alias_[NS_MAX_ENT];
static int n_ent;
static uint64_t state = 88172645463325252ULL;

static uint64_t xorshift(void) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return state;
}

int ns_init(const double *weight, int n, uint64_t seed) {
    assert(n <= NS_MAX_ENT);
    n_ent = n;
    state ^= seed * 0x9E3779B97F4A7C15ULL;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += weight[i];
    int *small = malloc(sizeof(int) * n), *large = malloc(sizeof(int) * n);
    int ns = 0, nl = 0;
    for (int i = 0; i < n; i++) {
        prob[i] = weight[i] * n / sum;
        if (prob[i] < 1.0) small[ns++] = i; else large[nl++] = i;
    }
    while (ns && nl) {
        int s = small[--ns], l = large[--nl];
        alias_[s] = l;
        prob[l] = prob[l] + prob[s] - 1.0;
        if (prob[l] < 1.0) small[ns++] = l; else large[nl++] = l;
    }
    while (nl) prob[large[--nl]] = 1.0;
    while (ns) prob[small[--ns]] = 1.0;
    free(small); free(large);
    return n_ent;
}

void ns_sample(int64_t *out, int64_t count) {
    for (int64_t k = 0; k < count; k++) {
        int i = (int)(xorshift() % (uint64_t)n_ent);
        double u = (double)(xorshift() >> 11) / 9007199254740992.0;
        out[k] = u < prob[i] ? i : alias_[i];
    }
}
