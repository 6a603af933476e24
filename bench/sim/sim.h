/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cosched-sim: a discrete-event model of N nodes x J jobs under the
 * cosched policies and the baselines (Documentation/simulator.rst).
 * Times are integer nanoseconds of simulated (guest) time.
 */
#ifndef COSCHED_SIM_H
#define COSCHED_SIM_H

#include <stdint.h>
#include <stdio.h>

typedef int64_t sim_ns;
#define US(x) ((sim_ns)((x) * 1000.0))
#define MS(x) ((sim_ns)((x) * 1000000.0))
#define SEC(x) ((sim_ns)((x) * 1e9))

#define MAX_JOBS 16
#define MAX_SRC 40		/* distinct message sources of one rank */

/* ---- eventq.c: a binary min-heap ordered by (time, insertion) ---- */
enum ev_kind {
	EV_CPU,		/* the running task's work ends or it yields */
	EV_TICK,	/* scheduler tick of one CPU */
	EV_ARRIVE,	/* a message reaches a rank */
	EV_SPIN_END,	/* a spin-then-block/yield wait spun spin_us */
	EV_WAKE,	/* a blocked rank is runnable again */
	EV_BOOST_START,	/* a requested boost takes effect */
	EV_BOOST_END,
	EV_PB,		/* a host's periodic examiner */
	EV_GANG,	/* gang: stop the running job */
	EV_GANG_CONT,	/* gang: continue the next one */
	EV_STALL,	/* the emulator deschedules a vCPU */
};

struct event {
	sim_ns t;
	uint64_t seq;
	uint32_t kind, gen;
	int32_t a, b;
};

struct eventq {
	struct event *h;
	size_t n, cap;
	uint64_t seq;
};

void evq_init(struct eventq *q);
void evq_free(struct eventq *q);
void evq_push(struct eventq *q, sim_ns t, unsigned int kind, int a, int b,
	      uint32_t gen);
int evq_pop(struct eventq *q, struct event *out);

/* ---- rng.c ---- */
struct rng {
	uint64_t s;
};
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
double rng_unit(struct rng *r);	/* [0, 1) */

/* ---- params.c: calibration (bench/sim/params.conf) ---- */
struct params {
	/* scheduler */
	double hz, cfs_latency_us, cfs_min_gran_us, cfs_wakeup_gran_us;
	double eevdf_slice_us, ctx_us, wake_us, syscall_us;
	/* messages (MPI over TCP) */
	double send_cpu_us, recv_cpu_us, net_us, byte_send_ns, byte_net_ns;
	double poll_us, glue_poll_us, yield_loop_us, remote_extra_us;
	/* module */
	double spin_us, pb_period_us, boost_us, boost_latency_us;
	double budget_pct, user_budget_pct, cpu_budget_pct, global_budget_pct;
	double budget_window_ms, jobs_share_user;
	double skew_us;		/* pba: spread of the hosts' clock offsets */
	double repay_max_debt_us;	/* dcs-fair (repay.c) */
	/* gang baseline */
	double gang_slice_ms, gang_switch_us;
	/* workloads: standalone measurements and shapes */
	double life_hi_s, life_hi_iters, life_hi_comm, life_hi_side,
	       life_lo_side;
	double mg_s, mg_iters, mg_comm, mg_side;
	double lu_s, lu_iters, lu_comm, lu_side;
	double ep_s, ep_iters, ep_comm;
	double jitter, stall_per_s, stall_us;
	double background_pct, background_burst_us;
	double autogroup;	/* 1: a job's ranks on a host share one group */
};

/* Load FILE with kernel-specific keys (key.6.1 / key.6.12) for KERNEL. */
int params_load(struct params *p, const char *file, const char *kernel);
/* "key=value": one parameter changed after loading (--set). */
int params_set(struct params *p, const char *kv);
/* The testbed's time costs in a calibrated guest's native-equivalent time. */
void params_dilate(struct params *p, double factor);

/* ---- mix.c ---- */
enum wl_kind {
	WL_LIFE, WL_MG, WL_LU, WL_EP, WL_BARRIER, WL_GRAIN, WL_HOG, WL_BG
};

struct jobspec {
	enum wl_kind kind;
	int hi;			/* life -v hi */
	double delay_us;	/* barrier -d */
	int nbar;		/* barrier -n */
	double grain_us;		/* grain -c */
	char label[32];
};

struct mix {
	char name[64];
	int njobs;
	int rpn;		/* ranks per node */
	struct jobspec jobs[MAX_JOBS];
};

int mix_load(struct mix *m, const char *arg, const char *dir);
int jobspec_parse(struct jobspec *j, const char *line);

/* ---- workload.c: each job's ranks as streams of operations ---- */
enum op_kind { OP_COMPUTE, OP_SEND, OP_RECV, OP_NOP, OP_SLEEP, OP_END };

struct op {
	int kind;
	int peer;		/* rank within the job */
	int bytes;
	sim_ns ns;		/* OP_COMPUTE */
};

