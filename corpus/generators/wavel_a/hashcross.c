/* Hashed cross features for the CTR model: for every row, every pair of categorical columns is hashed into one of
 * nbuckets rows of the cross-feature table. Collisions per bucket are counted in a fixed table for the stats line.
 * Built at start-up by ctr_train.py (cc -O2 -shared -fPIC). */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#define MAX_BUCKETS 65536
static int64_t hits[MAX_BUCKETS];

int64_t hash_cross(const int64_t *cats, int64_t n, int64_t ncols, int64_t nbuckets, int64_t *out) {
    assert(nbuckets <= MAX_BUCKETS && "cross-feature table larger than the collision counter");
    int64_t k = 0, collisions = 0;
    memset(hits, 0, sizeof(hits));
    for (int64_t r = 0; r < n; r++) {
        const int64_t *row = cats + r * ncols;
        for (int64_t i = 0; i < ncols; i++)
            for (int64_t j = i + 1; j < ncols; j++) {
                uint64_t h = (uint64_t)row[i] * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)row[j] + (uint64_t)(i * 31 + j)) * 0xC2B2AE3D27D4EB4FULL;
                h ^= h >> 29;
                int64_t b = (int64_t)(h % (uint64_t)nbuckets);
                if (hits[b]++) collisions++;
                out[k++] = b;
            }
    }
    return collisions;
}
