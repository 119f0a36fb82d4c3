/* libqtok: fold rare token ids (the top 32 of the vocabulary) onto shared buckets (libqnorm >= 2). */
extern int qnorm_bucket_v2(int id, int vocab, int buckets);

int qtok_fold(int *ids, int n, int vocab) {
    int folded = 0;
    for (int i = 0; i < n; i++) {
        if (ids[i] >= vocab - 32) {
            ids[i] = qnorm_bucket_v2(ids[i], vocab, 8);
            folded++;
        }
    }
    return folded;
}
