/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What admins (plugstack.conf arguments) and users (--pin-* options) ask of
 * slurm-pin, and the checks on it. Plain C, no Slurm types: unit-tested
 * without a cluster.
 */
#ifndef SLURM_PIN_CONFIG_H
#define SLURM_PIN_CONFIG_H

#include <limits.h>
#include <stddef.h>

#define PIN_STRATEGY_MAX (PATH_MAX + 8)

/* plugstack.conf: required slurm_pin.so [default=S] [allowed=S,S..]
 *   [store=DIR] [enforce[=SETTING,...]] [exclusive_only] [whole_node] [gpu=closest|none]
 *   [topology=FILE.xml] [topology_cache=PATH|none] [run_dir=DIR] [verbose]
 *   [mem=none|local|interleave] [granularity=pu|core|l2|l3|numa]
 *   [threads_lib=PATH] [legacy_omp_env] [policy] [placement_cache=N]
 *   [oversubscribe=share|error] */
struct pin_config {
  char default_strategy[PIN_STRATEGY_MAX];
  char allowed[1024];      /* comma-separated; empty: all */
  char store[PATH_MAX];    /* profile store directory; default common/site_store.h's */
  char topology[PATH_MAX]; /* hwloc XML instead of discovery; empty: this machine */
  /* Where slurmd saves this node's topology when it starts, for every step
   * to read instead of discovering the machine again; "none": discover;
   * empty: RUN_DIR/topology.xml. */
  char topology_cache[PATH_MAX];
  /* Root's directory on the node (common/trusted_dir.h) for what root-side
   * hooks keep for a job's steps: the policy's decision per job, the
   * node's placement cache. Default /run/slurm-pin. */
  char run_dir[PATH_MAX];
  /* What placing one step may cost slurmstepd, whatever the user gives:
   * the largest profile or placement file read (bytes), and the wall time
   * (seconds). max_file=SIZE[K|M|G], max_time=SECONDS. */
  unsigned long long max_file;
  double max_time;
  /* The most memory the placing helper may allocate (bytes), whatever the
   * job's own memory on the node; a job with less caps it lower.
   * max_memory=SIZE[K|M|G]. */
  unsigned long long max_memory;
  /* Profile-guided placements kept in RUN_DIR/placements for the node's
   * next steps with the same inputs (placement_cache.h): at most this many
   * entries, the oldest removed; 0: none kept. */
  int placement_cache;
  /* The programs whose steps are MPI launchers' daemons (launcher_step.h),
   * comma-separated; "none": no step is one. */
  char launchers[512];
  char mem[16];
  char granularity[16];
  /* oversubscribe=error: a task with more threads than its cores' hardware
   * threads fails with one line, unless the user allows it
   * (--pin-oversubscribe); default share: they share, neighbours first. */
  int oversubscribe_error;
  /* gpu=closest: tasks of jobs Slurm gave GPUs get the nearest ones and
   * CPUs near them (--pin-gpu). Default none. */
  char gpu[16];
  /* The settings users cannot change (PIN_ENFORCE_*): `enforce` alone is
   * every one, so that every step is bound as the site says;
   * enforce=strategy,mem names some. */
  unsigned enforce;
  int exclusive_only;      /* act only when the job has the whole node */
  /* A step of one task on a node its job holds whole uses every CPU of the
   * node (as mpibind), not only the cores Slurm gave the step. */
  int whole_node;
  int verbose;
  /* The site runs slurm-pin's job_submit policy: slurmstepd reads the
   * decision from the job record (AdminComment, which users cannot set),
   * never from the task's environment. */
  int policy;
  /* Also export GOMP_CPU_AFFINITY and KMP_AFFINITY, for runtimes older than
   * OpenMP 4.0. Off by default: LLVM's libomp then ignores OMP_PLACES and
   * prints a warning per task (docs/spank.md). */
  int legacy_omp_env;
  /* libslurm_pin_threads.so for --pin-thread-binding=auto|preload|ompt; empty: found
   * beside the plugin (pin_default_threads_lib). */
  char threads_lib[PATH_MAX];
};

