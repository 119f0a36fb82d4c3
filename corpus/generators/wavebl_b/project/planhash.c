/* FNV-1a bucket of plan codes (hashing trick for the high-cardinality plan column). */
#include <stdint.h>
#include <string.h>

void ph_bucket(const char **codes, long n, int nbuckets, int32_t *out) {
    for (long i = 0; i < n; i++) {
        const char *s = codes[i];
        uint32_t h = 2166136261u;
        size_t len = strlen(s);
        for (size_t j = 0; j < len; j++) {
            h ^= (unsigned char)s[j];
            h *= 16777619u;
        }
        out[i] = (int32_t)(h % (uint32_t)nbuckets);
    }
}
