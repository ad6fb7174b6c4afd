/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "job_decision.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>

#include "pin_config.h"
#include "trusted_dir.h"

#define DECISION_MAX 4096
#define SWEEP_MAX 1024 /* decision files looked at by one sweep */

const char *job_decision_node(void) {
  /* slurmstepd (and the prolog it runs) has it in its own environment. */
  const char *node = getenv("SLURMD_NODENAME");
  return node && trusted_name_ok(node) ? node : NULL;
}

static void file_name(char *buf, size_t len, uint32_t job, const char *node) {
  snprintf(buf, len, "%u.%s", job, node);
}

/* RUN_DIR/jobs, opened as trusted_dir_open does (created when `create`). */
static int open_jobs(const char *run_dir, int create, char *err, size_t len) {
  char jobs[4096];
  snprintf(jobs, sizeof jobs, "%s/jobs", run_dir);
  return trusted_dir_open(jobs, create, err, len);
}

int job_decision_ask(uint32_t job, char *out, size_t len) {
  job_info_msg_t *msg = NULL;
  /* SHOW_LOCAL: this cluster's record of a job running on it, in one RPC;
   * without it the library first asks slurmctld whether the cluster is in
   * a federation (REQUEST_FED_INFO), a second RPC per node and job. */
#ifdef SP_SLURM_LOAD_JOB_BY_STEP_ID /* Slurm 26.05 */
  slurm_step_id_t id = {.job_id = job, .step_het_comp = NO_VAL, .step_id = NO_VAL};
  int rc = slurm_load_job(&msg, id, SHOW_ALL | SHOW_LOCAL);
#else
  int rc = slurm_load_job(&msg, job, SHOW_ALL | SHOW_LOCAL);
#endif
  if (rc != SLURM_SUCCESS || !msg || msg->record_count < 1) {
    if (msg) slurm_free_job_info_msg(msg);
    return -1;
  }
  pin_policy_from_comment(msg->job_array[0].admin_comment, out, len);
  slurm_free_job_info_msg(msg);
  return 0;
}

/* Keeps `decision` for the job's later steps on this node; a failure only
 * costs them an RPC each, so it is logged, never fatal. */
static void keep(const char *run_dir, uint32_t job, const char *node, const char *decision) {
  char err[512] = "", name[300];
  const char *text = decision[0] ? decision : "slurm-pin: none";
  int dir = open_jobs(run_dir, 1, err, sizeof err);
  file_name(name, sizeof name, job, node);
  if (dir < 0 || trusted_file_write(dir, name, text, strlen(text), 0600, err, sizeof err) != 0)
    slurm_error("slurm-pin: cannot keep job %u's policy decision on this node (its steps will each ask slurmctld): "
                "%s", job, err);
  if (dir >= 0) close(dir);
}

void job_decision_forget(const char *run_dir, uint32_t job, const char *node) {
  char err[512], name[300];
  if (!node) return;
  int dir = open_jobs(run_dir, 0, err, sizeof err);
  if (dir >= 0) {
    file_name(name, sizeof name, job, node);
    unlinkat(dir, name, 0);
    close(dir);
  }
}

/* The processes' ids on this host are bounded by the machine (pid_max);
 * the jobs they run are far fewer. */
#define MAX_RUNNING 65536

/* A job id from a slurmstepd's process title, "slurmstepd: [JOB.STEP]"
 * (Slurm sets it so in every release slurm-pin supports); 0 if none. */
static uint32_t stepd_job(int proc, const char *pid) {
  char path[NAME_MAX + 16], text[256];
  snprintf(path, sizeof path, "%s/comm", pid);
  int fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  if (strcmp(text, "slurmstepd\n") != 0) return 0;
  snprintf(path, sizeof path, "%s/cmdline", pid);
  if ((fd = openat(proc, path, O_RDONLY | O_CLOEXEC)) < 0) return 0;
  n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  const char *open = strchr(text, '[');
  if (!open || !isdigit((unsigned char)open[1])) return 0;
  unsigned long job = strtoul(open + 1, NULL, 10);
  return job <= UINT32_MAX ? (uint32_t)job : 0;
}