struct tmpl_op {		/* an iteration's op, peers symbolic */
	short kind, peer;
	int bytes;
	sim_ns ns;
};

struct job {
	struct jobspec spec;
	int ranks;
	long iters;
	int dims[2];		/* life, lu: process grid */
	struct tmpl_op *iter_ops, *tail_ops;
	int n_iter_ops, n_tail_ops;
	int first;		/* its rank 0's index in world.tasks */
	int done_ranks;
	sim_ns finish;
	int competitor;		/* hog: not part of the completion */
};

/* Sized to @iters if > 0 and the workload has no count of its own. */
int job_build(struct job *j, const struct jobspec *s, int ranks,
	      double seconds, long iters, const struct params *p);
void job_free(struct job *j);
/* Op PC of RANK (PC counts over iterations then the tail); OP_END after. */
void job_op(const struct job *j, int rank, long pc, struct op *op);
long job_len(const struct job *j);

/* ---- policy table (policy.c) ---- */
enum wait_mode { W_POLL, W_SB, W_SY, W_YIELD };
enum on_arrival { A_NONE, A_DCS, A_PB };
enum pb_pick { PB_RR, PB_NEWEST, PB_BLOCKED, PB_ALIGNED };

struct policy {
	const char *name;
	enum wait_mode wait;
	enum on_arrival arrival;
	enum pb_pick pick;
	int glue;		/* waits through the MPI glue */
	int gang;
	int repay;		/* dcs-fair: boosted time is repaid (repay.c) */
};

const struct policy *policy_find(const char *name);
extern const struct policy policies[];

/* ---- the world ---- */
/* T_SLEEPING: dcs-fair's repaying sleep (its message may end it) */
enum tstate { T_RUN, T_BLOCKED, T_WAKING, T_SLEEPING, T_DONE };

struct srcctr {
	int src;
	int arrived, consumed;
};

struct task {
	int id, job, rank, cpu, host;
	enum tstate state;
	int stopped;		/* gang: SIGSTOPped */
	int on_rq;
	long pc;
	sim_ns work;		/* CPU work left in the current step */
	int send_to, send_bytes;	/* message to emit when work ends */
	/* waiting for a message */
	int waiting, wait_src, spun_out, lowered;
	uint32_t wait_seq;
	sim_ns yield_next;
	struct srcctr src[MAX_SRC];
	int nsrc;
	long arrived, ep_consumed, rule2_at;	/* the endpoint's counts */
	sim_ns last_arrival;
	/* fair class */
	int64_t vruntime, deadline, lag;
	int protect;		/* EEVDF RUN_TO_PARITY */
	int weight;
	int own_weight;		/* at its own nice 0 (autogroup: its job's part) */
	sim_ns exec_start;
	/* FIFO boost */
	int fifo, boost_pending;
	uint32_t boost_gen;
	sim_ns fifo_since, boost_len, boost_ran;
	int64_t boost_window, fair_rel;
	/* runnable time (schedstat's exec + run_delay), for repay.c */
	sim_ns rq_since, run_ns;
	/* dcs-fair: the debt, the measured share, the sleep (repay.c) */
	sim_ns debt;
	int64_t debt_window;
	sim_ns mark_exec, mark_run;	/* cpu_ns, runnable at the last update */
	sim_ns share_ran, share_runnable;
	int slept;			/* back from a sleep: to be credited */
	int sleep_through;		/* the sleep outlasts the message */
	sim_ns sleep_start, sleep_end;
	sim_ns sleep_run;		/* mark_run at the sleep's start */
	double sleep_share;		/* the share the sleep was sized at */
	/* statistics */
	sim_ns cpu_ns, spin_ns;
};

struct budget {
	int64_t window;
	sim_ns used;
};

struct cpu {
	int id, host;
	struct task *curr;
	struct task **rq;	/* runnable, the running task included */
	int nrq, caprq;
	struct task **all;	/* every task pinned here (PB's slots) */
	int nall;
	sim_ns last, ovh_until, stall_until;
	uint32_t plan_gen;
	int64_t min_vruntime;
	struct task *skip;	/* CFS yield's skip buddy */
	int need_resched;
	int pb_cursor;
	struct budget budget;
};

struct host {
	struct budget job[MAX_JOBS], user[MAX_JOBS], global;
	sim_ns pb_phase;
	sim_ns clock_off;	/* its CLOCK_REALTIME minus the true time */
	int64_t pba_period;	/* the period its pba examiner fired for */
};

struct counters {
	long boosts, budget_exhausted, blocks, wakeups, yields, switches;
	long messages, events;
	sim_ns boosted_ns;
	long repay_refused;	/* boosts refused for debt */
	sim_ns debt_charged_ns, debt_repaid_ns, debt_forgiven_ns;
};

