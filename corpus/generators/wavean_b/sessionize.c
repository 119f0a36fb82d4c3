/* Split one user's check-in times into sessions: a new session starts after a gap longer than max_gap seconds.
   out[i] = 1 where check-in i starts a session. Returns the number of sessions. */
#include <assert.h>

int sessionize(const long long *ts, int n, long long max_gap, int *out)
{
    assert(n > 0);
    int sessions = 1;
    out[0] = 1;
    for (int i = 1; i < n; i++) {
        out[i] = (ts[i] - ts[i - 1]) > max_gap;
        sessions += out[i];
    }
    return sessions;
}
