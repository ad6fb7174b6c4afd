/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a step's tasks read that does not fit their environment (the task
 * file of common/task_env.h): written by slurmstepd as root, per task, in
 * RUN_DIR/steps/JOB.STEP.NODE/ (directories only root can change,
 * common/trusted_dir.h), readable by the task, removed when the step ends
 * (and by the job's epilog, should slurmstepd die first).
 */
#ifndef SLURM_PIN_STEP_FILES_H
#define SLURM_PIN_STEP_FILES_H

#include <stddef.h>
#include <stdint.h>

/* Names this step's directory (once, before tasks start). -1 when the node
 * has no usable name. */
int step_files_name(const char *run_dir, uint32_t job, uint32_t step, const char *node);

/* Task `task`'s file (root, in the task's privileged hook): its path in
 * `path`, or -1 with a one-line message in err. */
int step_files_write(int task, const char *data, size_t size, char *path, size_t len, char *err, size_t errlen);

/* The step's directory and every file in it (root, when the step ends). */
void step_files_remove(void);

#endif
