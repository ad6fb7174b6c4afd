/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "helper_report.h"

#include <stddef.h>

/* Every field, in the order it goes over the pipe. */
static const struct {
  enum { NUMBER, TEXT } kind;
  size_t offset;
} fields[] = {
    {NUMBER, offsetof(struct helper_report, rc)},
    {TEXT, offsetof(struct helper_report, failure)},
    {TEXT, offsetof(struct helper_report, note)},
    {TEXT, offsetof(struct helper_report, threads_lib)},
    {NUMBER, offsetof(struct helper_report, launcher)},
    {TEXT, offsetof(struct helper_report, launcher_name)},
    {TEXT, offsetof(struct helper_report, launcher_command)},
    {TEXT, offsetof(struct helper_report, launcher_options)},
    {TEXT, offsetof(struct helper_report, launcher_node_cpus)},
    {TEXT, offsetof(struct helper_report, cpu_bind_list)},
    {NUMBER, offsetof(struct helper_report, peak_kib)},
    {NUMBER, offsetof(struct helper_report, placing_us)},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

int helper_report_write(const struct helper_report *h, struct plan_writer *w) {
  for (size_t i = 0; i < NFIELDS; ++i) {
    const char *at = (const char *)h + fields[i].offset;
    int bad;
    if (fields[i].kind == NUMBER) {
      bad = plan_put_int(w, *(const long long *)at);
    } else {
      const char *text = *(const char *const *)at;
      bad = plan_put_text(w, text ? text : "");
    }
    if (bad) return -1;
  }
  return 0;
}

int helper_report_read(struct plan_reader *r, struct helper_report *h) {
  for (size_t i = 0; i < NFIELDS; ++i) {
    char *at = (char *)h + fields[i].offset;
    if (fields[i].kind == NUMBER) *(long long *)at = plan_get_int(r);
    else *(const char **)at = plan_get(r, NULL);
    if (r->bad) return -1;
  }
  return 0;
}