/* The user's --pin-* options (or their SLURM_SPANK_... environment twins). */
struct pin_request {
  char strategy[PIN_STRATEGY_MAX];
  char profile[PATH_MAX];
  char mem[16];
  char granularity[16];
  char threads[16]; /* --pin-thread-binding: auto|env|preload|ompt; empty: chosen from --pin-phases */
  char smt[8];      /* --pin-smt: hardware threads used per core; empty: all, slots by granularity */
  char gpu[16];     /* --pin-gpu: closest|none; empty: the site's gpu= */
  int strategy_set;
  int verbose;
  int dryrun;
  int phases;        /* --pin-phases: per-region placements */
  int oversubscribe; /* --pin-oversubscribe: more threads than cores */
};

/* The longest decision text, with its NUL: the policy never writes a longer
 * one (lua/slurm_pin_policy.lua bounds every field). */
#define PIN_POLICY_TEXT_MAX 4096
/* An action's environment: as many variables as the policy allows, each
 * name and decoded value within the policy's bounds. */
#define PIN_POLICY_ENV_MAX 8
struct pin_policy_env {
  char name[65];
  char value[257];
};

/* A site policy's decision for the job (lua/, docs/policy.md), as
 * job_submit.lua recorded it: "slurm-pin: rule=R mode=default|enforce
 * strategy=S profile=P mem=M granularity=G thread_binding=T [tasks=N threads=N]
 * [store=user] [explore=APP] [record=APP] env.NAME=VALUE... [applied=no]" (VALUE with %XX for other bytes than
 * letters, digits and . _ - + / : ,). */
struct pin_policy {
  int present; /* a rule decided for this job */
  int applies; /* and it is in force: enforced, or the user chose nothing */
  int enforce;
  char rule[128];
  char strategy[PIN_STRATEGY_MAX];
  char profile[PATH_MAX];
  char mem[16];
  char granularity[16];
  char thread_binding[16];
  int nenv;
  struct pin_policy_env env[PIN_POLICY_ENV_MAX];
  int explore;       /* an explore rule's candidate (slurm-pin autopilot): a profile that cannot place fails */
  int user_store;    /* store=user: the profile is in the user's own store (common/user_data.h) */
  char record[256];  /* record=APP: the job's MPI ranks record their traffic (traffic_recording.h) */
};

/* Parses a decision; "slurm-pin: none" or "" is no decision. -1 if malformed:
 * an unknown or repeated key (an env variable named twice too), or a value
 * outside its own syntax (a profile is a store name, never a path; an env
 * name one the policy accepts), so no field can be smuggled in. */
int pin_policy_parse(const char *text, struct pin_policy *p);

/* The environment a decision sets in the step, in the order recorded: the
 * policy's env when its rule is in force and the step uses its strategy
 * (a user's --pin-strategy for the step makes a default rule yield, env
 * too). `*overwrite`: 1 when the rule is enforced (its values replace the
 * user's), 0 for a default rule (a variable the step has is kept). NULL
 * with *n = 0 when there is nothing to set. */
const struct pin_policy_env *pin_policy_env(const struct pin_policy *p, const struct pin_request *r, int *n,
                                            int *overwrite);

/* What `enforce` can hold fixed, by the option that would change it. */
enum {
  PIN_ENFORCE_STRATEGY = 1u << 0,      /* --pin-strategy: default= */
  PIN_ENFORCE_MEM = 1u << 1,           /* --pin-mem: mem= */
  PIN_ENFORCE_GRANULARITY = 1u << 2,   /* --pin-granularity: granularity= */
  PIN_ENFORCE_THREADS = 1u << 3,       /* --pin-thread-binding, --pin-phases: OpenMP places */
  PIN_ENFORCE_SMT = 1u << 4,           /* --pin-smt: every hardware thread as granularity says */
  PIN_ENFORCE_OVERSUBSCRIBE = 1u << 5, /* --pin-oversubscribe: never */
  PIN_ENFORCE_GPU = 1u << 6,           /* --pin-gpu: gpu= */
  PIN_ENFORCE_ALL = (1u << 7) - 1
};