/* The jobs a slurmstepd on this host runs a step of, at most `max`. */
static size_t running_jobs(uint32_t *jobs, size_t max) {
  int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = proc < 0 ? NULL : fdopendir(dup(proc));
  size_t n = 0;
  for (struct dirent *e; d && n < max && (e = readdir(d));) {
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    uint32_t job = stepd_job(proc, e->d_name);
    if (job) jobs[n++] = job;
  }
  if (d) closedir(d);
  if (proc >= 0) close(proc);
  return n;
}

static int has_job(const uint32_t *jobs, size_t n, uint32_t job) {
  for (size_t i = 0; i < n; ++i)
    if (jobs[i] == job) return 1;
  return 0;
}

/* "JOB.NODE", a decision file's name: its job, else 0. */
static uint32_t decision_job(const char *name) {
  char *end;
  if (!isdigit((unsigned char)name[0])) return 0;
  unsigned long job = strtoul(name, &end, 10);
  return *end == '.' && trusted_name_ok(end + 1) && job <= UINT32_MAX ? (uint32_t)job : 0;
}

void job_decision_sweep(const char *run_dir) {
  char err[512];
  int dir = open_jobs(run_dir, 0, err, sizeof err);
  if (dir < 0) return;
  /* The names first, then the running jobs: a file is written by its job's
   * slurmstepd, so every listed file whose job still runs here is seen. */
  char (*names)[NAME_MAX + 1] = calloc(SWEEP_MAX, NAME_MAX + 1);
  uint32_t *jobs = malloc(MAX_RUNNING * sizeof *jobs);
  DIR *d = names && jobs ? fdopendir(dup(dir)) : NULL;
  size_t listed = 0;
  for (struct dirent *e; d && listed < SWEEP_MAX && (e = readdir(d));)
    if (decision_job(e->d_name)) snprintf(names[listed++], NAME_MAX + 1, "%s", e->d_name);
  if (d) closedir(d);
  size_t running = listed ? running_jobs(jobs, MAX_RUNNING) : 0;
  int swept = 0;
  for (size_t i = 0; i < listed; ++i) {
    struct stat st;
    if (has_job(jobs, running, decision_job(names[i]))) continue;
    /* Only slurm-pin's own: a regular file of root's (never a link). */
    if (fstatat(dir, names[i], &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0) continue;
    swept += unlinkat(dir, names[i], 0) == 0;
  }
  if (swept) slurm_info("slurm-pin: removed %d policy decision%s of jobs no longer running on this node (their "
                        "epilog did not run here)", swept, swept == 1 ? "" : "s");
  free(names);
  free(jobs);
  close(dir);
}

int job_decision_read(const char *run_dir, uint32_t job, const char *node, char *out, size_t len, char *err,
                      size_t errlen) {
  char why[512] = "", name[300];
  int dir = node ? open_jobs(run_dir, 0, why, sizeof why) : -1;
  int missing = !node || (dir < 0 && errno == ENOENT);
  if (dir >= 0) {
    size_t size = 0;
    file_name(name, sizeof name, job, node);
    char *text = trusted_file_read(dir, name, DECISION_MAX, &size, why, sizeof why);
    missing = !text && errno == ENOENT;
    close(dir);
    if (text) {
      snprintf(out, len, "%s", strcmp(text, "slurm-pin: none") == 0 ? "" : text);
      free(text);
      return 0;
    }
  }
  if (!missing) {
    /* Something is there that root did not put there: never trust it, and
     * never silently fall back. */
    snprintf(err, errlen, "the policy's decision kept on this node cannot be trusted (%s/jobs: %s): ask the "
             "admin to check run_dir=", run_dir, why);
    return -1;
  }
  if (job_decision_ask(job, out, len) != 0) {
    snprintf(err, errlen, "cannot read the site policy's decision for this job from slurmctld (plugstack.conf "
             "has 'policy'): try again, or ask the admin");
    return -1;
  }
  if (node) keep(run_dir, job, node, out);
  return 0;
}
