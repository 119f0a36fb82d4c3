/* Daily demand sampler for the inventory-control environment (loaded with ctypes).
 * Build: gcc -O2 -shared -fPIC -o libdemand.so demand.c -lm
 * A small xorshift generator per environment, Poisson demand (by inversion) and negative-binomial
 * demand (Poisson-gamma, sampled by inverting a cumulative table built per call). */
#include <math.h>
#include <stdint.h>

typedef struct { uint64_t s; } rng_t;

static double uniform(rng_t *r) {
    r->s ^= r->s << 13; r->s ^= r->s >> 7; r->s ^= r->s << 17;
    return (double)(r->s >> 11) * (1.0 / 9007199254740992.0);
}

void demand_seed(rng_t *r, uint64_t seed) { r->s = seed * 2654435761ULL + 88172645463325252ULL; if (!r->s) r->s = 1; }

/* Inversion: walk the probability mass function up from k = 0 until the cumulative sum passes a uniform. */
static long poisson(rng_t *r, double mean) {
    double pmf = exp(-mean), cum = pmf, u = uniform(r);
    long k = 0;
    while (cum < u) { k++; pmf *= mean / k; cum += pmf; }
    return k;
}

/* Negative binomial with mean m and dispersion k (variance m + m^2/k): the cumulative table up to where it reaches
 * 1 - 1e-9, then one inversion. Daily demand never goes much past a few hundred units. */
static long negbin(rng_t *r, double mean, double disp) {
    double cdf[512];
    double p = disp / (disp + mean);
    double pmf = pow(p, disp), cum = pmf;
    long n = 0;
    cdf[n++] = cum;
    while (cum < 1.0 - 1e-9) {
        pmf *= (n - 1 + disp) / n * (1.0 - p);
        cum += pmf;
        cdf[n++] = cum;
    }
    double u = uniform(r);
    long k = 0;
    while (k < n - 1 && cdf[k] < u) k++;
    return k;
}

/* Fill out[0..days) with one SKU's demand; model 0 = Poisson, 1 = negative binomial. */
void demand_sample(rng_t *r, int model, double mean, double disp, long *out, int days) {
    for (int d = 0; d < days; d++)
        out[d] = model == 1 ? negbin(r, mean, disp) : poisson(r, mean);
}