struct world {
	const struct params *p;
	const struct policy *pol;
	int eevdf;
	int nodes, cpus_per_host, nhosts, ntasks, njobs;
	struct job jobs[MAX_JOBS];
	struct task *tasks;
	struct cpu *cpus;
	struct host *hosts;
	struct eventq q;
	struct rng rng;
	sim_ns now, limit;
	sim_ns epoch;		/* CLOCK_REALTIME at simulated time 0 */
	int mpi_left;
	sim_ns first_end;		/* the first MPI job's completion */
	double cpu_first[MAX_JOBS];	/* each job's CPU seconds then */
	int gang_cur;
	uint32_t gang_gen;
	struct counters ctr;
};

/* sched.c: one CPU's scheduler (FIFO boosts over a CFS or EEVDF class) */
void cpu_account(struct world *w, struct cpu *c);
void cpu_resched(struct world *w, struct cpu *c);
void cpu_plan(struct world *w, struct cpu *c);
void cpu_tick(struct world *w, struct cpu *c);
void rq_add(struct world *w, struct task *t, int wakeup);
void rq_del(struct world *w, struct task *t);
void sched_yield_task(struct world *w, struct task *t);
void task_set_weight(struct world *w, struct task *t, int weight);
void fifo_enter(struct world *w, struct task *t);
void fifo_leave(struct world *w, struct task *t);

/* task.c: a rank's program and its waits */
void task_advance(struct world *w, struct task *t);
void task_on_cpu(struct world *w, struct task *t);
void task_arrive(struct world *w, struct task *t, int src);
void task_spin_end(struct world *w, struct task *t, uint32_t seq);
void task_wake(struct world *w, struct task *t, uint32_t gen);
void task_sync_rq(struct world *w, struct task *t);
int msg_avail(const struct task *t, int src);

/* boost.c: boosts, budgets, the arrival side of the policies, PB */
void boost_request(struct world *w, struct task *t);
void boost_request_len(struct world *w, struct task *t, sim_ns want);
void boost_start(struct world *w, struct task *t, uint32_t gen);
void boost_stop(struct world *w, struct task *t, int resched);
void policy_on_arrival(struct world *w, struct task *t);
void policy_on_preempt(struct world *w, struct task *t);
void pb_examine(struct world *w, int host);
sim_ns pb_next(struct world *w, int host);
void sy_yield(struct world *w, struct task *t);

/* repay.c: dcs-fair, the boosted time paid back to the fair class */
double repay_share(const struct task *t);
int repay_refuse(struct world *w, struct task *t);
void repay_boost_start(struct world *w, struct task *t);
void repay_boost_end(struct world *w, struct task *t);
sim_ns repay_due(struct world *w, struct task *t, int *through);
void repay_slept(struct world *w, struct task *t, sim_ns slept);

/* gang.c */
void gang_init(struct world *w);
void gang_event(struct world *w, int kind);

/* sim.c: one run */
struct run_cfg {
	const struct mix *mix;
	const struct policy *pol;
	const char *kernel;
	int nodes, cpus_per_host;
	double seconds;		/* each job's standalone size (run-mix -t) */
	long iters;		/* > 0: instead, each job's iterations
				 * (not barrier's, hog's, background's) */
	double limit_s;		/* stop after this much simulated time */
	uint64_t seed;
	int only_job;		/* >= 0: that job alone (standalone run) */
};

struct result {
	int njobs, timed_out;
	double completion_s, ideal_s, slowdown;
	double job_s[MAX_JOBS], alone_s[MAX_JOBS], share[MAX_JOBS];
	double sim_s, wall_s;
	struct counters ctr;
	/*
	 * Fairness (fairness.c), for every job but the background one, hogs
	 * included, in mix order: the CPU it got until the first MPI job
	 * ended over its fair share of that time (its ranks over all ranks
	 * of the node), and for MPI jobs the completion over the
	 * processor-sharing one (sum over jobs of min(alone_i, alone_j)).
	 */
	int nfair;
	double share_of_fair[MAX_JOBS], vs_fair[MAX_JOBS];
	int fair_mpi[MAX_JOBS];
};

int sim_run(const struct params *p, const struct run_cfg *cfg,
	    struct result *r);
/* The same in steps, for tests: one event per sim_step(), 0 at the end. */
int sim_init(struct world *w, const struct params *p,
	     const struct run_cfg *cfg);
int sim_step(struct world *w);
void sim_finish(struct world *w, struct result *r);
/* A mix under a policy plus its standalone runs: slowdown and all. */
int sim_mix(const struct params *p, const struct run_cfg *cfg,
	    struct result *r);

/* fairness.c: the metrics of Documentation/results/sim/fair-dcs */
void fair_snapshot(struct world *w);
void fair_finish(struct world *w, struct result *r);
void fair_vs_ps(const struct mix *m, struct result *r);

/* validate.c, sweep.c */
int validate(const struct params *p, const char *csv, const char *mixdir,
	     const char *kernel, double seconds, int seeds, double tol,
	     double dilate);
int sweep(const struct params *p, const char *mixdir, const char *kernel,
	  const char *mixes, const char *pols, const char *nodes,
	  double seconds, int seeds, int cpus, FILE *out);

static inline struct cpu *cpu_of(struct world *w, const struct task *t)
{
	return &w->cpus[t->cpu];
}

#endif
