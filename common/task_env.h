/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The protocol between whoever binds a task (the SPANK plugin, `slurm-pin
 * run`) and slurm-pin's thread runtime inside it (libslurm_pin_threads.so):
 * the environment variables, the task file and the limits both sides keep.
 * One definition, included by the engine's binding code, the plugin and the
 * runtime.
 */
#ifndef SLURM_PIN_TASK_ENV_H
#define SLURM_PIN_TASK_ENV_H

/* ---- What describes a task's binding (set by the binder; absent when
 * slurm-pin did not bind the task). */
#define SP_ENV_CPUS "SLURM_PIN_CPUS"         /* each thread's CPUs: "0,8 4 1 5" */
#define SP_ENV_STRATEGY "SLURM_PIN_STRATEGY" /* the strategy in force */
#define SP_ENV_POLICY "SLURM_PIN_POLICY_DECISION" /* the site policy's decision, when one applied */
#define SP_ENV_THREADS "SLURM_PIN_THREAD_BINDING" /* env | preload | ompt | auto */
#define SP_ENV_NIC "SLURM_PIN_NIC"           /* the network adapter nearest the task */
/* The task file (below): what does not fit the environment. */
#define SP_ENV_TASK_FILE "SLURM_PIN_TASK_FILE"
/* auto (thread_pinning.c): the descriptor of the task's claim, a shared
 * word naming the one process whose threads go to the places in creation
 * order; set by the runtime in the task's first process. */
#define SP_ENV_CLAIM_FD "SLURM_PIN_CLAIM_FD"
/* "1" when the task was bound with --pin-verbose: the runtime then says,
 * once, when the program moves its own threads (thread_pinning.c). */
#define SP_ENV_VERBOSE "SLURM_PIN_VERBOSE"

/* ---- MPI ranks started by a launcher (mpirun, mpiexec): the binder of the
 * launcher's daemon (or of a batch script) leaves it unbound and sets these
 * for the ranks it starts; the runtime, preloaded into the daemon, starts
 * each rank through `slurm-pin run`, which places it by local rank. */
#define SP_ENV_RANK_OPTIONS "SLURM_PIN_RANK_OPTIONS" /* the ranks' request */
#define SP_ENV_NODE_CPUS "SLURM_PIN_NODE_CPUS"       /* the CPUs the node's ranks share */
#define SP_ENV_RANK_WRAPPER "SLURM_PIN_RANK_WRAPPER" /* the slurm-pin command */

/* Slurm's own input variable for `srun --external-launcher` (Slurm 23.11
 * and later): the step of a launcher's daemon then has all the job's CPUs on
 * each node. The runtime sets it, with this value, for an srun that starts
 * a daemon (rank_launch.c); the binder of the daemon removes it, so it
 * reaches no rank and no later srun. */
#define SP_ENV_EXTERNAL_LAUNCHER "SLURM_EXTERNAL_LAUNCHER"
#define SP_EXTERNAL_LAUNCHER_MARK "slurm-pin"

/* 0.1's names of SP_ENV_POLICY and SP_ENV_THREADS: no longer set, still
 * removed, so a stale or forged one cannot pass for the task's binding. */
#define SP_ENV_RETIRED_POLICY "SLURM_PIN_POLICY"
#define SP_ENV_RETIRED_THREADS "SLURM_PIN_THREADS"

/* Every variable above, NULL-terminated: a binder unsets those it does not
 * set, so none leaks from a parent (a batch script, a daemon) into a task
 * whose binding it does not describe. */
#define SP_ENV_BINDING_NAMES                                                                             \
  {                                                                                                      \
    SP_ENV_CPUS, SP_ENV_STRATEGY, SP_ENV_POLICY, SP_ENV_THREADS, SP_ENV_NIC, SP_ENV_TASK_FILE,          \
        SP_ENV_CLAIM_FD, SP_ENV_VERBOSE, SP_ENV_RANK_OPTIONS, SP_ENV_NODE_CPUS, SP_ENV_RANK_WRAPPER, "SLURM_PIN_REGION_PLACES",          \
        SP_ENV_RETIRED_POLICY, SP_ENV_RETIRED_THREADS, (const char *)0                                  \
  }

/* ---- The user's knobs for the runtime (read, never set, by binders). */
#define SP_ENV_OVERFLOW "SLURM_PIN_OVERFLOW"         /* wrap | error | none */
#define SP_ENV_SKIP_MASK "SLURM_PIN_SKIP_MASK"       /* hex: thread creation indexes left unbound */
#define SP_ENV_SKIP_OBJECTS "SLURM_PIN_SKIP_OBJECTS" /* libraries whose threads are left unbound */

/* ---- The task file, text, one record per line, fields separated by one
 * space; CPU lists as "0-3,8":
 *
 *   slurm-pin-task 1
 *   places CPUS CPUS ...          each thread's CPUs, in thread order
 *   region NAME CPUS CPUS ...     a parallel region's places (NAME: one word)
 *
 * The runtime holds whatever the file holds (no fixed limit): the binder
 * bounds it by the machine (threads per CPU) and the engine (regions). */
#define SP_TASK_FILE_HEADER "slurm-pin-task 1"

/* ---- Limits. Slurm refuses an environment entry ("NAME=VALUE" and its NUL)
 * of 128 KiB or more, and so does Linux's execve (MAX_ARG_STRLEN): what
 * would be longer travels in the task file, or the step fails naming it. */
#define SP_MAX_ENV_ENTRY (128 * 1024)

#endif
