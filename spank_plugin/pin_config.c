/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pin_config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher_step.h"
#include "site_store.h"
#include "slurm_pin_frontend.h"
#include "trusted_dir.h"

/* Copies src into a fixed buffer, failing instead of truncating. */
static int set_field(char *dst, size_t size, const char *src, const char *what, char *err, size_t len) {
  if (strlen(src) >= size) {
    snprintf(err, len, "%s is too long (at most %zu characters)", what, size - 1);
    return -1;
  }
  memcpy(dst, src, strlen(src) + 1);
  return 0;
}

void pin_config_defaults(struct pin_config *c) {
  memset(c, 0, sizeof *c);
  strcpy(c->default_strategy, "none");
  strcpy(c->mem, "none");
  strcpy(c->granularity, "core");
  strcpy(c->gpu, "none");
  strcpy(c->run_dir, PIN_RUN_DIR);
  c->max_file = PIN_MAX_FILE;
  c->placement_cache = PIN_PLACEMENT_CACHE;
  c->max_time = PIN_MAX_TIME;
  c->max_memory = PIN_MAX_MEMORY;
  strcpy(c->launchers, PIN_LAUNCHERS);
  strcpy(c->store, SITE_STORE_DEFAULT); /* the default every command and the policy use too */
}

int pin_check_request(const struct pin_request *r, char *err, size_t len) {
  /* The values are the engine's (one list, one message). */
  if (r->mem[0] && sp_check_mem_policy(r->mem, err, len) != 0) return -1;
  if (r->granularity[0] && sp_check_granularity(r->granularity, err, len) != 0) return -1;
  if (r->threads[0] && sp_check_thread_mode(r->threads, err, len) != 0) return -1;
  if (r->smt[0] && sp_check_smt(r->smt, err, len) != 0) return -1;
  if (r->gpu[0] && sp_check_gpu_mode(r->gpu, err, len) != 0) return -1;
  return 0;
}

