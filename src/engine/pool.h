/*
 * pool.h - a persistent pool of worker threads for the planned forward
 * and the trainers. Created once (with the plan, the trainer, the language
 * model's batch); each pool_run hands out tasks to the caller and the
 * workers and returns when all are done, so a forward or a training step
 * pays no thread start-up.
 */
#ifndef POOL_H
#define POOL_H

struct pool;

/* fn(ctx, task, thread): task in [0, ntasks), thread in [0, threads)
 * (0 is the caller). Tasks are handed out in order, one at a time, to
 * whichever thread is free: uneven tasks still balance. */
typedef void pool_fn(void *ctx, int task, int thread);

/* threads >= 1 (1: no worker, pool_run runs inline). NULL when a thread
 * or the memory could not be had. */
struct pool *pool_create(int threads);
void pool_destroy(struct pool *p);
int pool_threads(const struct pool *p);
void pool_run(struct pool *p, pool_fn *fn, void *ctx, int ntasks);

#endif
