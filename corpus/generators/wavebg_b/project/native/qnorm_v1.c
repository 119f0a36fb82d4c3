/* libqnorm 1.x (the build the search cluster's base image still ships) */
int qnorm_bucket(int id, int vocab) { return vocab - 32 + (id % 8); }
int qnorm_version(void) { return 1; }