/* Every setting the site holds fixed that the request changes: -1 with a
 * one-line message naming the option to remove. */
int pin_check_enforced(const struct pin_config *c, const struct pin_request *r, char *err, size_t len);

#define PIN_RUN_DIR "/run/slurm-pin"
#define PIN_MAX_FILE (16ULL << 20)
#define PIN_PLACEMENT_CACHE 64
#define PIN_PLACEMENT_CACHE_MAX 4096
#define PIN_MAX_TIME 10.0
#define PIN_MAX_MEMORY (1ULL << 30)

/* The decision in an AdminComment: its last " | " part when that part is a
 * decision ("slurm-pin: ..."), else "" (no decision). job_submit.lua puts its
 * own last and drops any other part that looks like one, so text other
 * writers keep in the comment can never stand for the policy. */
void pin_policy_from_comment(const char *comment, char *out, size_t len);

void pin_config_defaults(struct pin_config *c);
/* Parses plugstack arguments; -1 with a message naming the argument. The
 * syntax only (srun checks no more for jobs that give no --pin-* option;
 * pin_config_check the values). */
int pin_config_parse(struct pin_config *c, int ac, char **av, char *err, size_t len);
/* One argument into c: 0, or -1 with a message naming it (a near miss of
 * a known key names the key meant). slurm-pin doctor checks every argument
 * of a line this way. */
int pin_config_parse_arg(struct pin_config *c, const char *arg, char *err, size_t len);
/* The known argument (as "key=" or "key") within two edits of arg's key,
 * or NULL. */
const char *pin_config_suggest(const char *arg);
/* The values the engine checks (default=, mem=, gpu=, granularity=), and
 * that run_dir= and topology_cache= cross no directory others can write to
 * (common/trusted_dir.h); -1 with a message naming the argument. */
int pin_config_check(const struct pin_config *c, char *err, size_t len);

/* Every value set in r (the strategy aside: pin_check_strategy) is valid. */
int pin_check_request(const struct pin_request *r, char *err, size_t len);
/* How threads are bound: an enforced rule's thread_binding, the user's
 * --pin-thread-binding, ompt for --pin-phases (regions need the tool), a
 * default rule's, else auto. `p` may be NULL. */
const char *pin_effective_threads(const struct pin_request *r, const struct pin_policy *p);
/* A strategy the site allows (name only; files are checked separately). */
int pin_check_strategy(const struct pin_config *c, const char *value, char *err, size_t len);
/* Only the site's rules (allowed=, enforce), for a value known to be a
 * strategy ("none"): no engine needed. */
int pin_check_site_rules(const struct pin_config *c, const char *value, char *err, size_t len);

/* What is in force, setting by setting, strongest first: plugstack.conf
 * `enforce` (strategy only), a policy rule with mode enforce, the user's own
 * option, a policy rule with mode default, plugstack.conf's default. p may be
 * NULL (no policy). */
const char *pin_effective_strategy(const struct pin_config *c, const struct pin_request *r,
                                   const struct pin_policy *p);
const char *pin_effective_profile(const struct pin_request *r, const struct pin_policy *p);
const char *pin_effective_mem(const struct pin_config *c, const struct pin_request *r, const struct pin_policy *p);
/* Whether threads may outnumber their task's hardware threads (sharing
 * them): the user's --pin-oversubscribe, or the site's oversubscribe=share
 * (the default). */
int pin_effective_oversubscribe(const struct pin_config *c, const struct pin_request *r);
const char *pin_effective_granularity(const struct pin_config *c, const struct pin_request *r,
                                      const struct pin_policy *p);

#endif