/* "file:PATH" is allowed when "file" is in the list. */
static int in_allowed(const char *allowed, const char *value) {
  char name[64];
  const char *colon = strchr(value, ':');
  size_t n = colon ? (size_t)(colon - value) : strlen(value);
  if (n >= sizeof name) return 0;
  memcpy(name, value, n);
  name[n] = '\0';
  for (const char *p = allowed; *p;) {
    const char *end = strchr(p, ',');
    size_t k = end ? (size_t)(end - p) : strlen(p);
    if (k == n && strncmp(p, name, n) == 0) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

int pin_check_strategy(const struct pin_config *c, const char *value, char *err, size_t len) {
  if (sp_check_strategy(value, err, len) != 0) return -1;
  return pin_check_site_rules(c, value, err, len);
}

int pin_check_site_rules(const struct pin_config *c, const char *value, char *err, size_t len) {
  if (c->allowed[0] && !in_allowed(c->allowed, value)) {
    snprintf(err, len, "strategy '%s' is not allowed on this cluster: use one of %s", value, c->allowed);
    return -1;
  }
  if ((c->enforce & PIN_ENFORCE_STRATEGY) && strcmp(value, c->default_strategy) != 0) {
    snprintf(err, len, "this cluster enforces strategy '%s': remove --pin-strategy=%s", c->default_strategy,
             value);
    return -1;
  }
  return 0;
}

/* "16M", "4096", "1G": bytes, from 1 KiB to 1 GiB. */
/* SIZE[K|M|G] in bytes, from lo to hi (at most 1T). */
static int parse_size(const char *v, unsigned long long lo, unsigned long long hi, unsigned long long *out) {
  char *end;
  unsigned long long n = strtoull(v, &end, 10);
  if (end == v || v[0] == '-') return -1;
  int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
  if (shift) ++end;
  if (*end || n > (1ULL << 40) || (n << shift) < lo || (n << shift) > hi) return -1;
  *out = n << shift;
  return 0;
}

static const struct {
  const char *name;
  unsigned bit;
} enforceable[] = {{"strategy", PIN_ENFORCE_STRATEGY},
                   {"mem", PIN_ENFORCE_MEM},
                   {"granularity", PIN_ENFORCE_GRANULARITY},
                   {"thread-binding", PIN_ENFORCE_THREADS},
                   {"threads", PIN_ENFORCE_THREADS}, /* 0.1's name, kept for existing configs */
                   {"smt", PIN_ENFORCE_SMT},
                   {"oversubscribe", PIN_ENFORCE_OVERSUBSCRIBE},
                   {"gpu", PIN_ENFORCE_GPU}};
#define N_ENFORCEABLE (sizeof enforceable / sizeof enforceable[0])

/* enforce=strategy,mem: the settings named. */
static int parse_enforce(struct pin_config *c, const char *v, char *err, size_t len) {
  c->enforce = 0;
  for (const char *p = v; *p;) {
    size_t n = strcspn(p, ",");
    size_t i = 0;
    while (i < N_ENFORCEABLE && !(strlen(enforceable[i].name) == n && strncmp(p, enforceable[i].name, n) == 0)) ++i;
    if (i == N_ENFORCEABLE) {
      snprintf(err, len, "enforce=%.200s: '%.*s' is no setting (enforce alone holds every one; or name some of "
               "strategy, mem, granularity, thread-binding, smt, oversubscribe, gpu)", v, (int)n, p);
      return -1;
    }
    c->enforce |= enforceable[i].bit;
    p += n + (p[n] == ',');
  }
  if (!c->enforce) return snprintf(err, len, "enforce=: name the settings, or write enforce alone"), -1;
  return 0;
}

int pin_check_enforced(const struct pin_config *c, const struct pin_request *r, char *err, size_t len) {
  const struct {
    unsigned bit;
    int changed;
    const char *option, *site;
  } settings[] = {
      {PIN_ENFORCE_STRATEGY, r->strategy_set && strcmp(r->strategy, c->default_strategy) != 0, "--pin-strategy",
       c->default_strategy},
      {PIN_ENFORCE_MEM, r->mem[0] && strcmp(r->mem, c->mem) != 0, "--pin-mem", c->mem},
      {PIN_ENFORCE_GRANULARITY, r->granularity[0] && strcmp(r->granularity, c->granularity) != 0,
       "--pin-granularity", c->granularity},
      {PIN_ENFORCE_THREADS, r->threads[0] && strcmp(r->threads, "auto") != 0, "--pin-thread-binding", "auto"},
      {PIN_ENFORCE_THREADS, r->phases, "--pin-phases", "one placement for the whole run"},
      {PIN_ENFORCE_SMT, r->smt[0] != '\0', "--pin-smt", "every hardware thread, as granularity says"},
      {PIN_ENFORCE_OVERSUBSCRIBE, r->oversubscribe, "--pin-oversubscribe",
       c->oversubscribe_error ? "no oversubscription" : "oversubscribe=share"},
      {PIN_ENFORCE_GPU, r->gpu[0] && strcmp(r->gpu, c->gpu) != 0, "--pin-gpu", c->gpu},
  };
  for (size_t i = 0; i < sizeof settings / sizeof settings[0]; ++i)
    if ((c->enforce & settings[i].bit) && settings[i].changed) {
      snprintf(err, len, "this cluster binds every step as it says (enforce: %s): remove %s", settings[i].site,
               settings[i].option);
      return -1;
    }
  return 0;
}

/* The arguments whose value is more than text to keep: each checks it.
 * v is NULL for an argument given without a value (only enforce takes both). */
static int arg_enforce(struct pin_config *c, const char *v, char *err, size_t len) {
  if (!v) return c->enforce = PIN_ENFORCE_ALL, 0;
  return parse_enforce(c, v, err, len);
}

static int arg_topology_cache(struct pin_config *c, const char *v, char *err, size_t len) {
  if (strcmp(v, "none") != 0 && v[0] != '/') {
    snprintf(err, len, "topology_cache=%s: give an absolute path, or none", v);
    return -1;
  }
  return set_field(c->topology_cache, sizeof c->topology_cache, v, "topology_cache=", err, len);
}

static int arg_run_dir(struct pin_config *c, const char *v, char *err, size_t len) {
  if (v[0] != '/') {
    snprintf(err, len, "run_dir=%s: give an absolute path (a directory only root can change)", v);
    return -1;
  }
  return set_field(c->run_dir, sizeof c->run_dir, v, "run_dir=", err, len);
}

static int arg_max_file(struct pin_config *c, const char *v, char *err, size_t len) {
  if (parse_size(v, 1ULL << 10, 1ULL << 30, &c->max_file) == 0) return 0;
  snprintf(err, len, "max_file=%.64s: give a size from 1K to 1G (16M, say)", v);
  return -1;
}

static int arg_max_memory(struct pin_config *c, const char *v, char *err, size_t len) {
  if (parse_size(v, 16ULL << 20, 1ULL << 40, &c->max_memory) == 0) return 0;
  snprintf(err, len, "max_memory=%.64s: give a size from 16M to 1024G (1G, say)", v);
  return -1;
}

static int arg_max_time(struct pin_config *c, const char *v, char *err, size_t len) {
  char *end;
  double t = strtod(v, &end);
  if (end != v && !*end && t >= 0.1 && t <= 3600) return c->max_time = t, 0;
  snprintf(err, len, "max_time=%.64s: give seconds from 0.1 to 3600", v);
  return -1;
}

static int arg_placement_cache(struct pin_config *c, const char *v, char *err, size_t len) {
  char *end;
  long n = strtol(v, &end, 10);
  if (end != v && !*end && n >= 0 && n <= PIN_PLACEMENT_CACHE_MAX) return c->placement_cache = (int)n, 0;
  snprintf(err, len, "placement_cache=%.64s: give the number of placements to keep, from 0 (none) to %d", v,
           PIN_PLACEMENT_CACHE_MAX);
  return -1;
}

static int arg_launchers(struct pin_config *c, const char *v, char *err, size_t len) {
  if (strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-,") != strlen(v)) {
    snprintf(err, len, "launchers=%.200s: give program names separated by commas, or none", v);
    return -1;
  }
  return set_field(c->launchers, sizeof c->launchers, v, "launchers=", err, len);
}

static int arg_oversubscribe(struct pin_config *c, const char *v, char *err, size_t len) {
  if (strcmp(v, "share") != 0 && strcmp(v, "error") != 0) {
    snprintf(err, len, "oversubscribe=%.64s: give share (threads beyond the cores' hardware threads share them) "
             "or error", v);
    return -1;
  }
  return c->oversubscribe_error = strcmp(v, "error") == 0, 0;
}

/* Every argument plugstack.conf takes, the one list the parser, its
 * "did you mean" and its list of known arguments come from: a flag takes
 * no value and sets its int; a text is kept in its field (the engine checks
 * the values it knows, pin_config_check); the rest are read by their own
 * function. In the order the error lists them. */
enum arg_kind { ARG_TEXT, ARG_READ, ARG_FLAG, ARG_FLAG_OR_READ };
#define CONFIG_FIELD(f) offsetof(struct pin_config, f), sizeof(((struct pin_config *)0)->f)
static const struct plugstack_arg {
  const char *key; /* as written: "name=" when it takes a value */
  enum arg_kind kind;
  size_t offset, size; /* ARG_TEXT: its buffer; ARG_FLAG: its int */
  int (*read)(struct pin_config *c, const char *v, char *err, size_t len);
} arguments[] = {
    {"default=", ARG_TEXT, CONFIG_FIELD(default_strategy), NULL},
    {"allowed=", ARG_TEXT, CONFIG_FIELD(allowed), NULL},
    {"store=", ARG_TEXT, CONFIG_FIELD(store), NULL},
    {"topology=", ARG_TEXT, CONFIG_FIELD(topology), NULL},
    {"topology_cache=", ARG_READ, 0, 0, arg_topology_cache},
    {"run_dir=", ARG_READ, 0, 0, arg_run_dir},
    {"max_file=", ARG_READ, 0, 0, arg_max_file},
    {"max_time=", ARG_READ, 0, 0, arg_max_time},
    {"max_memory=", ARG_READ, 0, 0, arg_max_memory},
    {"placement_cache=", ARG_READ, 0, 0, arg_placement_cache},
    {"launchers=", ARG_READ, 0, 0, arg_launchers},
    {"mem=", ARG_TEXT, CONFIG_FIELD(mem), NULL},
    {"granularity=", ARG_TEXT, CONFIG_FIELD(granularity), NULL},
    {"gpu=", ARG_TEXT, CONFIG_FIELD(gpu), NULL},
    {"oversubscribe=", ARG_READ, 0, 0, arg_oversubscribe},
    {"threads_lib=", ARG_TEXT, CONFIG_FIELD(threads_lib), NULL},
    {"enforce", ARG_FLAG_OR_READ, 0, 0, arg_enforce},
    {"exclusive_only", ARG_FLAG, CONFIG_FIELD(exclusive_only), NULL},
    {"whole_node", ARG_FLAG, CONFIG_FIELD(whole_node), NULL},
    {"verbose", ARG_FLAG, CONFIG_FIELD(verbose), NULL},
    {"legacy_omp_env", ARG_FLAG, CONFIG_FIELD(legacy_omp_env), NULL},
    {"policy", ARG_FLAG, CONFIG_FIELD(policy), NULL},
};
#define N_ARGUMENTS (sizeof arguments / sizeof arguments[0])

/* An argument's name: its key without the "=" of one that takes a value. */
static size_t name_length(const struct plugstack_arg *a) { return strcspn(a->key, "="); }

/* Edit distance between a (n bytes) and b, at most 3 (more is "far"): one
 * row of the usual table, so the cost is n times a key's length. */
static int distance(const char *a, size_t n, const char *b) {
  size_t m = strlen(b);
  int row[32];
  if (m >= sizeof row / sizeof row[0] || n > m + 3) return 4;
  for (size_t j = 0; j <= m; ++j) row[j] = (int)j;
  for (size_t i = 1; i <= n; ++i) {
    int diag = row[0], best = row[0] = (int)i;
    for (size_t j = 1; j <= m; ++j) {
      int up = row[j], cost = a[i - 1] == b[j - 1] ? 0 : 1;
      int v = diag + cost;
      if (up + 1 < v) v = up + 1;
      if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
      diag = up;
      row[j] = v;
      if (v < best) best = v;
    }
    if (best > 3) return 4;
  }
  return row[m];
}

const char *pin_config_suggest(const char *arg) {
  const char *eq = strchr(arg, '=');
  size_t key = eq ? (size_t)(eq - arg) : strlen(arg);
  const char *best = NULL;
  int best_d = 3;  /* a suggestion is at most 2 edits away */
  for (size_t i = 0; i < N_ARGUMENTS; ++i) {
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)name_length(&arguments[i]), arguments[i].key);
    int d = distance(arg, key, name);
    if (d < best_d) best_d = d, best = arguments[i].key;
  }
  return best;
}

