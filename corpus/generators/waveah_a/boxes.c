/* Lesion bounding boxes for seg3d.py: 6-connected components of each non-zero label, one row per component:
   label, zmin, ymin, xmin, zmax, ymax, xmax. Build: gcc -O2 -fstack-protector-strong -shared -fPIC -o libboxes.so boxes.c */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define MAX_LESION 4096  /* voxels: lesions are small */

static int fill(const uint8_t *lab, uint8_t *seen, int D, int H, int W, int z0, int y0, int x0, int *box) {
    int stack[3 * MAX_LESION];
    int top = 0, n = 0;
    uint8_t c = lab[(z0 * H + y0) * W + x0];
    stack[top++] = z0; stack[top++] = y0; stack[top++] = x0;
    seen[(z0 * H + y0) * W + x0] = 1;
    box[0] = z0; box[1] = y0; box[2] = x0; box[3] = z0; box[4] = y0; box[5] = x0;
    while (top > 0) {
        int x = stack[--top], y = stack[--top], z = stack[--top];
        static const int d[6][3] = {{1,0,0},{-1,0,0},{0,1,0},{0,-1,0},{0,0,1},{0,0,-1}};
        n++;
        if (z < box[0]) box[0] = z; if (y < box[1]) box[1] = y; if (x < box[2]) box[2] = x;
        if (z > box[3]) box[3] = z; if (y > box[4]) box[4] = y; if (x > box[5]) box[5] = x;
        for (int k = 0; k < 6; k++) {
            int zz = z + d[k][0], yy = y + d[k][1], xx = x + d[k][2];
            if (zz < 0 || yy < 0 || xx < 0 || zz >= D || yy >= H || xx >= W) continue;
            int i = (zz * H + yy) * W + xx;
            if (seen[i] || lab[i] != c) continue;
            seen[i] = 1;
            stack[top++] = zz; stack[top++] = yy; stack[top++] = xx;
        }
    }
    return n;
}

int lesion_boxes(const uint8_t *lab, int D, int H, int W, int *out, int max_out) {
    uint8_t *seen = calloc((size_t)D * H * W, 1);
    int n = 0;
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int i = (z * H + y) * W + x;
                if (!lab[i] || seen[i]) continue;
                int box[6];
                fill(lab, seen, D, H, W, z, y, x, box);
                if (n < max_out) {
                    out[n * 7] = lab[i];
                    memcpy(out + n * 7 + 1, box, sizeof box);
                }
                n++;
            }
    free(seen);
    return n;
}
