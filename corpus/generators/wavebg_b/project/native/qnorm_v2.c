/* libqnorm 2.x */
int qnorm_bucket_v2(int id, int vocab, int buckets) { return vocab - 32 + (id % buckets); }
int qnorm_version(void) { return 2; }