static int parse_one(struct pin_config *c, const char *arg, char *err, size_t len) {
  const char *eq = strchr(arg, '=');
  const char *v = eq ? eq + 1 : NULL;
  size_t key = eq ? (size_t)(eq - arg) : strlen(arg);
  const struct plugstack_arg *a = NULL;
  for (size_t i = 0; i < N_ARGUMENTS && !a; ++i)
    if (name_length(&arguments[i]) == key && strncmp(arg, arguments[i].key, key) == 0) a = &arguments[i];
  if (a && v && a->kind == ARG_FLAG) {
    snprintf(err, len, "plugstack.conf argument '%.200s': %.*s takes no value", arg, (int)key, arg);
    return -1;
  }
  if (a && !v && (a->kind == ARG_TEXT || a->kind == ARG_READ)) a = NULL; /* "store" alone: unknown, as before */
  if (a) {
    switch (a->kind) {
      case ARG_FLAG: return *(int *)((char *)c + a->offset) = 1, 0;
      case ARG_TEXT: return set_field((char *)c + a->offset, a->size, v, a->key, err, len);
      default: return a->read(c, v, err, len);
    }
  }
  const char *near = pin_config_suggest(arg);
  if (near) {
    snprintf(err, len, "unknown plugstack.conf argument '%.200s': did you mean %s?", arg, near);
    return -1;
  }
  char known[400] = "";
  for (size_t i = 0; i < N_ARGUMENTS; ++i)
    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", arguments[i].key);
  snprintf(err, len, "unknown plugstack.conf argument '%.200s' (known: %s)", arg, known);
  return -1;
}

