/* SPDX-License-Identifier: GPL-2.0-or-later */
#define _GNU_SOURCE
#include "step_files.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trusted_dir.h"

static char steps_dir[4096]; /* RUN_DIR/steps */
static char name[512];       /* JOB.STEP.NODE */

int step_files_name(const char *run_dir, uint32_t job, uint32_t step, const char *node) {
  name[0] = '\0';
  if (!node || snprintf(steps_dir, sizeof steps_dir, "%s/steps", run_dir) >= (int)sizeof steps_dir) return -1;
  snprintf(name, sizeof name, "%u.%u.%s", job, step, node);
  return trusted_name_ok(name) ? 0 : (name[0] = '\0', -1);
}

int step_files_write(int task, const char *data, size_t size, char *path, size_t len, char *err, size_t errlen) {
  char dir_path[4700], file[32], why[512];
  if (!name[0]) return snprintf(err, errlen, "this node has no name to keep the task's places under"), -1;
  snprintf(dir_path, sizeof dir_path, "%s/%s", steps_dir, name);
  snprintf(file, sizeof file, "task%d", task);
  int dir = trusted_dir_open(dir_path, 1, why, sizeof why);
  int rc = dir < 0 ? -1 : trusted_file_write(dir, file, data, size, 0644, why, sizeof why);
  if (dir >= 0) close(dir);
  if (rc != 0) {
    snprintf(err, errlen, "cannot write the task's places for its thread library (%s): ask the admin to check "
             "run_dir=", why);
    return -1;
  }
  if (snprintf(path, len, "%s/%s", dir_path, file) >= (int)len) return snprintf(err, errlen, "path too long"), -1;
  return 0;
}

void step_files_remove(void) {
  char why[512];
  if (!name[0]) return;
  int dir = trusted_dir_open(steps_dir, 0, why, sizeof why);
  if (dir < 0) return;
  trusted_dir_remove(dir, name);
  close(dir);
}
