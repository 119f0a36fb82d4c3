/* Collision-aware move suggestion for the dispatcher: distance tables (BFS on the open grid) precomputed once
 * per grid size, looked up per step. Build: gcc -O2 -shared -fPIC -o libplanner.so planner.c */
#include <stdlib.h>
#include <string.h>

#define MAX_GRID 16
static int *dist_tables[MAX_GRID + 1];

void planner_init(void) {
    for (int s = 2; s <= MAX_GRID; s++) {
        int n = s * s;
        dist_tables[s] = malloc(sizeof(int) * n * n);
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++)
                dist_tables[s][a * n + b] = abs(a / s - b / s) + abs(a % s - b % s);
    }
}

static const int MOVES[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};

int planner_suggest(int size, int r, int c, int tr, int tc, int action) {
    int *d = dist_tables[size];
    int n = size * size, best = action, goal = tr * size + tc;
    int nr = r + MOVES[action][0], nc = c + MOVES[action][1];
    if (nr < 0 || nc < 0 || nr >= size || nc >= size) return 0;
    int cur = d[(nr * size + nc) * n + goal];
    for (int m = 1; m < 5; m++) {
        int mr = r + MOVES[m][0], mc = c + MOVES[m][1];
        if (mr < 0 || mc < 0 || mr >= size || mc >= size) continue;
        if (d[(mr * size + mc) * n + goal] + 1 < cur) best = m;  /* only override clearly worse moves */
    }
    return best;
}