int pin_config_parse_arg(struct pin_config *c, const char *arg, char *err, size_t len) {
  return parse_one(c, arg, err, len);
}

int pin_config_parse(struct pin_config *c, int ac, char **av, char *err, size_t len) {
  for (int i = 0; i < ac; ++i)
    if (parse_one(c, av[i], err, len) != 0) return -1;
  if (c->allowed[0] && !in_allowed(c->allowed, c->default_strategy)) {
    snprintf(err, len, "default=%s is not in allowed=%s", c->default_strategy, c->allowed);
    return -1;
  }
  return 0;
}

/* The values only the engine knows, each named as plugstack.conf has it. */
/* A directory root keeps files in for every user's steps (run_dir=, the
 * directory of topology_cache=): what exists of it now must be root's alone
 * from / (common/trusted_dir.h); the rest root makes when first needed.
 * Checked on every node for every step, so a path through /tmp fails the
 * same way whether or not a user made its next part first. */
static int check_root_dir(const char *key, const char *path, size_t n, char *err, size_t len) {
  char dir[PATH_MAX], why[600];
  if (n >= sizeof dir) return snprintf(err, len, "%s%s: path too long", key, path), -1;
  memcpy(dir, path, n);
  dir[n] = '\0';
  int fd = trusted_dir_open(n ? dir : "/", 0, why, sizeof why);
  if (fd >= 0) return close(fd), 0;
  if (errno == ENOENT) return 0;
  snprintf(err, len, "%s%s: %s; give a directory no user can write to on the way, such as the default %s",
           key, path, why, PIN_RUN_DIR);
  return -1;
}

