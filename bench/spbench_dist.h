/* spbench --ranks N / --gpus LIST: the distributed layer (include/sp_dist.h) on simulated
 * ranks or NCCL GPUs against the single-context calls of the same run. */
#ifndef SPBENCH_DIST_H
#define SPBENCH_DIST_H

/* 1 when argv asks for the distributed benchmark (--ranks or --gpus). */
int sb_dist_wanted(int argc, char **argv);
/* The whole distributed run; the process's exit status (0: every check passed). */
int sb_dist_main(int argc, char **argv);

#endif /* SPBENCH_DIST_H */
