/* In-place per-column standardisation of a row-major float32 feature block. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int fn_standardize(float *x, int64_t rows, int64_t dim) {
    if (rows <= 0 || dim <= 0) return -1;
    double *mu = calloc(dim, sizeof(double)), *sd = calloc(dim, sizeof(double));
    if (!mu || !sd) return -2;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < dim; c++) mu[c] += x[r * dim + c];
    for (int64_t c = 0; c < dim; c++) mu[c] /= rows;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < dim; c++) { double d = x[r * dim + c] - mu[c]; sd[c] += d * d; }
    for (int64_t c = 0; c < dim; c++) sd[c] = sqrt(sd[c] / rows) + 1e-6;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < dim; c++) x[r * dim + c] = (float)((x[r * dim + c] - mu[c]) / sd[c]);
    free(mu); free(sd);
    return 0;
}