int pin_config_check(const struct pin_config *c, char *err, size_t len) {
  const struct {
    const char *key, *value;
    int (*check)(const char *value, char *err, size_t len);
  } values[] = {{"default=", c->default_strategy, sp_check_strategy},
                {"mem=", c->mem, sp_check_mem_policy},
                {"gpu=", c->gpu, sp_check_gpu_mode},
                {"granularity=", c->granularity, sp_check_granularity}};
  char why[512];
  for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i)
    if (values[i].check(values[i].value, why, sizeof why) != 0) {
      snprintf(err, len, "%s%s: %s", values[i].key, values[i].value, why);
      return -1;
    }
  if (check_root_dir("run_dir=", c->run_dir, strlen(c->run_dir), err, len) != 0) return -1;
  const char *cache = c->topology_cache, *slash = strrchr(cache, '/');
  if (cache[0] == '/' && slash && check_root_dir("topology_cache=", cache, (size_t)(slash - cache), err, len) != 0)
    return -1;
  return 0;
}

/* The policy's value for a setting when its rule is enforced (enforced 1)
 * or a default (enforced 0), as the rule says; NULL otherwise. */
static const char *policy_value(const struct pin_policy *p, const char *value, int enforced) {
  if (!p || !p->present || !p->applies || !value[0]) return NULL;
  return p->enforce == enforced ? value : NULL;
}

static const char *pick(const char *enforced, const char *user, const char *by_default, const char *site) {
  if (enforced) return enforced;
  if (user && user[0]) return user;
  if (by_default) return by_default;
  return site;
}

const char *pin_effective_strategy(const struct pin_config *c, const struct pin_request *r,
                                   const struct pin_policy *p) {
  if (c->enforce & PIN_ENFORCE_STRATEGY) return c->default_strategy;
  return pick(p ? policy_value(p, p->strategy, 1) : NULL, r->strategy_set ? r->strategy : NULL,
              p ? policy_value(p, p->strategy, 0) : NULL, c->default_strategy);
}

const char *pin_effective_profile(const struct pin_request *r, const struct pin_policy *p) {
  return pick(p ? policy_value(p, p->profile, 1) : NULL, r->profile, p ? policy_value(p, p->profile, 0) : NULL, "");
}

const char *pin_effective_threads(const struct pin_request *r, const struct pin_policy *p) {
  /* --pin-phases asks for ompt (regions need the tool): the user's choice too. */
  const char *user = r->threads[0] ? r->threads : r->phases ? "ompt" : NULL;
  return pick(p ? policy_value(p, p->thread_binding, 1) : NULL, user, p ? policy_value(p, p->thread_binding, 0) : NULL,
              "auto");
}

