/* A kept thread pool for the compiled steps (mjenv.game._step's vector step and a room's own engine): a job over
 * [0, n) runs on k threads, the caller's included, with no Python object touched (the caller releases the GIL).
 * Static functions, included by each extension that uses them. */
#ifndef MJENV_POOL_H
#define MJENV_POOL_H
#include <Python.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

/* POOL_CHUNKS: chunks a thread of a run (the fewer, the less claiming; the more, the evener the split) */
enum { MAX_THREADS = 256, POOL_CHUNKS = 8 };
#define POOL_SPIN_S 200e-6

/* k - 1 kept threads and the caller run a job over [0, n) in chunks of contiguous tables. Each has its own share
 * of the chunks, the same every run (its tables' memos stay in its core's cache), and works through it from the
 * front; when it is done it takes the other shares' last chunks (hands end at different times, and a thread
 * wakes a little after the caller) */
typedef void (*Job)(void *ctx, Py_ssize_t lo, Py_ssize_t hi);
struct Pool;
typedef struct {
    struct Pool *pool;
    int index; /* 1..k-1 (the caller is 0) */
} Worker;
typedef struct Pool {
    int k, started, quit;
    unsigned long gen, busy; /* gen: the runs so far; busy: the threads still working on this one */
    pthread_t th[MAX_THREADS];
    Worker who[MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    Job job;
    void *ctx;
    Py_ssize_t n, chunk;
    uint64_t share[MAX_THREADS]; /* each thread's chunks not yet claimed: (first << 32) | end, chunk indices */
    double cpu[MAX_THREADS]; /* each thread's CPU seconds in the last run */
    double work, critical;   /* over all runs: the CPU seconds of every thread, and of the slowest per run */
    int64_t spun;            /* over all runs: the CPU nanoseconds the threads spent spinning (spin_while) */
} Pool;

static double thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* a chunk of a share, its first (back 0) or its last (back 1) one not yet claimed; -1 when none is left */
static Py_ssize_t claim(uint64_t *share, int back) {
    uint64_t v = __atomic_load_n(share, __ATOMIC_ACQUIRE);
    for (;;) {
        const uint64_t first = v >> 32, end = v & 0xFFFFFFFFu;
        if (first >= end) return -1;
        const uint64_t w = back ? (first << 32) | (end - 1) : ((first + 1) << 32) | end;
        if (__atomic_compare_exchange_n(share, &v, w, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return (Py_ssize_t)(back ? end - 1 : first);
    }
}

/* thread index's part of the run: its own share's chunks, then the others' (a chunk's tables are contiguous, so the
 * writer keeps its one-ahead memory order over each) */
static void pool_work(Pool *p, int index) {
    for (int j = 0; j < p->k; j++) {
        uint64_t *share = &p->share[(index + j) % p->k];
        for (Py_ssize_t c; (c = claim(share, j > 0)) >= 0;) {
            const Py_ssize_t lo = c * p->chunk;
            p->job(p->ctx, lo, lo + p->chunk < p->n ? lo + p->chunk : p->n);
        }
    }
}

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* waits up to POOL_SPIN_S seconds, awake, while *x is v (equal) or while it is not v (!equal): a thread put to sleep
 * and woken again costs tens of microseconds, on a virtual machine's idle core more, and the vector env's steps come
 * a few dozen microseconds apart; then the caller sleeps on its condition */
static void spin_while(Pool *p, const unsigned long *x, unsigned long v, int equal) {
    if ((__atomic_load_n(x, __ATOMIC_ACQUIRE) == v) != equal) return;
    const double t0 = thread_cpu(), until = wall_now() + POOL_SPIN_S;
    for (int i = 1; (__atomic_load_n(x, __ATOMIC_ACQUIRE) == v) == equal; i++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (i % 64 == 0) { /* now and then: the time, and the core to any other thread that wants it */
            if (wall_now() > until) break;
            sched_yield();
        }
    }
    __atomic_add_fetch(&p->spun, (int64_t)(1e9 * (thread_cpu() - t0)), __ATOMIC_RELAXED);
}

static void *pool_thread(void *arg) {
    Pool *p = ((Worker *)arg)->pool;
    const int index = ((Worker *)arg)->index;
    unsigned long seen = 0;
    for (;;) {
        spin_while(p, &p->gen, seen, 1);
        pthread_mutex_lock(&p->mu);
        while (p->gen == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        pthread_mutex_unlock(&p->mu);
        double t0 = thread_cpu();
        pool_work(p, index);
        p->cpu[index] = thread_cpu() - t0;
        pthread_mutex_lock(&p->mu);
        if (__atomic_sub_fetch(&p->busy, 1, __ATOMIC_RELEASE) == 0) pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* 0, or -1 with an exception set (no thread left running) */
static int pool_start(Pool *p, int k) {
    p->k = k;
    if (k == 1) return 0;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    p->started = 1;
    for (int i = 0; i < k - 1; i++) {
        p->who[i].pool = p;
        p->who[i].index = i + 1;
        if (pthread_create(&p->th[i], NULL, pool_thread, &p->who[i]) != 0) {
            p->k = i + 1; /* the threads started so far are stopped by pool_stop */
            PyErr_Format(PyExc_RuntimeError, "could not start thread %d of %d", i + 2, k);
            return -1;
        }
    }
    return 0;
}

static void pool_stop(Pool *p) {
    if (!p->started) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->k - 1; i++) pthread_join(p->th[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    p->started = 0;
}

/* job over [0, n) on the pool's k threads (the caller's included), the GIL held by none of them */
static void pool_run(Pool *p, Job job, void *ctx, Py_ssize_t n) {
    if (n <= 0) return;
    double t0 = thread_cpu();
    if (p->k == 1 || n == 1) {
        job(ctx, 0, n);
        double t = thread_cpu() - t0;
        p->work += t, p->critical += t;
        return;
    }
    p->job = job, p->ctx = ctx, p->n = n;
    p->chunk = (n + POOL_CHUNKS * p->k - 1) / (POOL_CHUNKS * p->k);
    const uint64_t chunks = (uint64_t)((n + p->chunk - 1) / p->chunk);
    for (int i = 0; i < p->k; i++) p->share[i] = (chunks * i / p->k) << 32 | chunks * (i + 1) / p->k;
    pthread_mutex_lock(&p->mu);
    p->busy = (unsigned long)p->k - 1;
    __atomic_add_fetch(&p->gen, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    pool_work(p, 0);
    p->cpu[0] = thread_cpu() - t0;
    spin_while(p, &p->busy, 0, 0);
    pthread_mutex_lock(&p->mu);
    while (p->busy) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    double most = 0;
    for (int i = 0; i < p->k; i++) {
        p->work += p->cpu[i];
        if (p->cpu[i] > most) most = p->cpu[i];
    }
    p->critical += most;
}

#endif
