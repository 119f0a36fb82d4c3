/* Amino-acid composition of a chain (fraction of each of the 20 standard residues, X for the rest), written into
 * out[21]. Built as libcomposition.so and called through ctypes by ss.py --composition native. */
#include <string.h>

static const char ALPHABET[] = "ACDEFGHIKLMNPQRSTVWYXUBZO";  /* X, U, B, Z, O count as unknown */

int composition(const char *seq, int n, float *out)
{
    int counts[25];
    int i, k, known = 0;

    memset(counts, 0, sizeof(counts));
    for (i = 0; i < n; i++) {
        k = strchr(ALPHABET, seq[i]) - ALPHABET; /* residue letters are upper case in the export */
        counts[k]++;
    }
    for (i = 0; i < 21; i++)
        out[i] = 0.0f;
    for (i = 0; i < 25; i++) {
        out[i < 20 ? i : 20] += (float)counts[i];
        known += counts[i];
    }
    for (i = 0; i < 21; i++)
        out[i] = known ? out[i] / (float)known : 0.0f;
    return known;
}
