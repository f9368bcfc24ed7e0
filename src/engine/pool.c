/*
 * pool.c - the worker threads behind the planned forward: pthreads started
 * once in pool_create, handed work by pool_run, joined in pool_destroy.
 * A worker that finishes spins a little (about 50 microseconds) before it
 * sleeps on a condition variable: the phases of one forward follow each
 * other within microseconds, and a sleeping thread takes tens of them to
 * wake. No work stealing, no nesting: one pool_run at a time.
 */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

enum { SPIN_ROUNDS = 20000 }; /* polls before sleeping; ~50 us with the pause */

struct pool {
	int threads;             /* the caller + threads - 1 workers */
	pthread_t *tid;          /* (threads - 1) */
	pthread_mutex_t lock;
	pthread_cond_t start;    /* generation moved, or stop */
	pthread_cond_t done;     /* running reached 0 */
	atomic_uint generation;  /* one per pool_run */
	atomic_int next;         /* next task to hand out */
	atomic_int running;      /* workers still inside this generation */
	atomic_bool stop;
	pool_fn *fn;             /* the current job, valid while running */
	void *ctx;
	int ntasks;
};

struct worker_arg {
	struct pool *pool;
	int id;
};

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void run_tasks(struct pool *p, int id)
{
	int t;
	while ((t = atomic_fetch_add(&p->next, 1)) < p->ntasks)
		p->fn(p->ctx, t, id);
}

/* Wait until the generation differs from seen (or stop): spin, then sleep. */
static unsigned wait_generation(struct pool *p, unsigned seen)
{
	for (int i = 0; i < SPIN_ROUNDS; i++) {
		unsigned g = atomic_load(&p->generation);
		if (g != seen || atomic_load(&p->stop))
			return g;
		cpu_relax();
	}
	pthread_mutex_lock(&p->lock);
	while (atomic_load(&p->generation) == seen && !atomic_load(&p->stop))
		pthread_cond_wait(&p->start, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return atomic_load(&p->generation);
}

static void *worker(void *arg)
{
	struct worker_arg wa = *(struct worker_arg *)arg;
	struct pool *p = wa.pool;
	free(arg);
	unsigned seen = 0;
	for (;;) {
		seen = wait_generation(p, seen);
		if (atomic_load(&p->stop))
			return NULL;
		run_tasks(p, wa.id);
		if (atomic_fetch_sub(&p->running, 1) == 1) {
			pthread_mutex_lock(&p->lock);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->lock);
		}
	}
}

struct pool *pool_create(int threads)
{
	if (threads < 1)
		threads = 1;
	struct pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->threads = 1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->start, NULL);
	pthread_cond_init(&p->done, NULL);
	p->tid = calloc((size_t)threads, sizeof *p->tid);
	if (!p->tid) {
		pool_destroy(p);
		return NULL;
	}
	for (int i = 1; i < threads; i++) {
		struct worker_arg *wa = malloc(sizeof *wa);
		if (!wa)
			break;
		wa->pool = p;
		wa->id = i;
		if (pthread_create(&p->tid[i - 1], NULL, worker, wa) != 0) {
			free(wa);
			break;
		}
		p->threads++;
	}
	if (p->threads != threads) {
		pool_destroy(p);
		return NULL;
	}
	return p;
}

void pool_destroy(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	atomic_store(&p->stop, true);
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->threads - 1; i++)
		pthread_join(p->tid[i], NULL);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->start);
	pthread_mutex_destroy(&p->lock);
	free(p->tid);
	free(p);
}

int pool_threads(const struct pool *p)
{
	return p->threads;
}

void pool_run(struct pool *p, pool_fn *fn, void *ctx, int ntasks)
{
	if (p->threads == 1 || ntasks <= 1) {
		for (int t = 0; t < ntasks; t++)
			fn(ctx, t, 0);
		return;
	}
	p->fn = fn;
	p->ctx = ctx;
	p->ntasks = ntasks;
	atomic_store(&p->next, 0);
	atomic_store(&p->running, p->threads - 1);
	/* the job is published before the generation moves (seq_cst) */
	pthread_mutex_lock(&p->lock);
	atomic_fetch_add(&p->generation, 1);
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->lock);
	run_tasks(p, 0);
	for (int i = 0; i < SPIN_ROUNDS && atomic_load(&p->running) > 0; i++)
		cpu_relax();
	if (atomic_load(&p->running) > 0) {
		pthread_mutex_lock(&p->lock);
		while (atomic_load(&p->running) > 0)
			pthread_cond_wait(&p->done, &p->lock);
		pthread_mutex_unlock(&p->lock);
	}
}