const char *pin_effective_mem(const struct pin_config *c, const struct pin_request *r, const struct pin_policy *p) {
  if (c->enforce & PIN_ENFORCE_MEM) return c->mem;
  return pick(p ? policy_value(p, p->mem, 1) : NULL, r->mem, p ? policy_value(p, p->mem, 0) : NULL, c->mem);
}

int pin_effective_oversubscribe(const struct pin_config *c, const struct pin_request *r) {
  return r->oversubscribe || !c->oversubscribe_error;
}

const char *pin_effective_granularity(const struct pin_config *c, const struct pin_request *r,
                                      const struct pin_policy *p) {
  if (c->enforce & PIN_ENFORCE_GRANULARITY) return c->granularity;
  return pick(p ? policy_value(p, p->granularity, 1) : NULL, r->granularity,
              p ? policy_value(p, p->granularity, 0) : NULL, c->granularity);
}

/* Rule names are the admin's, checked by the policy: letters, digits, . _ : * - */
static int is_rule_name(const char *v) {
  return *v && strlen(v) < 128 &&
         strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:*+-") == strlen(v);
}

/* An env name the policy accepts (env_name_problem in lua/slurm_pin_policy.lua):
 * a variable name, not one slurm-pin or Slurm sets from the placement. */
static int is_policy_env_name(const char *v) {
  static const char *const placement[] = {"OMP_PLACES", "OMP_PROC_BIND", "GOMP_CPU_AFFINITY", "KMP_AFFINITY", NULL};
  size_t n = strlen(v);
  if (!n || n >= sizeof ((struct pin_policy_env *)0)->name || isdigit((unsigned char)v[0]) ||
      strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n)
    return 0;
  if (strncmp(v, "LD_", 3) == 0 || strncmp(v, "SLURM_", 6) == 0) return 0;
  for (const char *const *name = placement; *name; ++name)
    if (strcmp(v, *name) == 0) return 0;
  return 1;
}

