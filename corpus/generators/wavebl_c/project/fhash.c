/* fhash: hash categorical feature strings of a batch into embedding buckets (used by the data loader via ctypes). */
#include <assert.h>
#include <stdint.h>

#define FH_MAX_BUCKETS (1 << 20)

static uint64_t fnv1a(const unsigned char *s, int32_t n, uint64_t seed)
{
    uint64_t h = 1469598103934665603ULL ^ seed;
    for (int32_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* out[i] = hash(strings[i]) % buckets, where string i starts at base + offsets[i] and has lens[i] bytes. */
int fh_hash(const char *base, const int64_t *offsets, const int32_t *lens, int n, int64_t buckets, int slot,
            int64_t *out)
{
    assert(buckets > 0 && buckets <= FH_MAX_BUCKETS);
    for (int i = 0; i < n; i++)
        out[i] = (int64_t)(fnv1a((const unsigned char *)(base + offsets[i]), lens[i], (uint64_t)slot) % (uint64_t)buckets);
    return n;
}
