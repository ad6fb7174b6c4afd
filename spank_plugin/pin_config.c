#include "pin_config.h"

#include <stdio.h>
#include <string.h>

#include "slurm_pin/placement.h"

static const char *const mem_values[] = {"none", "local", "interleave", NULL};
static const char *const granularity_values[] = {"pu", "core", "l2", "l3", "numa", NULL};
static const char *const threads_values[] = {"env", "preload", "ompt", NULL};

static int one_of(const char *value, const char *const *list) {
  for (; *list; ++list)
    if (strcmp(value, *list) == 0) return 1;
  return 0;
}

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
  snprintf(c->threads_lib, sizeof c->threads_lib, "%s", SLURM_PIN_THREADS_LIB);
  strcpy(c->mem, "none");
  strcpy(c->granularity, "core");
}

int pin_check_mem(const char *value, char *err, size_t len) {
  if (one_of(value, mem_values)) return 0;
  snprintf(err, len, "unknown memory policy '%s': use none, local or interleave", value);
  return -1;
}

int pin_check_threads(const char *value, char *err, size_t len) {
  if (one_of(value, threads_values)) return 0;
  snprintf(err, len, "unknown thread binding '%s': use env (OpenMP variables), preload (the pthread shim) or "
           "ompt (per-region pinning)", value);
  return -1;
}

const char *pin_effective_threads(const struct pin_request *r) {
  if (r->threads[0]) return r->threads;
  return r->phases ? "ompt" : "env";
}

int pin_check_granularity(const char *value, char *err, size_t len) {
  if (one_of(value, granularity_values)) return 0;
  snprintf(err, len, "unknown granularity '%s': use pu, core, l2, l3 or numa", value);
  return -1;
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
  if (c->allowed[0] && !in_allowed(c->allowed, value)) {
    snprintf(err, len, "strategy '%s' is not allowed on this cluster: use one of %s", value, c->allowed);
    return -1;
  }
  if (c->enforce && strcmp(value, c->default_strategy) != 0) {
    snprintf(err, len, "this cluster enforces strategy '%s': remove --pin-strategy=%s", c->default_strategy,
             value);
    return -1;
  }
  return 0;
}

static int parse_one(struct pin_config *c, const char *arg, char *err, size_t len) {
  const char *eq = strchr(arg, '=');
  const char *v = eq ? eq + 1 : NULL;
  size_t key = eq ? (size_t)(eq - arg) : strlen(arg);
#define KEY(k) (key == strlen(k) && strncmp(arg, k, key) == 0)
  if (!v && KEY("enforce")) return c->enforce = 1, 0;
  if (!v && KEY("exclusive_only")) return c->exclusive_only = 1, 0;
  if (!v && KEY("verbose")) return c->verbose = 1, 0;
  if (!v && KEY("legacy_omp_env")) return c->legacy_omp_env = 1, 0;
  if (v && KEY("default")) {
    if (sp_check_strategy(v, err, len) != 0) return -1;
    return set_field(c->default_strategy, sizeof c->default_strategy, v, "default=", err, len);
  }
  if (v && KEY("allowed")) return set_field(c->allowed, sizeof c->allowed, v, "allowed=", err, len);
  if (v && KEY("store")) return set_field(c->store, sizeof c->store, v, "store=", err, len);
  if (v && KEY("topology")) return set_field(c->topology, sizeof c->topology, v, "topology=", err, len);
  if (v && KEY("threads_lib")) return set_field(c->threads_lib, sizeof c->threads_lib, v, "threads_lib=", err, len);
  if (v && KEY("mem")) {
    if (pin_check_mem(v, err, len) != 0) return -1;
    return set_field(c->mem, sizeof c->mem, v, "mem=", err, len);
  }
  if (v && KEY("granularity")) {
    if (pin_check_granularity(v, err, len) != 0) return -1;
    return set_field(c->granularity, sizeof c->granularity, v, "granularity=", err, len);
  }
#undef KEY
  snprintf(err, len,
           "unknown plugstack.conf argument '%s' (known: default=, allowed=, store=, topology=, mem=, "
           "granularity=, threads_lib=, enforce, exclusive_only, verbose, legacy_omp_env)",
           arg);
  return -1;
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

/* The policy's value for a setting when the policy is in force at `level`:
 * 2 = enforced, 1 = default. */
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
  if (c->enforce) return c->default_strategy;
  return pick(p ? policy_value(p, p->strategy, 1) : NULL, r->strategy_set ? r->strategy : NULL,
              p ? policy_value(p, p->strategy, 0) : NULL, c->default_strategy);
}

const char *pin_effective_profile(const struct pin_request *r, const struct pin_policy *p) {
  return pick(p ? policy_value(p, p->profile, 1) : NULL, r->profile, p ? policy_value(p, p->profile, 0) : NULL, "");
}

const char *pin_effective_mem(const struct pin_config *c, const struct pin_request *r, const struct pin_policy *p) {
  return pick(p ? policy_value(p, p->mem, 1) : NULL, r->mem, p ? policy_value(p, p->mem, 0) : NULL, c->mem);
}

const char *pin_effective_granularity(const struct pin_config *c, const struct pin_request *r,
                                      const struct pin_policy *p) {
  return pick(p ? policy_value(p, p->granularity, 1) : NULL, r->granularity,
              p ? policy_value(p, p->granularity, 0) : NULL, c->granularity);
}

int pin_policy_parse(const char *text, struct pin_policy *p) {
  memset(p, 0, sizeof *p);
  if (!text || !*text) return 0;
  if (strncmp(text, "slurm-pin:", 10) != 0) return -1;
  char buf[PATH_MAX + 512];
  if (strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text + 10);
  int applied = 1, mode_seen = 0;
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if (strcmp(tok, "none") == 0) return 0;
    char *eq = strchr(tok, '=');
    if (!eq) return -1;
    *eq = '\0';
    const char *key = tok, *v = eq + 1;
    char err[256];
    if (strcmp(key, "rule") == 0) snprintf(p->rule, sizeof p->rule, "%s", v);
    else if (strcmp(key, "mode") == 0 && (strcmp(v, "enforce") == 0 || strcmp(v, "default") == 0))
      p->enforce = strcmp(v, "enforce") == 0, mode_seen = 1;
    else if (strcmp(key, "strategy") == 0 && sp_check_strategy(v, err, sizeof err) == 0)
      snprintf(p->strategy, sizeof p->strategy, "%s", v);
    else if (strcmp(key, "profile") == 0) snprintf(p->profile, sizeof p->profile, "%s", v);
    else if (strcmp(key, "mem") == 0 && pin_check_mem(v, err, sizeof err) == 0) snprintf(p->mem, sizeof p->mem, "%s", v);
    else if (strcmp(key, "granularity") == 0 && pin_check_granularity(v, err, sizeof err) == 0)
      snprintf(p->granularity, sizeof p->granularity, "%s", v);
    else if (strcmp(key, "applied") == 0) applied = strcmp(v, "no") != 0;
    else return -1;
  }
  if (!p->rule[0] || !mode_seen) return -1;
  p->present = 1;
  p->applies = applied;
  return 0;
}