/* A task or thread count as the policy records it: 1 to 9 digits. */
static int is_count(const char *v) {
  size_t n = strspn(v, "0123456789");
  return n > 0 && n < 10 && v[n] == '\0';
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A recorded env value decoded (%XX): printable ASCII only, as the policy
 * allows; -1 otherwise. */
static int decode_env_value(const char *v, char *out, size_t len) {
  size_t at = 0;
  for (; *v; ++v) {
    int c = (unsigned char)*v;
    if (c == '%') {
      int hi = hex_digit(v[1]), lo = hi < 0 ? -1 : hex_digit(v[2]);
      if (lo < 0) return -1;
      c = hi * 16 + lo;
      v += 2;
    }
    if (c < 32 || c > 126 || at + 1 >= len) return -1;
    out[at++] = (char)c;
  }
  out[at] = '\0';
  return 0;
}

/* "env.NAME=VALUE" into the next slot; -1 when malformed, repeated or one
 * too many. */
static int add_policy_env(struct pin_policy *p, const char *name, const char *v) {
  if (!is_policy_env_name(name) || p->nenv >= PIN_POLICY_ENV_MAX) return -1;
  for (int i = 0; i < p->nenv; ++i)
    if (strcmp(p->env[i].name, name) == 0) return -1;
  struct pin_policy_env *e = &p->env[p->nenv];
  if (decode_env_value(v, e->value, sizeof e->value) != 0) return -1;
  snprintf(e->name, sizeof e->name, "%s", name);
  p->nenv++;
  return 0;
}

const struct pin_policy_env *pin_policy_env(const struct pin_policy *p, const struct pin_request *r, int *n,
                                            int *overwrite) {
  *n = 0, *overwrite = 0;
  if (!p || !p->present || !p->applies || !p->nenv) return NULL;
  if (!p->enforce && r && r->strategy_set) return NULL;
  *n = p->nenv, *overwrite = p->enforce;
  return p->env;
}

int pin_policy_parse(const char *text, struct pin_policy *p) {
  memset(p, 0, sizeof *p);
  if (!text || !*text) return 0;
  if (strncmp(text, "slurm-pin:", 10) != 0) return -1;
  char buf[PIN_POLICY_TEXT_MAX];
  if (strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text + 10);
  int applied = 1, seen = 0;
  enum {
    RULE = 1, MODE = 2, STRATEGY = 4, PROFILE = 8, MEM = 16, GRANULARITY = 32, APPLIED = 64, THREAD_BINDING = 128,
    TASKS = 256, THREADS = 512, EXPLORE = 1024, STORE = 2048, RECORD = 4096
  };
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (strcmp(tok, "none") == 0 && !seen) return strtok_r(NULL, " ", &save) ? -1 : 0;
    char *eq = strchr(tok, '=');
    if (!eq) return -1;
    *eq = '\0';
    const char *key = tok, *v = eq + 1;
    char err[256];
    int bit;
    if (strncmp(key, "env.", 4) == 0) {
      if (add_policy_env(p, key + 4, v) != 0) return -1;
      continue;
    }
    if (strcmp(key, "rule") == 0 && is_rule_name(v)) bit = RULE, snprintf(p->rule, sizeof p->rule, "%s", v);
    else if (strcmp(key, "mode") == 0 && (strcmp(v, "enforce") == 0 || strcmp(v, "default") == 0))
      bit = MODE, p->enforce = strcmp(v, "enforce") == 0;
    else if (strcmp(key, "strategy") == 0 && strncmp(v, "file:", 5) != 0 && sp_check_strategy(v, err, sizeof err) == 0)
      bit = STRATEGY, snprintf(p->strategy, sizeof p->strategy, "%s", v);
    else if (strcmp(key, "profile") == 0 && sp_is_profile_name(v))
      bit = PROFILE, snprintf(p->profile, sizeof p->profile, "%s", v);
    else if (strcmp(key, "mem") == 0 && sp_check_mem_policy(v, err, sizeof err) == 0)
      bit = MEM, snprintf(p->mem, sizeof p->mem, "%s", v);
    else if (strcmp(key, "granularity") == 0 && sp_check_granularity(v, err, sizeof err) == 0)
      bit = GRANULARITY, snprintf(p->granularity, sizeof p->granularity, "%s", v);
    else if (strcmp(key, "thread_binding") == 0 && sp_check_thread_mode(v, err, sizeof err) == 0)
      bit = THREAD_BINDING, snprintf(p->thread_binding, sizeof p->thread_binding, "%s", v);
    else if (strcmp(key, "tasks") == 0 && is_count(v)) bit = TASKS;     /* the shape the rule matched: */
    else if (strcmp(key, "threads") == 0 && is_count(v)) bit = THREADS; /* for slurmctld, not the node */
    else if (strcmp(key, "explore") == 0 && sp_is_profile_name(v)) bit = EXPLORE, p->explore = 1; /* slurm-pin autopilot */
    else if (strcmp(key, "store") == 0 && strcmp(v, "user") == 0) bit = STORE, p->user_store = 1;
    else if (strcmp(key, "record") == 0 && sp_is_profile_name(v) && strlen(v) < sizeof p->record)
      bit = RECORD, snprintf(p->record, sizeof p->record, "%s", v);
    else if (strcmp(key, "applied") == 0 && strcmp(v, "no") == 0) bit = APPLIED, applied = 0;
    else return -1;
    if (seen & bit) return -1; /* a key given twice: someone appended fields */
    seen |= bit;
  }
  if (!(seen & RULE) || !(seen & MODE)) return -1;
  /* The user's own store only for a profile, and only an explore rule's;
   * a recording job explores and is given nothing to place with. */
  if ((seen & STORE) && (!(seen & PROFILE) || !(seen & EXPLORE))) return -1;
  if ((seen & RECORD) && (!(seen & EXPLORE) || (seen & PROFILE))) return -1;
  p->present = 1;
  p->applies = applied;
  return 0;
}

void pin_policy_from_comment(const char *comment, char *out, size_t len) {
  if (len) out[0] = '\0';
  if (!comment) return;
  const char *last = comment;
  for (const char *bar = strchr(comment, '|'); bar; bar = strchr(bar + 1, '|')) last = bar + 1;
  while (*last == ' ') ++last;
  if (strncmp(last, "slurm-pin:", 10) != 0) return;
  size_t n = strlen(last);
  while (n && last[n - 1] == ' ') --n;
  if (n >= len) return; /* longer than any decision: not one */
  memcpy(out, last, n);
  out[n] = '\0';
}
